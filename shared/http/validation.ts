import type { z } from "zod";
import { ApiError, type FieldErrors } from "../errors/api-error";
import { jsonPath } from "../errors/json-path";

/** Parses with zod; a failure becomes 400 VALIDATION_ERROR with errors keyed by JSON property path. */
export function validate<S extends z.ZodType>(schema: S, input: unknown, pathPrefix: string[] = []): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(result.error.issues, pathPrefix);
}

export function validationError(issues: readonly z.core.$ZodIssue[], pathPrefix: string[] = []): ApiError {
  // A Map, not an object literal: a caller's field may be called `constructor` or `__proto__`.
  const byPath = new Map<string, string[]>();
  const add = (path: PropertyKey[], message: string) => {
    const key = jsonPath([...pathPrefix, ...path]);
    byPath.set(key, [...(byPath.get(key) ?? []), message]);
  };
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) add([...issue.path, key], "Unknown field; only the documented fields are accepted.");
    } else if (issue.code === "invalid_type" && issue.input === undefined) {
      add(issue.path, "This field is required.");
    } else {
      add(issue.path, issue.message);
    }
  }
  const errors: FieldErrors = Object.fromEntries(byPath);
  const fields = [...byPath.keys()].filter((k) => k !== "");
  const detail =
    fields.length > 0 ? `The request has invalid fields: ${fields.join(", ")}.` : "The request is invalid.";
  return new ApiError("VALIDATION_ERROR", detail, { errors, target: fields.length === 1 ? fields[0] : undefined });
}
