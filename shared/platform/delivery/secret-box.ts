import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const MAX_OPENED = 1000;

/**
 * Seals the webhook secrets the service must use again (the signing key and the endpoint's token)
 * with AES-256-GCM under a server key from configuration. Unlike client secrets, these cannot be
 * hashed: signing and authenticating to the receiver need the value itself. Format:
 * `v1.<base64url(iv)>.<base64url(tag)>.<base64url(ciphertext)>`.
 */
export class SecretBox {
  private readonly key: Buffer;
  /**
   * Opened values by sealed form: every delivery needs the signing key and the endpoint token, and
   * authenticated decryption per delivery was a measurable share of its cost. Bounded; the values
   * are in this process's memory while in use anyway.
   */
  private readonly opened = new Map<string, string>();

  constructor(key: Buffer) {
    if (key.length < 32) throw new Error("The webhook secrets key must be at least 32 bytes.");
    this.key = key.subarray(0, 32);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return ["v1", iv, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
  }

  /** Throws when the value was not sealed under this key or was altered. */
  open(sealed: string): string {
    const cached = this.opened.get(sealed);
    if (cached !== undefined) return cached;
    const value = this.decrypt(sealed);
    if (this.opened.size >= MAX_OPENED) this.opened.clear();
    this.opened.set(sealed, value);
    return value;
  }

  private decrypt(sealed: string): string {
    const [version, iv, tag, ciphertext] = sealed.split(".");
    if (version !== "v1" || !iv || !tag || ciphertext === undefined) throw new Error("Not a sealed secret.");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
  }
}
