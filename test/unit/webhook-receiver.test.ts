import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generateSigningSecret, signatureHeaders, signingKeyOf } from "../../shared/platform/delivery/signer";
import { parseReceiverArgs, startupLines, type ReceiverSettings } from "../../scripts/webhook-receiver/receiver-cli";
import { createSelfSignedCertificate, loadOrCreateCertificate, type SelfSignedCertificate } from "../../scripts/webhook-receiver/self-signed-certificate";
import { secretsFromFileText, startWebhookReceiver, summaryOf, type WebhookReceiver } from "../../scripts/webhook-receiver/webhook-receiver";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "receiver-test-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** One POST over HTTPS trusting only `ca`; resolves to the status and body. */
function post(url: string, ca: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", ca, headers: { "content-type": "application/json", ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), headers: res.headers }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

function signed(secret: string, event: { id: string; type: string; data: unknown }) {
  const body = JSON.stringify({ ...event, occurredAt: new Date().toISOString() });
  const headers = signatureHeaders({ eventId: event.id, eventType: event.type, timestamp: Math.floor(Date.now() / 1000), body, keys: [signingKeyOf(secret)] });
  return { body, headers };
}

const incident = { sourceDisplayName: "SourceB", source: "sourceb", incidentId: "INC-77", title: "Ransomware note on FILESRV-02", severity: "High", status: "New", accountId: "a" };

describe("the webhook receiver", () => {
  let certificate: SelfSignedCertificate;
  let receiver: WebhookReceiver;
  let secretFile: string;
  const printed: string[] = [];
  const secret = generateSigningSecret();

  beforeAll(async () => {
    certificate = await createSelfSignedCertificate({ commonName: "localhost" });
    secretFile = join(tempDir(), "webhook.json");
    receiver = await startWebhookReceiver({ port: 0, certificate, secrets: [], secretFile, print: (line) => printed.push(line) });
  });
  afterAll(() => receiver?.close());
  beforeEach(() => {
    printed.length = 0;
    rmSync(secretFile, { force: true });
  });

  const url = () => `https://127.0.0.1:${receiver.port}/hook`;

  it("answers 503 while it has no secret, so the service retries the delivery", async () => {
    const { body, headers } = signed(secret, { id: "0b9f9e5e-1111-4c1e-9a6f-2b8d4e6f1a3c", type: "incident.created.v1", data: incident });
    const res = await post(url(), certificate.cert, headers, body);
    expect(res.status).toBe(503);
    expect(printed.join("\n")).toContain("incident.created.v1  event 0b9f9e5e-1111-4c1e-9a6f-2b8d4e6f1a3c");
    expect(printed.join("\n")).toContain(`no signing secret yet (write it to ${secretFile})`);
  });

  it("verifies both schemes with the secret from the API's creation answer written to the secret file, and prints the event", async () => {
    writeFileSync(secretFile, JSON.stringify({ data: { id: "w1", name: "my receiver", signingSecret: secret }, meta: {} }));
    const { body, headers } = signed(secret, { id: "1c2d3e4f-2222-4c1e-9a6f-2b8d4e6f1a3c", type: "incident.created.v1", data: incident });
    const res = await post(url(), certificate.cert, headers, body);
    expect(res.status).toBe(200);
    expect(printed[0]).toMatch(/^\[\d\d:\d\d:\d\d\] incident\.created\.v1 {2}event 1c2d3e4f-2222-4c1e-9a6f-2b8d4e6f1a3c {2}POST \/hook$/);
    expect(printed[1]).toBe("  verified: X-Svc-Signature ok, webhook-signature ok; answered 200");
    expect(printed[2]).toBe('  sourceDisplayName=SourceB incidentId=INC-77 title="Ransomware note on FILESRV-02" severity=High status=New');

    // The same event again (a retry) verifies and is marked as one to deduplicate.
    expect((await post(url(), certificate.cert, headers, body)).status).toBe(200);
    expect(printed[3]).toContain("(again: deduplicate on the event id)");
  });

  it("refuses with 401 a delivery signed with another secret, naming each scheme's failure", async () => {
    writeFileSync(secretFile, `${secret}\n`);
    const { body, headers } = signed(generateSigningSecret(), { id: "2d3e4f5a-3333-4c1e-9a6f-2b8d4e6f1a3c", type: "incident.closed.v1", data: incident });
    const res = await post(url(), certificate.cert, headers, body);
    expect(res.status).toBe(401);
    expect(printed[1]).toBe("  NOT VERIFIED: X-Svc-Signature no matching signature, webhook-signature no matching signature; answered 401");
  });

  it("checks each scheme on its own: one valid scheme does not cover a broken other", async () => {
    writeFileSync(secretFile, secret);
    const { body, headers } = signed(secret, { id: "3e4f5a6b-4444-4c1e-9a6f-2b8d4e6f1a3c", type: "incident.closed.v1", data: incident });
    const res = await post(url(), certificate.cert, { ...headers, "X-Svc-Signature": "v1=" + "0".repeat(64) }, body);
    expect(res.status).toBe(401);
    expect(printed[1]).toBe("  NOT VERIFIED: X-Svc-Signature no matching signature, webhook-signature ok; answered 401");
    const tampered = await post(url(), certificate.cert, headers, body.replace("FILESRV-02", "FILESRV-03"));
    expect(tampered.status).toBe(401);
  });

  it("takes secrets given at start, and during a rotation verifies with either key", async () => {
    const previous = generateSigningSecret();
    const withSecret = await startWebhookReceiver({ port: 0, certificate, secrets: [secret], print: () => {} });
    try {
      const body = JSON.stringify({ id: "4f5a6b7c-5555-4c1e-9a6f-2b8d4e6f1a3c", type: "webhook.test.v1", data: {} });
      const headers = signatureHeaders({ eventId: "4f5a6b7c-5555-4c1e-9a6f-2b8d4e6f1a3c", eventType: "webhook.test.v1", timestamp: Math.floor(Date.now() / 1000), body, keys: [signingKeyOf(previous), signingKeyOf(secret)] });
      expect((await post(`https://127.0.0.1:${withSecret.port}/`, certificate.cert, headers, body)).status).toBe(200);
    } finally {
      await withSecret.close();
    }
  });

  it("answers on localhost with a certificate a client checking the name accepts", async () => {
    const { body, headers } = signed(secret, { id: "5a6b7c8d-6666-4c1e-9a6f-2b8d4e6f1a3c", type: "incident.created.v1", data: incident });
    writeFileSync(secretFile, secret);
    expect((await post(`https://localhost:${receiver.port}/hook`, certificate.cert, headers, body)).status).toBe(200);
  });
});

describe("the receiver's secret file", () => {
  it("holds the API's answer (signingSecret under data or at the top) or one secret per line", () => {
    expect(secretsFromFileText('{"data":{"id":"x","signingSecret":"whsec_abc"},"meta":{}}')).toEqual(["whsec_abc"]);
    expect(secretsFromFileText('{"signingSecret":"whsec_abc"}')).toEqual(["whsec_abc"]);
    expect(secretsFromFileText("whsec_new\n\n# the previous one\nwhsec_old\r\n")).toEqual(["whsec_new", "whsec_old"]);
    // An error answer (no secret in it) or a half-written file gives no secret rather than a wrong one.
    expect(secretsFromFileText('{"type":"https://example.com/problems/validation","status":400}')).toEqual([]);
    expect(secretsFromFileText('{"data":{"signingSecret":')).toEqual([]);
  });
});

describe("the delivery summary", () => {
  it("shows the telling fields first, one level into objects, counts arrays, and skips what repeats", () => {
    const line = summaryOf({ workspaceId: "w", source: "sourcea", sourceDisplayName: "SourceA", incidentId: "INC-1", changedBy: { origin: "upstream", name: null }, entities: [1, 2], title: "a b" });
    expect(line).toBe('sourceDisplayName=SourceA incidentId=INC-1 title="a b" workspaceId=w changedBy.origin=upstream entities=[2 items]');
    expect(summaryOf({ message: "x".repeat(500) }).length).toBeLessThanOrEqual(300);
  });
});

describe("the receiver's certificate", () => {
  it("is valid for localhost, 127.0.0.1 and ::1 and is kept across starts", async () => {
    const dir = tempDir();
    const first = await loadOrCreateCertificate(dir, { commonName: "localhost" });
    const x509 = new X509Certificate(first.cert);
    expect([x509.checkHost("localhost"), x509.checkIP("127.0.0.1"), x509.checkIP("::1")]).toEqual(["localhost", "127.0.0.1", "::1"]);
    expect(first.created).toBe(true);
    const second = await loadOrCreateCertificate(dir, { commonName: "localhost" });
    expect([second.created, second.cert]).toEqual([false, first.cert]);
    expect(readFileSync(second.certPath, "utf8")).toBe(first.cert);
  });

  it("is made again when the kept one does not match its key", async () => {
    const dir = tempDir();
    const first = await loadOrCreateCertificate(dir, { commonName: "localhost" });
    writeFileSync(first.keyPath, (await createSelfSignedCertificate({ commonName: "other" })).key);
    const again = await loadOrCreateCertificate(dir, { commonName: "localhost" });
    expect(again.created).toBe(true);
    expect(again.cert).not.toBe(first.cert);
  });
});

describe("npm run receiver's command line", () => {
  const run = (argv: string[], env: NodeJS.ProcessEnv = {}) => parseReceiverArgs(argv, env, "/repo");

  it("defaults to port 8443 and .receiver/ in the package root", () => {
    expect(run([])).toEqual({ kind: "run", settings: { port: 8443, dir: "/repo/.receiver", secrets: [], secretFile: "/repo/.receiver/webhook.json", printBodies: false } });
  });

  it("takes options and the RECEIVER_* variables", () => {
    const parsed = run(["--port", "9443", "--secret=whsec_a", "--secret", "whsec_b", "--secret-file", "s.txt", "--body"], { RECEIVER_SECRET: "whsec_env", RECEIVER_DIR: "/tmp/r" });
    expect(parsed).toEqual({ kind: "run", settings: { port: 9443, dir: "/tmp/r", secrets: ["whsec_env", "whsec_a", "whsec_b"], secretFile: "/repo/s.txt", printBodies: true } });
    expect(run(["--port", "http"])).toMatchObject({ kind: "error" });
    expect(run(["--secret"])).toMatchObject({ kind: "error", message: "--secret needs a value" });
    expect(run(["--verbose"])).toMatchObject({ kind: "error", message: "unknown option --verbose" });
    expect(run(["--help"])).toEqual({ kind: "help" });
  });

  it("prints the exact settings to start the service with, and where the secret goes", () => {
    const settings: ReceiverSettings = { port: 8443, dir: "/repo/.receiver", secrets: [], secretFile: "/repo/.receiver/webhook.json", printBodies: false };
    const lines = startupLines({ settings, origins: ["https://127.0.0.1:8443"], port: 8443, certPath: "/repo/.receiver/cert.pem", certificateCreated: true, cwd: "/repo" });
    expect(lines).toContain("    NODE_EXTRA_CA_CERTS=/repo/.receiver/cert.pem WEBHOOK_ALLOW_PRIVATE_TARGETS=true npm start");
    expect(lines.join("\n")).toContain("to .receiver/webhook.json;");
    const spaced = startupLines({ settings, origins: [], port: 8443, certPath: "/my repo/.receiver/cert.pem", certificateCreated: false, cwd: "/my repo" });
    expect(spaced).toContain("    NODE_EXTRA_CA_CERTS='/my repo/.receiver/cert.pem' WEBHOOK_ALLOW_PRIVATE_TARGETS=true npm start");
  });
});
