import { createHmac, timingSafeEqual } from "node:crypto";
import type { z } from "zod";
import { ApiError, INVALID_PAGE_TOKEN_MESSAGE } from "../errors/api-error";

/** What a token is valid for; covered by its signature, never copied into it. */
export interface TokenBinding {
  /** The service account the token was issued to. */
  identity: string;
  /** The listing it pages through, with its filters (and, for a stream, which stream). */
  listing: string;
}

/** Bytes of HMAC-SHA256 kept in a token: 128 bits make forging one as hard as guessing a key. */
const MAC_BYTES = 16;

const START_AGAIN =
  "This token was not issued for this listing and caller, or it is no longer valid (the service's token key changed): start again from the first page, without a token.";

/**
 * Opaque page tokens: base64url(JSON cursor) + "." + base64url(truncated HMAC-SHA256 over the binding
 * and the cursor). The binding (who, which listing) is signed, not carried, which keeps tokens short;
 * a token that was modified, built by hand or issued for something else fails with the contract's
 * fixed message, and the cursor is checked against its schema before anyone reads it.
 *
 * @example
 * const token = pageTokens.issue({ identity: principal.serviceAccountId, listing: "users:Admin" }, { after: "u-9" });
 * const cursor = pageTokens.read(token, binding, z.object({ after: z.string() }), "continuationToken");
 */
export class PageTokens {
  constructor(private readonly key: Buffer) {}

  issue(binding: TokenBinding, cursor: unknown): string {
    return this.issueBytes(binding, Buffer.from(JSON.stringify(cursor)));
  }

  /** A token over bytes of the caller's own encoding (a compressed cursor), encoded once. */
  issueBytes(binding: TokenBinding, body: Buffer): string {
    return `${body.toString("base64url")}.${this.sign(binding, body).toString("base64url")}`;
  }

  /** The bytes of a token `issueBytes` made, or 400 VALIDATION_ERROR with the contract's fixed text at `target`. */
  readBytes(token: string, binding: TokenBinding, target: string): Buffer {
    const [bodyPart, macPart, extra] = token.split(".");
    if (!bodyPart || !macPart || extra !== undefined) throw invalid(target);
    const body = canonicalBase64Url(bodyPart);
    const mac = canonicalBase64Url(macPart);
    if (!body || !mac) throw invalid(target);
    const expected = this.sign(binding, body);
    // Well formed but not ours for this binding: say how to recover, beside the fixed text.
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) throw invalid(target, START_AGAIN);
    return body;
  }

  /** The cursor, or 400 VALIDATION_ERROR with the contract's fixed text at `target`. */
  read<S extends z.ZodType>(token: string, binding: TokenBinding, schema: S, target: string): z.output<S> {
    const body = this.readBytes(token, binding, target);
    let cursor: unknown;
    try {
      cursor = JSON.parse(body.toString("utf8"));
    } catch {
      throw invalid(target);
    }
    const parsed = schema.safeParse(cursor);
    if (!parsed.success) throw invalid(target);
    return parsed.data;
  }

  private sign(binding: TokenBinding, body: Buffer): Buffer {
    return createHmac("sha256", this.key)
      .update(`${binding.identity}\n${binding.listing}\n`)
      .update(body)
      .digest()
      .subarray(0, MAC_BYTES);
  }
}

/**
 * The bytes of a base64url text, only in its one canonical spelling: the last character carries bits
 * that decoding drops, and a token must not be accepted in a second spelling.
 */
function canonicalBase64Url(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  const bytes = Buffer.from(text, "base64url");
  return bytes.toString("base64url") === text ? bytes : undefined;
}

/** The contract's fixed text (its `detail`, stable for clients), with a hint beside it where one helps. */
function invalid(target: string, hint?: string): ApiError {
  return new ApiError("VALIDATION_ERROR", INVALID_PAGE_TOKEN_MESSAGE, {
    target,
    errors: { [target]: hint ? [INVALID_PAGE_TOKEN_MESSAGE, hint] : [INVALID_PAGE_TOKEN_MESSAGE] },
  });
}
