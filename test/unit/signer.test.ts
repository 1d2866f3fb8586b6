import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateSigningSecret, signatureHeaders, signingKeyOf } from "../../shared/platform/delivery/signer";
import { verifyWebhookSignature } from "../../shared/platform/delivery/verify-webhook-signature";

// The example of the Standard Webhooks specification (and svix): its published signature pins our
// reading of the scheme. The X-Svc values were computed independently with `openssl dgst -hmac`.
const vector = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  eventId: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  standardSignature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
  svcSignature: "v1=e96203c6de850e7dc1fde7489ef6140b402d3a5a64fe250cd2eef9830fac1cef",
  overrideToken: "my-override-token",
  overrideSvcSignature: "v1=bac583eedfdb76d542ff9cd5306ae98b3f0001b845c4dee8243f30db1f80c492",
};

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function delivery(secret: string, overrides: { timestamp?: number; keys?: Buffer[] } = {}) {
  const eventId = "0b8c7d44-3a53-4f5e-9b0a-6c1f1f0de001";
  const body = JSON.stringify({
    id: eventId,
    type: "incident.created.v1",
    occurredAt: "2026-09-01T10:00:00.000Z",
    data: { incidentId: "INC-1", title: "Zürich \u2014 \"quoted\"" },
  });
  const headers = signatureHeaders({
    eventId,
    eventType: "incident.created.v1",
    timestamp: overrides.timestamp ?? nowSeconds(),
    body,
    keys: overrides.keys ?? [signingKeyOf(secret)],
  });
  return { eventId, body, headers };
}

function onlyScheme(headers: Record<string, string>, scheme: "svc" | "standard"): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => (scheme === "svc" ? !name.startsWith("webhook-") : !/^x-svc-(timestamp|signature)$/i.test(name))),
  );
}

describe("signing secrets", () => {
  it("are whsec_ plus base64 of 32 random bytes, and the key is those bytes", () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(signingKeyOf(secret)).toEqual(Buffer.from(secret.slice(6), "base64"));
    expect(signingKeyOf(secret)).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(secret);
  });

  it("use the UTF-8 bytes of an override token without the prefix", () => {
    expect(signingKeyOf("tøken")).toEqual(Buffer.from("tøken", "utf8"));
  });
});

