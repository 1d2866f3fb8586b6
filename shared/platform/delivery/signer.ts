import { createHmac, randomBytes } from "node:crypto";

const SECRET_PREFIX = "whsec_";

/**
 * A new webhook signing secret, shown to the caller once at creation (DESIGN §5). The `whsec_` +
 * base64 form is the Standard Webhooks one, so stock receiver libraries accept it as is.
 */
export function generateSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

/**
 * The HMAC key of a secret: the decoded bytes of a `whsec_` secret, or the UTF-8 bytes of an
 * override signing token (supplied with bearer credentials), which has no such prefix.
 */
export function signingKeyOf(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX)
    ? Buffer.from(secret.slice(SECRET_PREFIX.length), "base64")
    : Buffer.from(secret, "utf8");
}

export interface SignatureInput {
  eventId: string;
  eventType: string;
  /** Unix seconds; the same value goes into both schemes. */
  timestamp: number;
  /** The exact raw request body; the signature covers the whole envelope, never `data` alone. */
  body: string;
  /** Current key first; during a rotation also the previous one, so receivers on either key verify. */
  keys: Buffer[];
  /** Value of `X-Svc-Schema`; defaults to the event type, which carries its version suffix. */
  schema?: string;
  isTest?: boolean;
}

function hmac(key: Buffer, message: string): Buffer {
  return createHmac("sha256", key).update(message, "utf8").digest();
}

/**
 * The signature and event headers of one delivery attempt: the service's own `X-Svc-*` scheme and
 * the Standard Webhooks headers side by side (DESIGN §5), each with one `v1` entry per key.
 *
 * @example
 * const headers = signatureHeaders({
 *   eventId: event.id, eventType: event.type, timestamp: Math.floor(Date.now() / 1000),
 *   body, keys: [signingKeyOf(secret)],
 * });
 */
export function signatureHeaders(input: SignatureInput): Record<string, string> {
  if (input.keys.length === 0) throw new TypeError("signatureHeaders needs at least one key");
  if (!Number.isSafeInteger(input.timestamp) || input.timestamp < 0) {
    throw new TypeError("signatureHeaders needs a timestamp in whole unix seconds");
  }
  const ts = String(input.timestamp);
  const svcSignature = input.keys.map((key) => `v1=${hmac(key, `${ts}.${input.body}`).toString("hex")}`).join(" ");
  const standardSignature = input.keys
    .map((key) => `v1,${hmac(key, `${input.eventId}.${ts}.${input.body}`).toString("base64")}`)
    .join(" ");

  const headers: Record<string, string> = {
    "X-Svc-Event-Id": input.eventId,
    "X-Svc-Event-Type": input.eventType,
    "X-Svc-Schema": input.schema ?? input.eventType,
    "X-Svc-Timestamp": ts,
    "X-Svc-Signature": svcSignature,
    "webhook-id": input.eventId,
    "webhook-timestamp": ts,
    "webhook-signature": standardSignature,
  };
  if (input.isTest) headers["X-Svc-Test"] = "true";
  return headers;
}
