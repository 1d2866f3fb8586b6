import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { checkWebhookUrl, type HostResolver } from "../../shared/platform/delivery/address-policy";
import { createGuardedSender, RESPONSE_HEAD_BYTES, type GuardedSender, type SendOutcome } from "../../shared/platform/delivery/guarded-sender";
import { generateSigningSecret, signatureHeaders, signingKeyOf } from "../../shared/platform/delivery/signer";
import { verifyWebhookSignature } from "../../shared/platform/delivery/verify-webhook-signature";
import { RECEIVER_HOSTNAME, startHttpsReceiver, type HttpsReceiver } from "../support/https-receiver";

// Short enough to keep the suite quick, long enough that a loaded machine answers a healthy request
// well within it. Timeout scenarios make the receiver wait far longer than this.
const TIMEOUT_MS = 5_000;
const SHORT_TIMEOUT_MS = 400;
const CAP = 64 * 1024;

let receiver: HttpsReceiver;
const senders: GuardedSender[] = [];

/** Maps the test host name to the receiver's loopback address, as DNS would. */
function lookupCounting(table: Record<string, string[]> = { [RECEIVER_HOSTNAME]: ["127.0.0.1"] }) {
  const calls: string[] = [];
  const lookup: HostResolver = async (host) => {
    calls.push(host);
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return addresses;
  };
  return { lookup, calls };
}

function sender(options: { allowPrivateTargets?: boolean; timeoutMs?: number; lookup?: HostResolver; trust?: boolean } = {}) {
  const created = createGuardedSender({
    timeoutMs: options.timeoutMs ?? TIMEOUT_MS,
    maxResponseBytes: CAP,
    allowPrivateTargets: options.allowPrivateTargets ?? true,
    lookup: options.lookup ?? lookupCounting().lookup,
    ca: options.trust === false ? undefined : receiver.certificate,
  });
  senders.push(created);
  return created;
}

const request = (url = receiver.url()) => ({
  url,
  headers: { "content-type": "application/json", "x-custom": "1" },
  body: '{"id":"e1","type":"webhook.test.v1","data":{}}',
});

function expectResponse(outcome: SendOutcome): Extract<SendOutcome, { kind: "response" }> {
  if (outcome.kind !== "response") throw new Error(`expected a response, got ${JSON.stringify(outcome)}`);
  return outcome;
}

function expectError(outcome: SendOutcome, error: string) {
  expect(outcome, JSON.stringify(outcome)).toMatchObject({ kind: "error", error });
}

beforeAll(async () => {
  receiver = await startHttpsReceiver();
});

afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close()));
  receiver.reset();
});

afterAll(async () => {
  await receiver?.close();
});

