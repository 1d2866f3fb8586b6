import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** Marks our secrets so that secret scanners and people can recognise a leaked one. */
const SECRET_PREFIX = "soms_";
/** Characters of the random part kept for display, beside the marker. */
const DISPLAY_CHARS = 6;

export interface NewSecret {
  secret: string;
  prefix: string;
}

/** A client secret: 256 random bits, base64url. */
export function generateSecret(): NewSecret {
  const secret = SECRET_PREFIX + randomBytes(32).toString("base64url");
  return { secret, prefix: displayPrefix(secret) };
}

export function displayPrefix(secret: string): string {
  const start = secret.startsWith(SECRET_PREFIX) ? SECRET_PREFIX.length : 0;
  return secret.slice(0, start + DISPLAY_CHARS);
}

/**
 * Keyed hash of a secret. The secrets are random and long, so a fast keyed hash is as strong as a
 * slow password hash here, and it keeps authentication cheap on every request.
 */
export function hashSecret(key: Buffer, secret: string): string {
  return secretDigest(key, secret).toString("hex");
}

/** `hashSecret` as bytes, for comparing with stored hashes decoded once (`digestsEqual`). */
export function secretDigest(key: Buffer, secret: string): Buffer {
  return createHmac("sha256", key).update(secret, "utf8").digest();
}

export function hashesEqual(a: string, b: string): boolean {
  return digestsEqual(Buffer.from(a, "hex"), Buffer.from(b, "hex"));
}

/** Constant-time comparison of two digests. */
export function digestsEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
