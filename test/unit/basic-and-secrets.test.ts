import { createHmac, randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseBasic } from "../../shared/platform/auth/basic";
import { generateSecret, hashSecret, hashesEqual, SecretHasher } from "../../shared/platform/auth/secrets";

const b64 = (s: string) => Buffer.from(s).toString("base64");

describe("Basic credentials", () => {
  it("parses id and secret, splitting at the first colon", () => {
    expect(parseBasic(`Basic ${b64("id:se:cret")}`)).toEqual({ clientId: "id", clientSecret: "se:cret" });
    expect(parseBasic(`basic ${b64("id:s")}`)).toEqual({ clientId: "id", clientSecret: "s" });
  });

  it("refuses absent, other-scheme and malformed headers", () => {
    for (const h of [undefined, "", "Bearer abc", "Basic", "Basic !!!", `Basic ${b64("nocolon")}`, `Basic ${b64(":secret")}`, `Basic ${b64("id:")}`]) {
      expect(parseBasic(h)).toBeUndefined();
    }
  });
});

describe("secrets", () => {
  it("carry 256 random bits and a display prefix", () => {
    const a = generateSecret();
    const b = generateSecret();
    expect(a.secret).not.toBe(b.secret);
    expect(Buffer.from(a.secret.slice(5), "base64url")).toHaveLength(32);
    expect(a.secret.startsWith(a.prefix)).toBe(true);
  });

  it("are compared by keyed hash", () => {
    const key = randomBytes(32);
    const { secret } = generateSecret();
    const stored = hashSecret(key, secret);
    expect(hashesEqual(stored, hashSecret(key, secret))).toBe(true);
    expect(hashesEqual(stored, hashSecret(key, secret + "x"))).toBe(false);
    expect(hashesEqual(stored, hashSecret(randomBytes(32), secret))).toBe(false);
  });
});

describe("the request-path secret hasher", () => {
  it("is HMAC-SHA256 for any key and secret, one secret after another through the same hasher", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), fc.array(fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: "binary", maxLength: 600 })), { minLength: 1, maxLength: 6 }), (key, secrets) => {
        const hasher = new SecretHasher(Buffer.from(key));
        for (const secret of secrets) {
          expect(hasher.digest(secret).toString("hex")).toBe(createHmac("sha256", Buffer.from(key)).update(secret, "utf8").digest("hex"));
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it("matches the stored hash of a generated secret, and not of another", () => {
    const key = randomBytes(32);
    const hasher = new SecretHasher(key);
    const { secret } = generateSecret();
    expect(hasher.digest(secret).toString("hex")).toBe(hashSecret(key, secret));
    expect(hasher.digest(secret + "x").toString("hex")).not.toBe(hashSecret(key, secret));
  });
});
