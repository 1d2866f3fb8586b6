import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSelfSignedCertificate } from "../../scripts/webhook-receiver/self-signed-certificate";
import { startWebhookReceiver, type WebhookReceiver } from "../../scripts/webhook-receiver/webhook-receiver";
import { fakeDns, startTestHost, type TestHost } from "../support/test-host";
import { waitFor } from "../support/wait-for";
import type { Json } from "../support/json";

vi.setConfig({ testTimeout: 30_000 });

/*
 * `npm run receiver` against the service's real delivery path, as the API guide's walkthrough uses it (docs/api.md):
 * the service started with the receiver's certificate and WEBHOOK_ALLOW_PRIVATE_TARGETS, a webhook on
 * https://localhost:<port>, the secret known only once the webhook exists.
 */
let receiver: WebhookReceiver;
let host: TestHost;
let dir: string;
const printed: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "receiver-api-"));
  const certificate = await createSelfSignedCertificate({ commonName: "localhost" });
  receiver = await startWebhookReceiver({ port: 0, certificate, secrets: [], secretFile: join(dir, "webhook.json"), print: (line) => printed.push(line) });
  host = await startTestHost({
    webhookCa: certificate.cert,
    // The system resolver's answer for localhost, without asking it.
    resolveHost: async (name) => (name === "localhost" ? ["127.0.0.1"] : fakeDns(name)),
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", WEBHOOK_RETRY_BACKOFF_MS: "200", WEBHOOK_RETRY_WINDOW_MS: "20000" },
  });
});
afterAll(async () => {
  await host?.close();
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const output = () => printed.join("\n");

describe("npm run receiver with the local host", () => {
  it("a delivery sent before the secret was written down is verified on its retry once the creation answer is in the secret file", async () => {
    const created = await host.call("POST", "/webhooks", {
      body: { name: "my receiver", url: `https://localhost:${receiver.port}/hook`, eventTypes: ["incident.created.v1", "incident.closed.v1"] },
    });
    expect(created.status).toBe(201);
    const answer = (await created.json()) as Json;

    const test = (await (await host.call("POST", `/webhooks/${answer.data.id}/test`)).json()) as Json;
    const eventId = test.data.eventId as string;
    await waitFor(() => output().includes("no signing secret yet"), "the first attempt, refused for want of a secret");
    expect(output()).toContain(`webhook.test.v1  event ${eventId}  POST /hook`);

    // What the API guide has the reader do: tee the creation answer into the receiver's secret file.
    writeFileSync(join(dir, "webhook.json"), JSON.stringify(answer));
    await waitFor(() => output().includes("verified: X-Svc-Signature ok, webhook-signature ok; answered 200"), "the retry, verified");
    const logs = (await (await host.call("GET", `/webhooks/${answer.data.id}/delivery-logs`)).json()) as Json;
    expect(logs.data.map((l: Json) => [l.eventId, l.httpStatusCode])).toEqual(
      expect.arrayContaining([
        [eventId, 503],
        [eventId, 200],
      ]),
    );
  });

  it("prints an incident ingested from the vendor console with its summary", async () => {
    const ws = host.demo.workspaces[0]!.id;
    // The first pass sets the baseline (as npm start does before listening); incidents after it are new.
    expect((await host.local("POST", "/reconcile")).status).toBe(200);
    const incident = (await (await host.local("POST", `/sources/SourceB/workspaces/${ws}/incidents`, { title: "Ransomware note on FILESRV-02", severity: "High" })).json()) as Json;
    expect((await host.local("POST", "/reconcile")).status).toBe(200);
    const line = await waitFor(() => printed.find((l) => l.includes(`incidentId=${incident.data.id} `)), "the incident.created.v1 delivery", 20_000);
    expect(line).toContain('title="Ransomware note on FILESRV-02" severity=High status=New');
    const at = printed.indexOf(line);
    expect(printed[at - 2]).toMatch(/ incident\.created\.v1 {2}event [0-9a-f-]{36} {2}POST \/hook$/);
    expect(printed[at - 1]).toBe("  verified: X-Svc-Signature ok, webhook-signature ok; answered 200");
  });
});