describe("signatureHeaders", () => {
  it("matches the known-answer vectors of both schemes", () => {
    const headers = signatureHeaders({
      eventId: vector.eventId,
      eventType: "incident.created.v1",
      timestamp: vector.timestamp,
      body: vector.body,
      keys: [signingKeyOf(vector.secret)],
    });
    expect(headers).toEqual({
      "X-Svc-Event-Id": vector.eventId,
      "X-Svc-Event-Type": "incident.created.v1",
      "X-Svc-Schema": "incident.created.v1",
      "X-Svc-Timestamp": "1614265330",
      "X-Svc-Signature": vector.svcSignature,
      "webhook-id": vector.eventId,
      "webhook-timestamp": "1614265330",
      "webhook-signature": vector.standardSignature,
    });
  });

  it("signs with the UTF-8 bytes of an override token", () => {
    const headers = signatureHeaders({
      eventId: vector.eventId,
      eventType: "incident.created.v1",
      timestamp: vector.timestamp,
      body: vector.body,
      keys: [signingKeyOf(vector.overrideToken)],
    });
    expect(headers["X-Svc-Signature"]).toBe(vector.overrideSvcSignature);
  });

  it("lists one v1 entry per key, current key first, in both schemes", () => {
    const previous = generateSigningSecret();
    const current = vector.secret;
    const headers = signatureHeaders({
      eventId: vector.eventId,
      eventType: "incident.created.v1",
      timestamp: vector.timestamp,
      body: vector.body,
      keys: [signingKeyOf(current), signingKeyOf(previous)],
    });
    const svc = headers["X-Svc-Signature"]!.split(" ");
    const standard = headers["webhook-signature"]!.split(" ");
    expect(svc).toHaveLength(2);
    expect(standard).toHaveLength(2);
    expect(svc[0]).toBe(vector.svcSignature);
    expect(standard[0]).toBe(vector.standardSignature);
    expect(svc[1]).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(standard[1]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it("marks test events and announces a given schema id", () => {
    const base = { eventId: "e1", eventType: "webhook.test.v1", timestamp: 1, body: "{}", keys: [Buffer.from("k")] };
    expect(signatureHeaders({ ...base, isTest: true, schema: "https://schemas.example/webhook.test.v1" })).toMatchObject({
      "X-Svc-Test": "true",
      "X-Svc-Schema": "https://schemas.example/webhook.test.v1",
    });
    expect(signatureHeaders(base)).not.toHaveProperty("X-Svc-Test");
    expect(signatureHeaders({ ...base, isTest: false })).not.toHaveProperty("X-Svc-Test");
  });

  it("refuses to sign without a key or with a fractional timestamp", () => {
    const base = { eventId: "e1", eventType: "webhook.test.v1", timestamp: 1, body: "{}", keys: [Buffer.from("k")] };
    expect(() => signatureHeaders({ ...base, keys: [] })).toThrow(TypeError);
    expect(() => signatureHeaders({ ...base, timestamp: 1.5 })).toThrow(TypeError);
  });
});

describe("a delivery verified as a receiver would", () => {
  it("passes the standardwebhooks library", () => {
    const secret = generateSigningSecret();
    const { body, headers } = delivery(secret);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it("passes the standardwebhooks library with an override token given in raw form", () => {
    const token = "bearer-side-signing-token-0123456789";
    const { body, headers } = delivery(token);
    expect(new Webhook(token, { format: "raw" }).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it("passes the standardwebhooks library during a rotation with either key", () => {
    const current = generateSigningSecret();
    const previous = generateSigningSecret();
    const { body, headers } = delivery(current, { keys: [signingKeyOf(current), signingKeyOf(previous)] });
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(generateSigningSecret()).verify(body, headers)).toThrow();
  });

  it("is rejected by the standardwebhooks library when the body is tampered with or the timestamp is old", () => {
    const secret = generateSigningSecret();
    const { body, headers } = delivery(secret);
    expect(() => new Webhook(secret).verify(body.replace("INC-1", "INC-2"), headers)).toThrow(/signature/i);
    const old = delivery(secret, { timestamp: nowSeconds() - 600 });
    expect(() => new Webhook(secret).verify(old.body, old.headers)).toThrow(/too old/i);
  });

  it("passes verifyWebhookSignature with the X-Svc headers alone and with the Standard Webhooks headers alone", () => {
    const secret = generateSigningSecret();
    const { eventId, body, headers } = delivery(secret);
    const timestamp = Number(headers["X-Svc-Timestamp"]);
    expect(verifyWebhookSignature({ headers: onlyScheme(headers, "svc"), body, secret })).toEqual({ ok: true, eventId, timestamp });
    expect(verifyWebhookSignature({ headers: onlyScheme(headers, "standard"), body, secret })).toEqual({ ok: true, eventId, timestamp });
    expect(verifyWebhookSignature({ headers: new Headers(onlyScheme(headers, "svc")), body, secret })).toMatchObject({ ok: true });
  });

  it("accepts Node-style lower-case and array header values", () => {
    const secret = generateSigningSecret();
    const { body, headers } = delivery(secret);
    const nodeStyle: Record<string, string | string[]> = Object.fromEntries(
      Object.entries(onlyScheme(headers, "svc")).map(([name, value]) => [name.toLowerCase(), value]),
    );
    expect(verifyWebhookSignature({ headers: nodeStyle, body, secret }).ok).toBe(true);
  });

  it("rejects with verifyWebhookSignature a tampered body, a wrong secret, and timestamps outside the tolerance", () => {
    const secret = generateSigningSecret();
    const { body, headers } = delivery(secret);
    for (const scheme of ["svc", "standard"] as const) {
      const only = onlyScheme(headers, scheme);
      expect(verifyWebhookSignature({ headers: only, body: body + " ", secret })).toEqual({ ok: false, reason: "no matching signature" });
      expect(verifyWebhookSignature({ headers: only, body, secret: generateSigningSecret() }).ok).toBe(false);
      const later = new Date(Date.now() + 301_000);
      expect(verifyWebhookSignature({ headers: only, body, secret, now: later })).toEqual({ ok: false, reason: "timestamp too old" });
      const earlier = new Date(Date.now() - 301_000);
      expect(verifyWebhookSignature({ headers: only, body, secret, now: earlier })).toEqual({
        ok: false,
        reason: "timestamp too far in the future",
      });
      expect(verifyWebhookSignature({ headers: only, body, secret, now: later, toleranceSeconds: 600 }).ok).toBe(true);
    }
  });

  it("rejects with verifyWebhookSignature a timestamp header that was changed after signing", () => {
    const secret = generateSigningSecret();
    const { body, headers } = delivery(secret);
    const shifted = String(Number(headers["X-Svc-Timestamp"]) + 1);
    const svc = { ...onlyScheme(headers, "svc"), "X-Svc-Timestamp": shifted };
    expect(verifyWebhookSignature({ headers: svc, body, secret })).toEqual({ ok: false, reason: "no matching signature" });
    const standard = { ...onlyScheme(headers, "standard"), "webhook-timestamp": shifted };
    expect(verifyWebhookSignature({ headers: standard, body, secret })).toEqual({ ok: false, reason: "no matching signature" });
  });

  it("accepts with verifyWebhookSignature any of several signatures, so both keys of a rotation pass", () => {
    const current = generateSigningSecret();
    const previous = generateSigningSecret();
    const { body, headers } = delivery(current, { keys: [signingKeyOf(current), signingKeyOf(previous)] });
    for (const scheme of ["svc", "standard"] as const) {
      expect(verifyWebhookSignature({ headers: onlyScheme(headers, scheme), body, secret: current }).ok).toBe(true);
      expect(verifyWebhookSignature({ headers: onlyScheme(headers, scheme), body, secret: previous }).ok).toBe(true);
    }
  });

  it("verifies an override token with verifyWebhookSignature", () => {
    const token = "bearer-side-signing-token-0123456789";
    const { body, headers } = delivery(token);
    expect(verifyWebhookSignature({ headers, body, secret: token }).ok).toBe(true);
  });

  it("rejects with verifyWebhookSignature a delivery without signature headers or with malformed ones", () => {
    const secret = generateSigningSecret();
    const { body, headers } = delivery(secret);
    expect(verifyWebhookSignature({ headers: {}, body, secret })).toEqual({ ok: false, reason: "missing signature headers" });
    const garbled = { ...onlyScheme(headers, "svc"), "X-Svc-Signature": "v1=zz", "X-Svc-Timestamp": headers["X-Svc-Timestamp"]! };
    expect(verifyWebhookSignature({ headers: garbled, body, secret }).ok).toBe(false);
    const badTs = { ...onlyScheme(headers, "svc"), "X-Svc-Timestamp": "12abc" };
    expect(verifyWebhookSignature({ headers: badTs, body, secret })).toEqual({ ok: false, reason: "invalid timestamp" });
  });
});
