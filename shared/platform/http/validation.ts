import type { z } from "zod";
import { ApiError, type FieldErrors } from "../errors/api-error";
import { jsonPath } from "../errors/json-path";

const UNKNOWN_FIELD = "Unknown field; only the documented fields are accepted.";
const REQUIRED_FIELD = "This field is required.";

/**
 * Parses with zod; a failure becomes 400 VALIDATION_ERROR with errors keyed by JSON property path.
 * A `__proto__` key anywhere in the input is an unknown field like any other: zod leaves it out of
 * records and non-strict objects silently, so it is looked for here.
 */
export function validate<S extends z.ZodType>(schema: S, input: unknown, pathPrefix: string[] = []): z.output<S> {
  // Parsed first without options: zod's compiled fast path. Only a failure is parsed again to report it.
  const result = schema.safeParse(input);
  const prototypeKeys = prototypeKeyPaths(input);
  if (result.success && prototypeKeys.length === 0) return result.data;
  throw invalid(schema, input, prototypeKeys, pathPrefix);
}

/**
 * `validate` for an object of strings under names the service chose (a route's path parameters):
 * it can hold no prototype keys, so none are looked for.
 */
export function validateFlat<S extends z.ZodType>(schema: S, input: Record<string, string>): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw invalid(schema, input, prototypeKeyPaths(input), []);
}

function invalid(schema: z.ZodType, input: unknown, prototypeKeys: PropertyKey[][], pathPrefix: string[]): ApiError {
  // reportInput: tells a missing field (input undefined) from one of the wrong type.
  const result = schema.safeParse(input, { reportInput: true });
  const issues: IssueLike[] = result.success ? [] : [...result.error.issues];
  for (const path of prototypeKeys) issues.push({ code: "unrecognized_keys", path: path.slice(0, -1), keys: ["__proto__"], message: UNKNOWN_FIELD });
  return validationError(issues, pathPrefix);
}

/** The parts of a zod issue this module reads; also what it adds itself. */
type IssueLike =
  | { code: "unrecognized_keys"; path: PropertyKey[]; keys: readonly string[]; message: string }
  | { code: string; path: PropertyKey[]; message: string; input?: unknown };

/**
 * Fields one problem names at most. A body within the size limit can hold hundreds of thousands of
 * wrong values (an array of 250,000 numbers where scopes go): naming each would make a 500 KB request
 * a 100 MB answer and hold the process for seconds. The first fields are named; the rest are counted.
 */
export const MAX_REPORTED_FIELDS = 100;

export function validationError(issues: readonly IssueLike[] | readonly z.core.$ZodIssue[], pathPrefix: string[] = []): ApiError {
  // Keys come from the request: a plain object would resolve "constructor" or "__proto__" to
  // Object.prototype's members instead of a fresh list.
  const errors: FieldErrors = Object.create(null) as FieldErrors;
  let named = 0;
  let unnamed = 0;
  const add = (path: readonly PropertyKey[], message: string) => {
    const key = jsonPath([...pathPrefix, ...path]);
    let list = errors[key];
    if (!list) {
      if (named === MAX_REPORTED_FIELDS) {
        unnamed++;
        return;
      }
      named++;
      list = errors[key] = [];
    }
    if (!list.includes(message)) list.push(message);
  };
  const unknown: { parent: readonly PropertyKey[]; key: string }[] = [];
  const required: { parent: readonly PropertyKey[]; key: string }[] = [];
  for (const issue of issues as readonly IssueLike[]) {
    if (issue.code === "unrecognized_keys" && "keys" in issue) {
      for (const key of issue.keys) unknown.push({ parent: issue.path, key });
    } else if (issue.code === "invalid_type" && "input" in issue && issue.input === undefined && issue.path.length > 0) {
      required.push({ parent: issue.path.slice(0, -1), key: String(issue.path[issue.path.length - 1]) });
    } else {
      add(issue.path, issue.message);
    }
  }
  // A misspelt required field shows up twice, as missing and as unknown: name each beside the other.
  for (const miss of required) {
    const near = unknown.find((u) => samePath(u.parent, miss.parent) && isLikelyMisspelling(u.key, miss.key));
    add([...miss.parent, miss.key], near ? `${REQUIRED_FIELD} The request has "${near.key}" instead, which is not a field.` : REQUIRED_FIELD);
  }
  for (const extra of unknown) {
    const near = required.find((r) => samePath(r.parent, extra.parent) && isLikelyMisspelling(extra.key, r.key));
    add([...extra.parent, extra.key], near ? `${UNKNOWN_FIELD} Did you mean "${near.key}"?` : UNKNOWN_FIELD);
  }
  const fields = Object.keys(errors).filter((k) => k !== "");
  const more = unnamed > 0 ? `, and ${unnamed} more problem${unnamed === 1 ? "" : "s"} not listed` : "";
  const detail = fields.length > 0 ? `The request has invalid fields: ${fields.join(", ")}${more}.` : "The request is invalid.";
  return new ApiError("VALIDATION_ERROR", detail, { errors, target: fields.length === 1 ? fields[0] : undefined });
}

function samePath(a: readonly PropertyKey[], b: readonly PropertyKey[]): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}

/** Same letters ignoring case and separators, or at most two edits apart (for names of 5+ letters). */
export function isLikelyMisspelling(given: string, expected: string): boolean {
  const norm = (s: string) => s.toLowerCase().replace(/[-_\s]/g, "");
  const a = norm(given);
  const b = norm(expected);
  if (a === b) return true;
  if (b.length < 5 || Math.abs(a.length - b.length) > 2 || a.length > 64) return false;
  return editDistance(a, b) <= 2;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Paths of every own `__proto__` key in a parsed JSON value, walked without recursion (input may nest deeply). */
function prototypeKeyPaths(input: unknown): PropertyKey[][] {
  if (typeof input !== "object" || input === null) return [];
  interface Node {
    value: object;
    parent?: Node;
    key?: PropertyKey;
  }
  const pathOf = (node: Node | undefined): PropertyKey[] => {
    const path: PropertyKey[] = [];
    for (let n = node; n?.parent; n = n.parent) path.unshift(n.key!);
    return path;
  };
  const found: PropertyKey[][] = [];
  const stack: Node[] = [{ value: input }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const entries: [PropertyKey, unknown][] = Array.isArray(node.value)
      ? node.value.map((item, i) => [i, item])
      : Object.keys(node.value).map((key) => [key, (node.value as Record<string, unknown>)[key]]);
    for (const [key, child] of entries) {
      if (key === "__proto__") found.push([...pathOf(node), key]);
      if (typeof child === "object" && child !== null) stack.push({ value: child, parent: node, key });
    }
  }
  return found;
}
