import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, expectTypeOf, it } from "vitest";
import { ERROR_DOCS_PATH, errorDocs } from "../../scripts/error-docs";
import { errorCodeEntry, errorCodeMeaning, errorCodes, exampleDetail, type ErrorCode, type OtherErrorStatus } from "../../shared/platform/errors/error-codes";

/*
 * docs/errors.md, the served error reference and the OpenAPI problem examples all come from the one
 * error-code table; the Markdown page is a generated file kept in the repository.
 */

const root = join(__dirname, "../..");
const codes = Object.keys(errorCodes) as ErrorCode[];

describe("docs/errors.md", () => {
  it("is what the error-code table generates", () => {
    const written = readFileSync(join(root, ERROR_DOCS_PATH), "utf8");
    expect(written, `${ERROR_DOCS_PATH} is out of date with shared/platform/errors/error-codes.ts: run \`npm run docs:errors\` and commit the result`).toBe(
      errorDocs(),
    );
  });

  it("has one row per code, with its status, title and every status it is also sent with", () => {
    const rows = errorDocs()
      .split("\n")
      .filter((line) => line.startsWith("| `"));
    expect(rows.map((row) => row.split("`")[1])).toEqual(codes);
    for (const [i, code] of codes.entries()) {
      const { status, title, otherStatuses = [] } = errorCodeEntry(code);
      expect(rows[i]).toContain(`| ${status} | ${title} |`);
      for (const other of otherStatuses) expect(rows[i]).toContain(`${other.status} for ${other.when}`);
    }
  });
});

describe("the error-code table", () => {
  it("gives every code a status, a title, a meaning and an example detail", () => {
    for (const code of codes) {
      const entry = errorCodeEntry(code);
      expect(entry.status, code).toBeGreaterThanOrEqual(400);
      for (const text of [entry.title, entry.when, entry.exampleDetail]) expect(text, code).toMatch(/^[A-Z].*\.$/s);
      expect(errorCodeMeaning(code).startsWith(entry.when), code).toBe(true);
    }
  });

  it("lists other statuses that differ from the usual one, once each", () => {
    for (const code of codes) {
      const { status, otherStatuses = [] } = errorCodeEntry(code);
      const others = otherStatuses.map((s) => s.status);
      expect(others, code).not.toContain(status);
      expect(new Set(others).size, code).toBe(others.length);
    }
  });

  it("is where the statuses an ApiError may be sent with instead of its code's come from", () => {
    expectTypeOf<OtherErrorStatus>().toEqualTypeOf<408 | 413 | 417 | 422 | 431>();
    const listed = codes.flatMap((code) => (errorCodeEntry(code).otherStatuses ?? []).map((s) => s.status));
    expect(listed.sort()).toEqual([408, 413, 417, 422, 431]);
  });

  it("gives an example detail per status: the other status's own where it has one, else the code's", () => {
    expect(exampleDetail("BAD_REQUEST", 413)).toBe("The request body is larger than the limit.");
    expect(exampleDetail("VALIDATION_ERROR", 422)).toBe("The request is well formed but cannot be carried out; see errors.");
    expect(exampleDetail("BAD_REQUEST", 400)).toBe(errorCodes.BAD_REQUEST.exampleDetail);
    expect(exampleDetail("CONFLICT", 422)).toBe(errorCodes.CONFLICT.exampleDetail);
  });
});
