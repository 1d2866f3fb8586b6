import { createHmac, timingSafeEqual } from "node:crypto";
import { invalidPageToken, STALE_PAGE_TOKEN_HINT } from "../errors/api-error";

interface TokenPayload {
  /** Principal the token was issued to. */
  p: string;
  /** What the token pages through (route and filters); a token is only valid for the same listing. */
  b: string;
  /** Adapter cursor. */
  c: unknown;
}

/**
 * Opaque page tokens: base64url(JSON) + "." + base64url(HMAC-SHA256). Bound to the calling principal
 * and to the listing they came from, so a token that was modified, built by hand or issued to someone
 * else is rejected with the contract's fixed message.
 */
export class PageTokens {
  constructor(private readonly key: Buffer) {}

  issue(principalId: string, binding: string, cursor: unknown): string {
    const body = Buffer.from(JSON.stringify({ p: principalId, b: binding, c: cursor } satisfies TokenPayload));
    return `${body.toString("base64url")}.${this.sign(body).toString("base64url")}`;
  }

  /** Returns the cursor, or throws 400 VALIDATION_ERROR with the fixed message. */
  read(token: string, principalId: string, binding: string, target = "continuationToken"): unknown {
    const invalid = () => invalidPageToken(target);
    const [bodyPart, sigPart, extra] = token.split(".");
    if (!bodyPart || !sigPart || extra !== undefined) throw invalid();
    const body = Buffer.from(bodyPart, "base64url");
    const signature = Buffer.from(sigPart, "base64url");
    const expected = this.sign(body);
    if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) {
      throw wellFormed(body) ? invalidPageToken(target, STALE_PAGE_TOKEN_HINT) : invalid();
    }
    let payload: TokenPayload;
    try {
      payload = JSON.parse(body.toString("utf8")) as TokenPayload;
    } catch {
      throw invalid();
    }
    if (payload.p !== principalId || payload.b !== binding) throw invalid();
    return payload.c;
  }

  private sign(body: Buffer): Buffer {
    return createHmac("sha256", this.key).update(body).digest();
  }
}

/** The payload has the shape this class issues: a token from an earlier key, or a careful forgery. */
function wellFormed(body: Buffer): boolean {
  try {
    const payload = JSON.parse(body.toString("utf8")) as Partial<TokenPayload> | null;
    return typeof payload === "object" && payload !== null && typeof payload.p === "string" && typeof payload.b === "string" && "c" in payload;
  } catch {
    return false;
  }
}
