import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createDeliveryHandler } from "../../shared/platform/delivery/delivery-worker";
import { firstAttempt } from "../../shared/platform/delivery/delivery-message";
import { RESPONSE_HEAD_BYTES, type GuardedSender, type SendOutcome } from "../../shared/platform/delivery/guarded-sender";
import { MASKED, RESPONSE_EXCERPT_BYTES, responseExcerpt } from "../../shared/platform/delivery/response-excerpt";
import { SecretBox } from "../../shared/platform/delivery/secret-box";
import { generateSigningSecret } from "../../shared/platform/delivery/signer";
import { createMemoryStores } from "../../shared/platform/store/memory/memory-stores";
import type { Logger } from "../../shared/platform/logger";
import type { DeliveryLogRecord } from "../../shared/model/webhooks/delivery-log";
import type { WebhookRecord } from "../../shared/model/webhooks/webhook";
import { testEnvelope } from "../../shared/domain/webhooks/test-event";

/*
 * What the delivery log keeps of a receiver's answer: for a test delivery, the start of its body
 * within 2 KiB, made safe to show and with any credential the receiver echoed masked; for an event
 * delivery, nothing (docs/contract.md §6.6.6: the body is read and dropped).
 */

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
// The memory store expires entries by the clock, so the attempt is made now.
const NOW = new Date();
const TOKEN = "receiver-bearer-token-5b1e0c";

/** Runs one attempt of `event` (a test event, or an incident event) against a receiver answering `body`; the entry it logs. */
async function attempt(isTest: boolean, answer: string | ((headers: Record<string, string>) => string), options: { bodyBytes?: number; cut?: boolean; status?: number } = {}): Promise<DeliveryLogRecord> {
  const stores = createMemoryStores();
  const secretBox = new SecretBox(randomBytes(32));
  const webhook: WebhookRecord = {
    id: "6a0f2f4e-2f0b-4f55-8d2a-1c9e7b3d5a01",
    targetAccountId: "acct-1",
    targetAccountName: "Contoso",
    serviceProviderId: "acct-1",
    workspaceId: null,
    name: "SOAR intake",
    url: "https://hooks.example.com/in",
    status: "Active",
    eventTypes: ["incident.created.v1"],
    monitoredAccountIds: [],
    authenticationType: "Bearer",
    sealedToken: secretBox.seal(TOKEN),
    signingKeys: [{ sealed: secretBox.seal(generateSigningSecret()), createdAt: NOW.toISOString(), retiresAt: null }],
    disableReason: null,
    disabledAt: null,
    finalFailures: [],
    createdAt: NOW.toISOString(),
    lastModifiedAt: NOW.toISOString(),
  };
  await stores.webhooks.create(webhook);
  const sent: { headers: Record<string, string> }[] = [];
  const sender: GuardedSender = {
    async send(request) {
      sent.push(request);
      const body = typeof answer === "string" ? answer : answer(request.headers);
      return {
        kind: "response",
        status: options.status ?? 200,
        headers: {},
        durationMs: 42,
        snippet: Buffer.from(body).subarray(0, RESPONSE_HEAD_BYTES).toString("utf8"),
        responseBytesRead: options.bodyBytes ?? Buffer.byteLength(body),
        truncated: options.cut ?? false,
      } satisfies SendOutcome;
    },
    close: async () => {},
  };
  const envelope = isTest
    ? testEnvelope(webhook.targetAccountId, NOW)
    : { id: "0f5c1d7e-3b2a-4c8d-9e6f-7a1b2c3d4e5f", type: "incident.created.v1", occurredAt: NOW.toISOString(), data: {} };
  const incident = isTest ? null : { workspaceId: "ws-1", source: "SourceA" as const, incidentId: "inc-1" };
  const handler = createDeliveryHandler({
    webhooks: stores.webhooks,
    logs: stores.deliveryLogs,
    deliveries: { queueName: "deliveries", send: async () => {}, schedule: async () => {} },
    sender,
    secretBox,
    now: () => NOW,
    logger: silent,
    backoffMs: 30_000,
    windowMs: 300_000,
    logTtlSeconds: 86_400,
  });
  const message = firstAttempt(webhook.id, { envelope, incident });
  await handler({ messageId: "m1", body: message, deliveryCount: 1, enqueuedAt: NOW });
  const hour = 3_600_000;
  const range = { from: new Date(NOW.getTime() - hour).toISOString(), to: new Date(NOW.getTime() + hour).toISOString(), notBefore: new Date(0).toISOString() };
  const [entry] = (await stores.deliveryLogs.list(webhook.id, range, 10)).items;
  expect(sent).toHaveLength(1);
  return entry!;
}