describe("guarded sender against a real HTTPS receiver", () => {
  it("POSTs the exact body and headers and returns a 2xx with a snippet of the body", async () => {
    receiver.respondWith({ status: 200, headers: { "x-reply": "yes" }, body: "thanks" });
    const outcome = expectResponse(await sender().send(request()));
    expect(outcome).toMatchObject({ status: 200, snippet: "thanks", responseBytesRead: 6, truncated: false });
    expect(outcome.headers["x-reply"]).toBe("yes");
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    expect(receiver.requests).toHaveLength(1);
    const [received] = receiver.requests;
    expect(received).toMatchObject({ method: "POST", url: "/hook", body: request().body });
    expect(received!.headers).toMatchObject({ "content-type": "application/json", "x-custom": "1", host: `${RECEIVER_HOSTNAME}:${receiver.port}` });
  });

  it("delivers a signed event that the receiver verifies from the raw body and headers", async () => {
    const secret = generateSigningSecret();
    const body = JSON.stringify({ id: "evt-1", type: "incident.created.v1", occurredAt: new Date().toISOString(), data: { n: "é" } });
    const headers = signatureHeaders({
      eventId: "evt-1",
      eventType: "incident.created.v1",
      timestamp: Math.floor(Date.now() / 1000),
      body,
      keys: [signingKeyOf(secret)],
    });
    expectResponse(await sender().send({ url: receiver.url(), headers: { ...headers, "content-type": "application/json" }, body }));
    const [received] = receiver.requests;
    expect(verifyWebhookSignature({ headers: received!.headers, body: received!.body, secret })).toEqual({
      ok: true,
      eventId: "evt-1",
      timestamp: Number(headers["X-Svc-Timestamp"]),
    });
  });

  it("passes every status through as a response", async () => {
    const s = sender();
    for (const status of [201, 202, 204, 400, 401, 404, 408, 410, 422, 429, 500, 502, 503, 504]) {
      receiver.enqueue({ status, headers: status === 429 ? { "retry-after": "7" } : {} });
      const outcome = expectResponse(await s.send(request()));
      expect(outcome.status).toBe(status);
      if (status === 429) expect(outcome.headers["retry-after"]).toBe("7");
    }
  });

  it("does not follow a redirect: the 3xx comes back as the outcome", async () => {
    const s = sender();
    for (const status of [301, 302, 303, 307, 308]) {
      receiver.reset();
      receiver.enqueue({ status, headers: { location: receiver.url("/elsewhere") } });
      const outcome = expectResponse(await s.send(request()));
      expect(outcome.status).toBe(status);
      expect(outcome.headers.location).toBe(receiver.url("/elsewhere"));
      expect(receiver.requests.map((r) => r.url)).toEqual(["/hook"]);
    }
  });

  it("times out when the headers do not arrive in time", async () => {
    receiver.respondWith({ delayBeforeHeadersMs: 20_000 });
    const outcome = await sender({ timeoutMs: SHORT_TIMEOUT_MS }).send(request());
    expectError(outcome, "timeout");
    expect(outcome.durationMs).toBeGreaterThanOrEqual(SHORT_TIMEOUT_MS - 50);
  });

  it("times out when the endpoint never answers", async () => {
    receiver.respondWith({ hang: true });
    expectError(await sender({ timeoutMs: SHORT_TIMEOUT_MS }).send(request()), "timeout");
  });

  it("times out when the body trickles past the deadline, although every chunk arrives promptly", async () => {
    // Each chunk comes well within the timeout, so only a deadline over the whole exchange catches it.
    receiver.respondWith({ status: 200, slowBody: { chunk: "x", intervalMs: 100, count: 100 } });
    const outcome = await sender({ timeoutMs: SHORT_TIMEOUT_MS }).send(request());
    expectError(outcome, "timeout");
    expect(receiver.responses[0]!.finished).toBe(false);
  });

  it("reads an oversized body up to the cap, then drops the connection instead of reading on", async () => {
    const total = 512 * 1024 * 1024;
    receiver.respondWith({ status: 200, hugeBody: { totalBytes: total } });
    const outcome = expectResponse(await sender({ timeoutMs: 10_000 }).send(request()));
    expect(outcome).toMatchObject({ status: 200, truncated: true, responseBytesRead: CAP });
    expect(outcome.snippet).toBe("x".repeat(RESPONSE_HEAD_BYTES));
    await receiver.responses[0]!.closed;
    const record = receiver.responses[0]!;
    expect(record.finished).toBe(false);
    // What the server got out is the cap plus what socket buffers held; nowhere near the body.
    expect(record.bodyBytesWritten).toBeLessThan(total / 4);
  });

  it("reads a body of exactly the cap without calling it truncated", async () => {
    receiver.respondWith({ status: 200, body: "y".repeat(CAP) });
    expect(expectResponse(await sender().send(request()))).toMatchObject({ responseBytesRead: CAP, truncated: false });
  });

  it("reports a refused connection as a connection error", async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    expectError(await sender().send(request(`https://${RECEIVER_HOSTNAME}:${closedPort}/hook`)), "connection");
  });

  it("reports a name that does not resolve as a connection error", async () => {
    expectError(await sender().send(request(`https://nowhere.test:${receiver.port}/hook`)), "connection");
  });

  it("reports an untrusted certificate as a TLS error", async () => {
    expectError(await sender({ trust: false }).send(request()), "tls");
    expect(receiver.requests).toHaveLength(0);
  });

  it("refuses anything but an absolute https URL", async () => {
    const s = sender();
    expectError(await s.send(request("not a url")), "invalid-url");
    expectError(await s.send(request(`http://${RECEIVER_HOSTNAME}:${receiver.port}/hook`)), "invalid-url");
    expectError(await s.send(request(`https://u:p@${RECEIVER_HOSTNAME}:${receiver.port}/hook`)), "invalid-url");
    expect(receiver.requests).toHaveLength(0);
  });
});

describe("guarded sender address checks", () => {
  it("refuses at connect time a name that resolves to loopback, checking on every attempt", async () => {
    const { lookup, calls } = lookupCounting();
    const s = sender({ allowPrivateTargets: false, lookup });
    for (let attempt = 1; attempt <= 2; attempt++) {
      const outcome = await s.send(request());
      expectError(outcome, "blocked-address");
      expect(outcome.kind === "error" && outcome.message).toMatch(/127\.0\.0\.1/);
    }
    expect(calls).toEqual([RECEIVER_HOSTNAME, RECEIVER_HOSTNAME]);
    expect(receiver.requests).toHaveLength(0);
  });

  it("refuses a name that was public at configuration and points to loopback at delivery (DNS rebinding)", async () => {
    const atConfiguration: HostResolver = async () => ["93.184.215.14"];
    expect(await checkWebhookUrl(receiver.url(), { allowPrivateTargets: false, resolve: atConfiguration })).toBeNull();
    const outcome = await sender({ allowPrivateTargets: false }).send(request());
    expectError(outcome, "blocked-address");
    expect(receiver.requests).toHaveLength(0);
  });

  it("refuses a name when any one of its addresses is not public", async () => {
    const { lookup } = lookupCounting({ [RECEIVER_HOSTNAME]: ["93.184.215.14", "127.0.0.1"] });
    expectError(await sender({ allowPrivateTargets: false, lookup }).send(request()), "blocked-address");
    expect(receiver.requests).toHaveLength(0);
  });

  it("refuses IP literals of non-public addresses before connecting", async () => {
    const { lookup, calls } = lookupCounting();
    const s = sender({ allowPrivateTargets: false, lookup });
    for (const host of ["127.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "169.254.169.254", "10.0.0.1"]) {
      const outcome = await s.send(request(`https://${host}:${receiver.port}/hook`));
      expectError(outcome, "blocked-address");
    }
    expect(calls).toEqual([]);
    expect(receiver.requests).toHaveLength(0);
  });

  it("with allowPrivateTargets reaches the loopback receiver by name and by IP literal", async () => {
    const s = sender({ allowPrivateTargets: true });
    expectResponse(await s.send(request()));
    expectResponse(await s.send(request(`${receiver.origin}/hook`)));
    expect(receiver.requests).toHaveLength(2);
  });
});
