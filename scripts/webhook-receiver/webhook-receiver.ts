// The HTTPS webhook receiver of `npm run receiver`: what a customer's endpoint does, on this machine,
// printing every delivery as it arrives. It verifies each delivery with the service's own
// receiver-side helper (`shared/platform/delivery/verify-webhook-signature.ts`, the file the API guide (docs/api.md) tells
// receivers to copy), once per signature scheme, so both schemes are shown to verify on their own.
import { readFileSync, unwatchFile, watchFile } from "node:fs";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { verifyWebhookSignature } from "../../shared/platform/delivery/verify-webhook-signature";
import type { SelfSignedCertificate } from "./self-signed-certificate";

export interface WebhookReceiverOptions {
  /** 0 picks a free port. */
  port: number;
  certificate: SelfSignedCertificate;
  /** Secrets given at start (`--secret`, RECEIVER_SECRET). */
  secrets: string[];
  /**
   * A file read again on every delivery, for the secret known only once the webhook exists: the
   * API's answer to creating the webhook (or rotating its secret), or one secret per line.
   */
  secretFile?: string;
  /** Print each delivery's whole body too. */
  printBodies?: boolean;
  /** Where the receiver writes what it sees, one line at a time. */
  print: (line: string) => void;
  now?: () => Date;
}

export interface WebhookReceiver {
  port: number;
  /** Every origin it answers on (`https://127.0.0.1:<port>`, and `https://[::1]:<port>` when this machine has IPv6). */
  origins: string[];
  close(): Promise<void>;
}

/** The two schemes every delivery carries; the verifier is given one scheme's headers at a time. */
const SCHEMES = [
  { name: "X-Svc-Signature", headers: ["x-svc-signature", "x-svc-timestamp", "x-svc-event-id"] },
  { name: "webhook-signature", headers: ["webhook-signature", "webhook-timestamp", "webhook-id"] },
] as const;

const MAX_BODY_BYTES = 5 * 1024 * 1024;
/** Data fields shown first in a delivery's summary, when the event has them. */
const LEADING_FIELDS = ["sourceDisplayName", "incidentNumber", "incidentId", "title", "incidentTitle", "severity", "previousStatus", "status", "classification"];
/** Left out of the summary: a repeat of another field, or long and rarely what one looks for (`--body` shows all). */
const OMITTED_FIELDS = new Set(["source", "accountId", "description"]);

/** The secrets a secret file holds: `signingSecret` of an API answer (JSON), or one per line. */
export function secretsFromFileText(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    try {
      const document = JSON.parse(trimmed) as { signingSecret?: unknown; data?: { signingSecret?: unknown } };
      const secret = document.data?.signingSecret ?? document.signingSecret;
      return typeof secret === "string" && secret.length > 0 ? [secret] : [];
    } catch {
      return [];
    }
  }
  return trimmed
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith("#"));
}

function readSecretFile(path: string | undefined): string[] {
  if (!path) return [];
  try {
    return secretsFromFileText(readFileSync(path, "utf8"));
  } catch {
    return [];
  }
}

function onlyHeaders(headers: IncomingHttpHeaders, names: readonly string[]): Record<string, string | string[] | undefined> {
  return Object.fromEntries(names.filter((name) => headers[name] !== undefined).map((name) => [name, headers[name]]));
}

/** Per scheme: "ok", or why it did not verify with any of the secrets. */
function verifySchemes(headers: IncomingHttpHeaders, body: string, secrets: string[], now: Date): { name: string; outcome: string }[] {
  return SCHEMES.map((scheme) => {
    const own = onlyHeaders(headers, scheme.headers);
    if (own[scheme.headers[0]] === undefined) return { name: scheme.name, outcome: "missing" };
    let reason = "no matching signature";
    for (const secret of secrets) {
      const result = verifyWebhookSignature({ headers: own, body, secret, now });
      if (result.ok) return { name: scheme.name, outcome: "ok" };
      reason = result.reason;
    }
    return { name: scheme.name, outcome: reason };
  });
}

