import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { INVALID_PAGE_TOKEN_MESSAGE, isApiError, STALE_PAGE_TOKEN_HINT } from "../../shared/errors/api-error";
import { PageTokens } from "../../shared/http/page-token";

const tokens = new PageTokens(randomBytes(32));

function rejection(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    if (isApiError(error)) return { code: error.code, detail: error.message };
    throw error;
  }
  throw new Error("expected a rejection");
}

function messages(fn: () => unknown): { detail: string; errors: Record<string, string[]> } {
  try {
    fn();
  } catch (error) {
    if (isApiError(error)) return { detail: error.message, errors: { ...error.errors } };
    throw error;
  }
  throw new Error("expected a rejection");
}

describe("page tokens", () => {
  it("round-trips the cursor for the same principal and listing", () => {
    const token = tokens.issue("p1", "users::", { after: "abc", n: 3 });
    expect(tokens.read(token, "p1", "users::")).toEqual({ after: "abc", n: 3 });
  });

  it("rejects another principal, another listing, another key and any changed character", () => {
    const token = tokens.issue("p1", "users::", "abc");
    const expected = { code: "VALIDATION_ERROR", detail: INVALID_PAGE_TOKEN_MESSAGE };
    expect(rejection(() => tokens.read(token, "p2", "users::"))).toEqual(expected);
    expect(rejection(() => tokens.read(token, "p1", "users::Admin"))).toEqual(expected);
    expect(rejection(() => new PageTokens(randomBytes(32)).read(token, "p1", "users::"))).toEqual(expected);
    for (let i = 0; i < token.length; i += 7) {
      const flipped = token.slice(0, i) + (token[i] === "A" ? "B" : "A") + token.slice(i + 1);
      if (flipped !== token) expect(rejection(() => tokens.read(flipped, "p1", "users::"))).toEqual(expected);
    }
    for (const junk of ["", ".", "a.b.c", "%%%", "eyJ9.AAAA"]) {
      expect(rejection(() => tokens.read(junk, "p1", "users::"))).toEqual(expected);
    }
  });

  it("a well-formed token that no longer verifies (a restart or a key change) keeps the fixed detail and says to start again", () => {
    const token = new PageTokens(randomBytes(32)).issue("p1", "users::", "abc");
    const error = messages(() => tokens.read(token, "p1", "users::"));
    expect(error.detail).toBe(INVALID_PAGE_TOKEN_MESSAGE);
    expect(error.errors.continuationToken).toEqual([INVALID_PAGE_TOKEN_MESSAGE, STALE_PAGE_TOKEN_HINT]);
  });

  it("a token that is not one of ours at all gets only the fixed text", () => {
    for (const junk of ["hand-built", "e30.AAAA", Buffer.from("[1]").toString("base64url") + "." + "A".repeat(43)]) {
      expect(messages(() => tokens.read(junk, "p1", "users::")).errors.continuationToken).toEqual([INVALID_PAGE_TOKEN_MESSAGE]);
    }
  });
});
