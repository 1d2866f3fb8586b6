import { createHmac, hash, randomBytes, timingSafeEqual } from "node:crypto";

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

const SHA256_BLOCK = 64;
/** Longer secrets (none of ours: they are 48 characters) take the general path. */
const MAX_FAST_SECRET_BYTES = 1024;

/**
 * `secretDigest` under one key, for every request's authentication. The same HMAC-SHA256 (RFC 2104:
 * H((K ^ opad) || H((K ^ ipad) || m))), computed with the one-shot `crypto.hash` over buffers
 * prepared once, instead of a `createHmac` object per call: each of those is a native object with an
 * OpenSSL context and a digest lookup, which cost a few microseconds per request in a busy server.
 * `test/unit/basic-and-secrets.test.ts` holds it to `createHmac` for any key and secret.
 */
export class SecretHasher {
  /** K ^ ipad, then room for the secret. */
  private inner: Buffer;
  /** K ^ opad, then the inner digest. */
  private readonly outer: Buffer;

  constructor(private readonly key: Buffer) {
    const k = key.length > SHA256_BLOCK ? hash("sha256", key, "buffer") : key;
    this.inner = Buffer.alloc(SHA256_BLOCK + MAX_FAST_SECRET_BYTES, 0x36);
    this.outer = Buffer.alloc(SHA256_BLOCK + 32, 0x5c);
    for (let i = 0; i < k.length; i++) {
      this.inner[i] = 0x36 ^ k[i]!;
      this.outer[i] = 0x5c ^ k[i]!;
    }
  }

  digest(secret: string): Buffer {
    // A secret longer than the buffer's room, measured after writing, is hashed the general way.
    if (secret.length > MAX_FAST_SECRET_BYTES / 3) {
      const bytes = Buffer.byteLength(secret, "utf8");
      if (bytes > MAX_FAST_SECRET_BYTES) return secretDigest(this.key, secret);
    }
    const written = this.inner.write(secret, SHA256_BLOCK, "utf8");
    // Synchronous from write to digest: no other call can use the buffers in between.
    this.outer.write(hash("sha256", this.inner.subarray(0, SHA256_BLOCK + written), "hex"), SHA256_BLOCK, "hex");
    return Buffer.from(hash("sha256", this.outer, "hex"), "hex");
  }
}

export function hashesEqual(a: string, b: string): boolean {
  return digestsEqual(Buffer.from(a, "hex"), Buffer.from(b, "hex"));
}

/** Constant-time comparison of two digests. */
export function digestsEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