function shown(value: unknown): string {
  const text = typeof value === "string" ? (/^[\w.@:/+-]+$/.test(value) ? value : JSON.stringify(value)) : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** One line of the event's `data`: its scalar fields (and those one object down), leading fields first. */
export function summaryOf(data: unknown): string {
  if (typeof data !== "object" || data === null) return "";
  const fields: [name: string, shown: string][] = [];
  for (const [name, value] of Object.entries(data as Record<string, unknown>)) {
    if (value === null || value === undefined || OMITTED_FIELDS.has(name)) continue;
    if (Array.isArray(value)) fields.push([name, `[${value.length} item${value.length === 1 ? "" : "s"}]`]);
    else if (typeof value === "object") {
      for (const [inner, innerValue] of Object.entries(value as Record<string, unknown>)) {
        if (innerValue !== null && typeof innerValue !== "object") fields.push([`${name}.${inner}`, shown(innerValue)]);
      }
    } else fields.push([name, shown(value)]);
  }
  const rank = (name: string) => (LEADING_FIELDS.includes(name) ? LEADING_FIELDS.indexOf(name) : LEADING_FIELDS.length);
  fields.sort((a, b) => rank(a[0]) - rank(b[0]));
  const line = fields.map(([name, text]) => `${name}=${text}`).join(" ");
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/**
 * Starts the receiver on 127.0.0.1 (and ::1 when the machine has it) with the given certificate.
 * Every POST is verified and printed, and answered 200 when both signature schemes verify, 401 when
 * one does not, and 503 while it has no secret at all (the service retries, so a
 * delivery sent before the secret was written down is verified on its retry).
 */
export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const now = options.now ?? (() => new Date());
  const print = options.print;
  const seen = new Set<string>();

  function answer(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
    res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", ...headers }).end(text);
  }

  function deliver(req: IncomingMessage, res: ServerResponse, body: string): void {
    const at = now();
    const eventId = String(req.headers["webhook-id"] ?? req.headers["x-svc-event-id"] ?? "(no event id)");
    let event: { type?: unknown; data?: unknown; isTest?: unknown } | undefined;
    try {
      event = JSON.parse(body) as typeof event;
    } catch {
      event = undefined;
    }
    const type = typeof event?.type === "string" ? event.type : String(req.headers["x-svc-event-type"] ?? "(no type)");
    const repeat = seen.has(eventId) ? " (again: deduplicate on the event id)" : "";
    print(`[${at.toISOString().slice(11, 19)}] ${type}  event ${eventId}  ${req.method} ${req.url}${repeat}`);

    const secrets = [...options.secrets, ...readSecretFile(options.secretFile)];
    let status: number;
    if (secrets.length === 0) {
      status = 503;
      print(`  not verified: no signing secret yet${options.secretFile ? ` (write it to ${options.secretFile})` : ""}; answered 503, the service retries`);
      // 503 is retried on the service's own backoff (30 s by default), by when the secret is usually there.
      answer(res, status, "No signing secret configured yet.");
    } else {
      const outcomes = verifySchemes(req.headers, body, secrets, at);
      const verified = outcomes.every((o) => o.outcome === "ok");
      status = verified ? 200 : 401;
      print(`  ${verified ? "verified" : "NOT VERIFIED"}: ${outcomes.map((o) => `${o.name} ${o.outcome}`).join(", ")}; answered ${status}`);
      if (verified) seen.add(eventId);
      answer(res, status, verified ? "" : outcomes.filter((o) => o.outcome !== "ok").map((o) => `${o.name}: ${o.outcome}`).join("; "));
    }
    if (event === undefined) print(`  the body is not JSON (${Buffer.byteLength(body)} bytes)`);
    else {
      const summary = summaryOf(event.data);
      if (summary) print(`  ${event.isTest === true ? "test event: " : ""}${summary}`);
      if (options.printBodies) print(JSON.stringify(event, null, 2).replace(/^/gm, "  "));
    }
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== "POST") {
      answer(res, 405, "Webhook deliveries are POST requests.", { Allow: "POST" });
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on("end", () => {
      if (size > MAX_BODY_BYTES) {
        print(`[${now().toISOString().slice(11, 19)}] refused a ${size}-byte body`);
        answer(res, 413, "Body too large.");
        return;
      }
      deliver(req, res, Buffer.concat(chunks).toString("utf8"));
    });
  }

  const servers: Server[] = [];
  const listen = (host: string, port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer({ cert: options.certificate.cert, key: options.certificate.key }, handle);
      // A client giving up mid-handshake is not the receiver's failure.
      server.on("tlsClientError", () => {});
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve(server);
      });
    });

  const v4 = await listen("127.0.0.1", options.port);
  servers.push(v4);
  const port = (v4.address() as AddressInfo).port;
  const origins = [`https://127.0.0.1:${port}`];
  // `localhost` may resolve to ::1 first; without IPv6 on the machine, 127.0.0.1 is enough.
  try {
    servers.push(await listen("::1", port));
    origins.push(`https://[::1]:${port}`);
  } catch {
    // No IPv6 loopback here, or the port is taken on it: the IPv4 listener serves localhost.
  }

  if (options.secretFile) {
    const file = options.secretFile;
    let known = readSecretFile(file).join("\n");
    // Tells the person at the terminal that the secret was picked up (or changed), without printing it.
    watchFile(file, { interval: 500, persistent: false }, () => {
      const current = readSecretFile(file).join("\n");
      if (current !== known) print(current ? `Signing secret read from ${file}: deliveries are verified with it from now on.` : `${file} holds no signing secret now.`);
      known = current;
    });
  }

  return {
    port,
    origins,
    close: async () => {
      if (options.secretFile) unwatchFile(options.secretFile);
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
    },
  };
}
