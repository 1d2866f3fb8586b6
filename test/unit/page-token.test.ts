import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { INVALID_PAGE_TOKEN_MESSAGE, isApiError } from "../../shared/platform/errors/api-error";
import { PageTokens } from "../../shared/platform/http/page-token";

const tokens = new PageTokens(randomBytes(32));
const users = { identity: "p1", listing: "users::" };
const cursor = z.object({ after: z.string() }).strict();

function rejection(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    if (isApiError(error)) return { code: error.code, detail: error.message, errors: error.errors };
    throw error;
  }
  throw new Error("expected a rejection");
}

describe("page tokens", () => {
  it("round-trips the cursor for the same identity and listing, without carrying either", () => {
    const token = tokens.issue(users, { after: "abc" });
    expect(tokens.read(token, users, cursor, "continuationToken")).toEqual({ after: "abc" });
    expect(Buffer.from(token.split(".")[0]!, "base64url").toString()).toBe('{"after":"abc"}');
    expect(token.length).toBeLessThan(48);
  });

  it("rejects another identity, another listing, another key and any changed character with the fixed text", () => {
    const token = tokens.issue(users, { after: "abc" });
    const fixed = { code: "VALIDATION_ERROR", detail: INVALID_PAGE_TOKEN_MESSAGE };
    expect(rejection(() => tokens.read(token, { ...users, identity: "p2" }, cursor, "t"))).toMatchObject(fixed);
    expect(rejection(() => tokens.read(token, { ...users, listing: "users::Admin" }, cursor, "t"))).toMatchObject(fixed);
    expect(rejection(() => new PageTokens(randomBytes(32)).read(token, users, cursor, "t"))).toMatchObject(fixed);
    for (let i = 0; i < token.length; i++) {
      const flipped = token.slice(0, i) + (token[i] === "A" ? "B" : "A") + token.slice(i + 1);
      if (flipped !== token) expect(rejection(() => tokens.read(flipped, users, cursor, "t"))).toMatchObject(fixed);
    }
    for (const junk of ["", ".", "a.b.c", "%%%", "eyJ9.AAAA", "a b.c"]) {
      expect(rejection(() => tokens.read(junk, users, cursor, "t"))).toMatchObject(fixed);
    }
  });

  it("says to start again from the first page when a well-formed token is no longer valid", () => {
    const token = tokens.issue(users, { after: "abc" });
    const afterKeyChange = rejection(() => new PageTokens(randomBytes(32)).read(token, users, cursor, "continuationToken"));
    expect(afterKeyChange.errors?.continuationToken).toEqual([INVALID_PAGE_TOKEN_MESSAGE, expect.stringContaining("start again from the first page")]);
    expect(rejection(() => tokens.read("%%%", users, cursor, "continuationToken")).errors?.continuationToken).toEqual([INVALID_PAGE_TOKEN_MESSAGE]);
  });

  it("checks the cursor against its schema: a signed token of another shape is refused", () => {
    const token = tokens.issue(users, { after: 42 });
    expect(rejection(() => tokens.read(token, users, cursor, "t"))).toMatchObject({ code: "VALIDATION_ERROR", detail: INVALID_PAGE_TOKEN_MESSAGE });
  });
});
