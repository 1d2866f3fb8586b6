import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import type { z } from "zod";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Values the service hands a browser and reads back (the session, the sign-in in progress): sealed
 * with AES-256-GCM, so the browser can neither read them (the sign-in holds the PKCE verifier) nor
 * change them. The purpose is authenticated data: a value sealed for one purpose does not open as
 * another. Each carries its own expiry, checked on opening.
 */
export class SealedValues {
  private readonly key: Buffer;

  constructor(secret: Buffer) {
    // Derived, not used as is: the same configured secret could serve other purposes later.
    this.key = Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), "portal sealed values v1", 32));
  }

  seal(purpose: string, payload: object, expiresAt: Date): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(purpose));
    const plain = Buffer.from(JSON.stringify({ ...payload, exp: expiresAt.getTime() }));
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return sealed.toString("base64url");
  }

  /** The payload, or undefined when the value is not one this service sealed for `purpose`, is malformed or has expired. */
  open<S extends z.ZodType>(purpose: string, value: string | undefined, schema: S, now: Date): z.output<S> | undefined {
    if (!value || !/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
    const bytes = Buffer.from(value, "base64url");
    if (bytes.length < IV_BYTES + TAG_BYTES + 2) return undefined;
    let plain: Buffer;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(purpose));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
    } catch {
      return undefined;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(plain.toString("utf8"));
    } catch {
      return undefined;
    }
    const exp = (parsed as { exp?: unknown }).exp;
    if (typeof exp !== "number" || exp <= now.getTime()) return undefined;
    const result = schema.safeParse(parsed);
    return result.success ? result.data : undefined;
  }
}
