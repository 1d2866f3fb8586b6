import { readFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startWebhookReceiver } from "../../scripts/webhook-receiver";
import { signatureHeaders, signingKeyOf } from "../../shared/delivery/signer";

describe("the local webhook receiver (scripts/webhook-receiver.ts)", () => {
  it("serves HTTPS with the certificate it writes, and prints each event's type, id and subject, verified with the secret", async () => {
    const certPath = join(tmpdir(), `receiver-${process.pid}-${Date.now()}.pem`);
    const lines: string[] = [];
    const secret = "whsec_" + Buffer.alloc(32, 7).toString("base64");
    const { server, port } = await startWebhookReceiver({ port: 0, certPath, signingSecret: secret, print: (l) => lines.push(l) });
    try {
      const body = JSON.stringify({ id: "ev-1", type: "gamebook.run.v1", occurredAt: new Date().toISOString(), data: { runId: "run-7", status: "Pending" } });
      const headers = signatureHeaders({ keys: [signingKeyOf(secret)], eventId: "ev-1", eventType: "gamebook.run.v1", timestamp: Math.floor(Date.now() / 1000), body });
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`https://127.0.0.1:${port}/hook`, { method: "POST", ca: readFileSync(certPath), headers: { "content-type": "application/json", ...headers } }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        req.on("error", reject);
        req.end(body);
      });
      expect(status).toBe(200);
      await new Promise((r) => setTimeout(r, 20));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/ gamebook\.run\.v1 ev-1 runId=run-7 status=Pending \[signature ok\]$/);
    } finally {
      server.close();
    }
  });
});
