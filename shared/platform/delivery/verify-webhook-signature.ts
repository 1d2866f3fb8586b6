// Receiver-side verification of the service's webhook signatures. This file depends on node:crypto
// only, so a receiver can copy it into its own code base unchanged.
import { createHmac, timingSafeEqual } from "node:crypto";

export type WebhookHeaders = Record<string, string | string[] | undefined> | Headers;

export interface VerifyWebhookSignatureInput {
  /** The request headers as received (any letter case), or a fetch `Headers`. */
  headers: WebhookHeaders;
  /** The exact raw request body, before any JSON parsing. */
  body: string;
  /** The signing secret shown at webhook creation (`whsec_…`), or the override signing token. */
  secret: string;
  /** How far the signed timestamp may be from `now`, in either direction. Default 300. */
  toleranceSeconds?: number;
  now?: Date;
}

export type VerifyWebhookSignatureResult = { ok: true; eventId: string; timestamp: number } | { ok: false; reason: string };

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== name) continue;
    const value = record[key];
    return Array.isArray(value) ? value.join(" ") : value;
  }
  return undefined;
}

function keyOf(secret: string): Buffer {
  return secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret, "utf8");
}

// Length is checked first because timingSafeEqual throws on a mismatch; the length of an HMAC-SHA256
// is public anyway.
function matchesAny(expected: Buffer, candidates: Buffer[]): boolean {
  let matched = false;
  for (const candidate of candidates) {
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  return matched;
}

interface Scheme {
  eventId: string | undefined;
  timestamp: string;
  signed: (key: Buffer) => Buffer;
  signatures: Buffer[];
}

function standardWebhooksScheme(headers: WebhookHeaders, body: string): Scheme | undefined {
  const signature = header(headers, "webhook-signature");
  const timestamp = header(headers, "webhook-timestamp");
  const id = header(headers, "webhook-id");
  if (signature === undefined || timestamp === undefined || id === undefined) return undefined;
  return {
    eventId: id,
    timestamp,
    signed: (key) => createHmac("sha256", key).update(`${id}.${timestamp}.${body}`, "utf8").digest(),
    signatures: signature
      .split(" ")
      .filter((entry) => entry.startsWith("v1,"))
      .map((entry) => Buffer.from(entry.slice(3), "base64")),
  };
}

function svcScheme(headers: WebhookHeaders, body: string): Scheme | undefined {
  const signature = header(headers, "x-svc-signature");
  const timestamp = header(headers, "x-svc-timestamp");
  if (signature === undefined || timestamp === undefined) return undefined;
  return {
    // Not covered by this scheme's signature; the signed body's envelope `id` is the same value.
    eventId: header(headers, "x-svc-event-id"),
    timestamp,
    signed: (key) => createHmac("sha256", key).update(`${timestamp}.${body}`, "utf8").digest(),
    signatures: signature
      .split(" ")
      .filter((entry) => /^v1=[0-9a-fA-F]{64}$/.test(entry))
      .map((entry) => Buffer.from(entry.slice(3), "hex")),
  };
}

/**
 * Verifies a webhook delivery as a receiver would. Accepts either signature scheme the service
 * sends: the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) or
 * `X-Svc-Timestamp` + `X-Svc-Signature`. Any one matching signature is enough, so deliveries signed
 * with both the new and the old key during a rotation pass. Deliveries are at-least-once: after
 * verifying, deduplicate on the returned `eventId`.
 *
 * @example
 * // Express, with the body kept raw: app.post("/hook", express.text({ type: "application/json" }), handler)
 * const result = verifyWebhookSignature({ headers: req.headers, body: req.body, secret: process.env.WEBHOOK_SECRET! });
 * if (!result.ok) return res.status(401).send(result.reason);
 * if (await seen(result.eventId)) return res.sendStatus(200);
 * const event = JSON.parse(req.body);
 */
export function verifyWebhookSignature(input: VerifyWebhookSignatureInput): VerifyWebhookSignatureResult {
  const { headers, body, secret, toleranceSeconds = 300, now = new Date() } = input;
  const schemes = [standardWebhooksScheme(headers, body), svcScheme(headers, body)].filter(
    (scheme): scheme is Scheme => scheme !== undefined,
  );
  if (schemes.length === 0) return { ok: false, reason: "missing signature headers" };
  const key = keyOf(secret);
  if (key.length === 0) return { ok: false, reason: "empty secret" };

  let reason = "no matching signature";
  for (const scheme of schemes) {
    if (!/^\d{1,15}$/.test(scheme.timestamp)) {
      reason = "invalid timestamp";
      continue;
    }
    const timestamp = Number(scheme.timestamp);
    const nowSeconds = Math.floor(now.getTime() / 1000);
    if (nowSeconds - timestamp > toleranceSeconds) {
      reason = "timestamp too old";
      continue;
    }
    if (timestamp - nowSeconds > toleranceSeconds) {
      reason = "timestamp too far in the future";
      continue;
    }
    if (!matchesAny(scheme.signed(key), scheme.signatures)) {
      reason = "no matching signature";
      continue;
    }
    if (!scheme.eventId) return { ok: false, reason: "missing event id header" };
    return { ok: true, eventId: scheme.eventId, timestamp };
  }
  return { ok: false, reason };
}