describe("a test delivery's log entry", () => {
  it("keeps the receiver's answer when it is short, whole", async () => {
    const entry = await attempt(true, '{"received":true}');
    expect(entry).toMatchObject({ isTest: true, httpStatusCode: 200, responseExcerpt: { text: '{"received":true}', truncated: false } });
  });

  it("keeps at most the first 2 KiB, and says the body went on", async () => {
    const entry = await attempt(true, "a".repeat(RESPONSE_EXCERPT_BYTES) + "b".repeat(5000));
    expect(entry.responseExcerpt).toEqual({ text: "a".repeat(RESPONSE_EXCERPT_BYTES), truncated: true });
    // A body longer than what the sender read (the 1 MB cap) is cut too.
    const capped = await attempt(true, "c".repeat(100), { bodyBytes: 1024 * 1024, cut: true });
    expect(capped.responseExcerpt).toEqual({ text: "c".repeat(100), truncated: true });
  });

  it("bounds by bytes and never splits a character", async () => {
    // 3 bytes each: 682 fit in 2048 bytes, the 683rd would not.
    const entry = await attempt(true, "€".repeat(1000), { status: 500 });
    expect(entry.responseExcerpt!.text).toBe("€".repeat(682));
    expect(Buffer.byteLength(entry.responseExcerpt!.text)).toBeLessThanOrEqual(RESPONSE_EXCERPT_BYTES);
    expect(entry.responseExcerpt!.truncated).toBe(true);
  });

  it("writes control characters and bidirectional overrides as escapes; keeps tabs and line breaks", async () => {
    const entry = await attempt(true, "ok\u001b[31m red\u0000\u202eevil\tline\r\nnext\u0085");
    expect(entry.responseExcerpt!.text).toBe("ok\\u001b[31m red\\u0000\\u202eevil\tline\r\nnext\\u0085");
  });

  it("keeps the bound when escapes lengthen the text", async () => {
    const entry = await attempt(true, "\u0001".repeat(3000));
    expect(Buffer.byteLength(entry.responseExcerpt!.text)).toBeLessThanOrEqual(RESPONSE_EXCERPT_BYTES);
    expect(entry.responseExcerpt!.text).toBe("\\u0001".repeat(Math.floor(RESPONSE_EXCERPT_BYTES / 6)) + "\\u0".slice(0, RESPONSE_EXCERPT_BYTES % 6));
    expect(entry.responseExcerpt!.truncated).toBe(true);
  });

  it("masks the endpoint credential and the signatures a receiver echoes back, also across the 2 KiB bound", async () => {
    const echo = (headers: string) => `{"headers":${headers}}`;
    let signature = "";
    const entry = await attempt(true, (headers) => {
      signature = headers["X-Svc-Signature"]!;
      return echo(JSON.stringify({ authorization: headers.Authorization, token: TOKEN, "x-svc-signature": signature, "webhook-signature": headers["webhook-signature"] }));
    });
    expect(entry.responseExcerpt!.text).toBe(echo(`{"authorization":"${MASKED}","token":"${MASKED}","x-svc-signature":"${MASKED}","webhook-signature":"${MASKED}"}`));
    expect(JSON.stringify(entry)).not.toContain(TOKEN);
    expect(JSON.stringify(entry)).not.toContain(signature.slice(3));

    // A token straddling the bound: what shows of it is masked, not its first half.
    const padding = "p".repeat(RESPONSE_EXCERPT_BYTES - 10);
    const straddling = await attempt(true, `${padding}${TOKEN}${"q".repeat(3000)}`);
    expect(straddling.responseExcerpt!.text).toBe(`${padding}${MASKED}`);
    expect(straddling.responseExcerpt!.text).not.toContain(TOKEN.slice(0, 10));
  });
});

describe("an event delivery's log entry", () => {
  it("keeps no response body, whatever the receiver answered", async () => {
    const entry = await attempt(false, `{"echo":"Bearer ${TOKEN}","detail":"accepted"}`);
    expect(entry).toMatchObject({ isTest: false, httpStatusCode: 200, responseExcerpt: null });
    expect(JSON.stringify(entry)).not.toContain("accepted");
  });
});

describe("responseExcerpt", () => {
  it("masks overlapping secrets as one, and secrets beyond the excerpt do not matter", () => {
    expect(responseExcerpt({ head: "xx Bearer abc123 yy", bodyBytes: 19, cut: false }, ["Bearer abc123", "abc123"])).toEqual({ text: `xx ${MASKED} yy`, truncated: false });
    const far = "z".repeat(RESPONSE_EXCERPT_BYTES) + "secret-value";
    expect(responseExcerpt({ head: far, bodyBytes: far.length, cut: false }, ["secret-value"])).toEqual({ text: "z".repeat(RESPONSE_EXCERPT_BYTES), truncated: true });
  });

  it("an empty body is an empty excerpt", () => {
    expect(responseExcerpt({ head: "", bodyBytes: 0, cut: false }, [])).toEqual({ text: "", truncated: false });
  });
});
