import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isApiError, type ApiError } from "../../shared/platform/errors/api-error";
import { MAX_REPORTED_FIELDS, validate } from "../../shared/platform/http/validation";

function failure(schema: z.ZodType, input: unknown): ApiError {
  try {
    validate(schema, input);
  } catch (error) {
    if (isApiError(error)) return error;
    throw error;
  }
  throw new Error("expected a validation failure");
}

const body = z.object({ userId: z.guid(), displayName: z.string(), nested: z.object({ a: z.string() }).strict().optional() }).strict();
const PROTOTYPE_NAMES = ["__proto__", "constructor", "toString", "valueOf", "hasOwnProperty", "__defineGetter__", "__lookupGetter__", "isPrototypeOf"];

describe("validation", () => {
  it("reports a field named like an Object.prototype member as an unknown field, at the top and nested", () => {
    for (const name of PROTOTYPE_NAMES) {
      const top = failure(body, JSON.parse(`{"userId":"00000000-0000-4000-8000-000000000000","displayName":"x","${name}":{"a":1}}`));
      expect(top.code).toBe("VALIDATION_ERROR");
      expect(Object.keys(top.errors!)).toEqual([name]);
      expect(top.errors![name]![0]).toMatch(/^Unknown field/);
      const nested = failure(body, JSON.parse(`{"userId":"00000000-0000-4000-8000-000000000000","displayName":"x","nested":{"a":"b","${name}":1}}`));
      expect(Object.keys(nested.errors!)).toEqual([`nested.${name}`]);
    }
  });

  it("rejects __proto__ where zod would drop it silently: inside a record and a non-strict object", () => {
    const record = z.object({ tokens: z.record(z.string(), z.string()) }).strict();
    const inRecord = failure(record, JSON.parse('{"tokens":{"SourceA":"t","__proto__":"x"}}'));
    expect(inRecord.errors).toEqual({ "tokens.__proto__": ["Unknown field; only the documented fields are accepted."] });
    const loose = z.object({ list: z.array(z.object({ a: z.string() })) });
    const deep = failure(loose, JSON.parse('{"list":[{"a":"x"},{"a":"y","__proto__":{"polluted":true}}]}'));
    expect(Object.keys(deep.errors!)).toEqual(["list[1].__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("the errors map of a problem has no prototype, so any field name is just a key", () => {
    const error = failure(body, JSON.parse('{"constructor":1,"toString":2}'));
    expect(Object.getPrototypeOf(error.errors)).toBeNull();
    expect(JSON.parse(JSON.stringify(error.errors))).toMatchObject({ constructor: [expect.any(String)], toString: [expect.any(String)] });
  });

  it("a misspelt required field says it is required and names the unknown one beside it", () => {
    const error = failure(body, { userid: "00000000-0000-4000-8000-000000000000", displayName: "x" });
    expect(error.errors!.userId).toEqual(['This field is required. The request has "userid" instead, which is not a field.']);
    expect(error.errors!.userid).toEqual(['Unknown field; only the documented fields are accepted. Did you mean "userId"?']);
    const typo = failure(body, { userId: "00000000-0000-4000-8000-000000000000", dispalyName: "x" });
    expect(typo.errors!.displayName![0]).toContain('"dispalyName"');
  });

  it("a field of the wrong type is not called missing", () => {
    const error = failure(body, { userId: "00000000-0000-4000-8000-000000000000", displayName: 5 });
    expect(error.errors!.displayName![0]).not.toMatch(/required/);
  });

  it("an unrelated unknown field is not offered as the missing one", () => {
    const error = failure(body, { userId: "00000000-0000-4000-8000-000000000000", colour: "red" });
    expect(error.errors!.displayName).toEqual(["This field is required."]);
    expect(error.errors!.colour).toEqual(["Unknown field; only the documented fields are accepted."]);
  });

  it("names at most MAX_REPORTED_FIELDS fields and counts the rest, so that a body of many wrong values stays a small answer", () => {
    const scopes = z.object({ scopes: z.array(z.enum(["incidents:read", "incidents:write"])) }).strict();
    const error = failure(scopes, { scopes: Array.from({ length: 20_001 }, () => 1) });
    expect(Object.keys(error.errors!)).toHaveLength(MAX_REPORTED_FIELDS);
    expect(Object.keys(error.errors!)[0]).toBe("scopes[0]");
    expect(error.message).toMatch(/^The request has invalid fields: scopes\[0\], .*scopes\[99\], and 19901 more problems not listed\.$/);
    expect(JSON.stringify(error.errors).length).toBeLessThan(20_000);
  });

  it("walks deeply nested input without overflowing the stack", () => {
    let deep = "1";
    for (let i = 0; i < 200_000; i++) deep = `[${deep}]`;
    const error = failure(body, { userId: "00000000-0000-4000-8000-000000000000", displayName: "x", extra: JSON.parse(deep) });
    expect(Object.keys(error.errors!)).toEqual(["extra"]);
  });
});
