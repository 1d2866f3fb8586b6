/**
 * `npm run build && node dist/scripts/webhook-receiver.js [--port 8443] [--cert receiver-cert.pem]`
 *
 * A webhook receiver for trying the service's events by hand on one machine: HTTPS on 127.0.0.1 with
 * a self-signed certificate made at start and written to `--cert`, so that the local host can trust
 * it (`NODE_EXTRA_CA_CERTS=receiver-cert.pem`, with `WEBHOOK_ALLOW_PRIVATE_TARGETS=true`). It answers
 * every POST with 200 and prints one line per event: its type, id and what it is about. With
 * `SIGNING_SECRET` set (the `whsec_…` secret shown when the webhook was created) it also checks each
 * delivery's signatures and says whether they verify.
 */
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { generate } from "selfsigned";
import { verifyWebhookSignature } from "../shared/delivery/verify-webhook-signature";

export interface ReceiverOptions {
  port: number;
  certPath: string;
  signingSecret?: string;
  print: (line: string) => void;
}

export async function startWebhookReceiver(options: ReceiverOptions): Promise<{ server: Server; port: number }> {
  const pems = await generate([{ name: "commonName", value: "localhost" }], {
    keyType: "ec",
    algorithm: "sha256",
    notBeforeDate: new Date(Date.now() - 60_000),
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: true },
      { name: "subjectAltName", altNames: [{ type: 2, value: "localhost" }, { type: 7, ip: "127.0.0.1" }] },
    ],
  });
  writeFileSync(options.certPath, pems.cert);
  const server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      if (req.method !== "POST") return;
      const body = Buffer.concat(chunks).toString("utf8");
      options.print(describe(body, options.signingSecret ? verifyWebhookSignature({ headers: req.headers, body, secret: options.signingSecret }).ok : undefined));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/** One line about a delivery: when, the type, the event id, and the fields that say what it is about. */
function describe(body: string, verified: boolean | undefined): string {
  let event: { id?: string; type?: string; data?: Record<string, unknown> };
  try {
    event = JSON.parse(body) as typeof event;
  } catch {
    return `${new Date().toISOString()} (not JSON) ${body.slice(0, 200)}`;
  }
  const data = event.data ?? {};
  const about = ["runId", "incidentId", "title", "gamebookTitle", "status"]
    .filter((k) => typeof data[k] === "string" || typeof data[k] === "number")
    .map((k) => `${k}=${String(data[k])}`)
    .join(" ");
  const signature = verified === undefined ? "" : verified ? " [signature ok]" : " [SIGNATURE FAILED]";
  return `${new Date().toISOString()} ${event.type ?? "?"} ${event.id ?? "?"} ${about}${signature}`;
}

if (require.main === module) {
  const { values } = parseArgs({ options: { port: { type: "string", default: "8443" }, cert: { type: "string", default: "receiver-cert.pem" } } });
  startWebhookReceiver({
    port: Number(values.port),
    certPath: values.cert,
    signingSecret: process.env.SIGNING_SECRET,
    print: (line) => process.stdout.write(line + "\n"),
  }).then(
    ({ port }) => process.stdout.write(`Receiving webhooks at https://127.0.0.1:${port}/hook (certificate in ${values.cert})\n`),
    (error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      process.exit(1);
    },
  );
}
