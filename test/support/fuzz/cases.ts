import fc from "fast-check";
import { candidatesFor } from "./harvest";
import type { Operation, Parameter } from "./operations";
import { queryValueOf, valueOf, type JsonSchema, type SchemaContext } from "./schema-arbitrary";

/** Bytes of a request, some built only when sent (huge or deeply nested parts stay small in a plan). */
export type Piece = string | { repeat: string; count: number } | { bytes: number[] };

export interface HttpPlan {
  kind: "http";
  category: Category;
  method: string;
  /** Path and query, encoded. */
  target: string;
  headers: Record<string, string>;
  body?: Piece[];
}

export interface RawPlan {
  kind: "raw";
  category: Category;
  payload: Piece[];
}

export type Plan = HttpPlan | RawPlan;

export const categories = [
  "valid",
  "wrong-type",
  "missing-field",
  "unknown-field",
  "prototype-key",
  "huge",
  "deep-nesting",
  "invalid-utf8",
  "control-characters",
  "number-edges",
  "duplicate-keys",
  "content-type",
  "bad-path-segment",
  "bad-query",
  "tampered-page-token",
  "wrong-method",
  "bad-authorization",
  "idempotency-key",
  "protocol",
] as const;
export type Category = (typeof categories)[number];

export const PROTOTYPE_NAMES = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
] as const;

const WRONG_VALUES: unknown[] = [null, 0, -1, 1.5, "", "x", true, false, [], {}, [1, "a"], { a: 1 }, "null", "[]"];
const NUMBER_EDGES = ["0", "-0", "-1", "1.5", "9007199254740991", "9007199254740993", "-9007199254740993", "1e308", "1e999", "-1e999", "1e-400", "4.9e-324", "2147483648", "1E2", "0.0000001", "01", "NaN", "Infinity", "-Infinity", "0x10", "+1", ".5", "1.", "1e"];
const HUGE_SIZES = [1_000, 10_000, 100_000, 500_000, 1_100_000, 3_000_000];
const DEPTHS = [100, 1_000, 10_000, 100_000];
const INVALID_UTF8: number[][] = [[0xff], [0xfe, 0xff], [0xc3, 0x28], [0xa0, 0xa1], [0xe2, 0x28, 0xa1], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]];
const CONTROL_TEXT = ["\u0000", "a\u0000b", "\u0001\u0002\u001f", "\r\n", "\t\b\f", "\u007f", "\u2028\u2029", "\ud800", "\udfff\ud800", "\ufeff", "\u202e", "a".repeat(10) + "\u0000"];
const BAD_SEGMENTS = ["", "%00", "%ff", "%fe%ff", "..", "%2e%2e", "%2F", "%2f..%2f..%2fetc%2fpasswd", "%", "%zz", "a%20b", "%0d%0aX-Injected:%201", "x".repeat(5_000), "%F0%9F%92%A9", "null", "undefined", "00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", "{id}", "-1", "1e999", "__proto__", "constructor"];
const BAD_QUERY_PARTS = ["%", "%zz", "=", "&&&", "=x", "a[b]=c", "a[]=1&a[]=2", "%00=%00", "x=%ff%fe", "x=%0d%0a", `x=${"y".repeat(20_000)}`, "__proto__=1", "__proto__[x]=1", "constructor=1", "toString=1&valueOf=2", "hasOwnProperty=x", "pageSize=-1", "pageSize=0", "pageSize=1.5", "pageSize=1e999", "pageSize=NaN", "pageSize=99999999999999999999", "pageSize=%20", "pageSize=1&pageSize=2"];
const CONTENT_TYPES: (string | undefined)[] = [undefined, "", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data", "multipart/form-data; boundary=x", "application/xml", "application/json; charset=latin1", "application/json;;;", "APPLICATION/JSON", "application/jsonx", "application/problem+json", "application/vnd.api+json", "*/*", "json", "application/"];
// Not TRACE or CONNECT: fetch refuses to send them (CONNECT is among the protocol cases).
const OTHER_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
/**
 * `Idempotency-Key` values: malformed ones, and a few fixed well-formed ones that the suite's cases
 * send again and again with other bodies and in parallel (a key reused, a key in use), besides fresh
 * ones. On an operation that does not take the header, any of them is ignored.
 */
const IDEMPOTENCY_KEYS = ["", " ", '"', '""', '"abc', '"a"b"', '"a\\x"', "k".repeat(256), `"${"k".repeat(256)}"`, "cl\u00e9", "\u00ff\u00fe", "a\tb", "fuzz-key-1", '"fuzz-key-2"', "fuzz-key-3", "k".repeat(255)];
const BAD_AUTHORIZATION = ["", "Basic", "Basic ", "Basic !!!!", "Basic =", "Basic Og==", "Bearer x", "basic Og==", "Digest a=b", `Basic ${"A".repeat(10_000)}`, `Basic ${Buffer.from("\u0000:\u0000").toString("base64")}`, `Basic ${Buffer.from("a".repeat(300) + ":" + "b".repeat(300)).toString("base64")}`, `Basic ${Buffer.from("not-a-guid:secret").toString("base64")}`, `Basic ${Buffer.from("00000000-0000-4000-8000-000000000000:soms_x").toString("base64")}`];

export interface CaseContext extends SchemaContext {
  /** The fuzz suite's own credential, sent unless a case says otherwise. */
  authorization: string;
  /** The fuzz suite's own person's session: its Cookie and X-CSRF-Token headers, sent on portal operations. */
  session: { cookie: string; "x-csrf-token": string };
}

/** Broken portal credentials: each replaces the session headers (undefined: that header is left out). */
const BAD_SESSIONS: { cookie?: string; "x-csrf-token"?: string; authorization?: string }[] = [
  {},
  { cookie: "__Host-secops-session=" },
  { cookie: "__Host-secops-session=abc" },
  { cookie: `__Host-secops-session=${"A".repeat(4_000)}` },
  { cookie: "__Host-secops-session=%00%ff; __Host-secops-session=x" },
  { cookie: "other=1" },
  { cookie: ";;;=;" },
];

/** The credential headers of an operation: the service account's, or on the portal the person's session. */
function credentials(op: Operation, ctx: CaseContext): Record<string, string> {
  return op.portal ? { ...ctx.session } : { authorization: ctx.authorization };
}

/** The arbitrary of every case: an operation of the document, a category, and the request they make. */
export function caseArbitrary(operations: Operation[], ctx: CaseContext): fc.Arbitrary<{ operation: string; plan: Plan }> {
  // Built once per pair, not per case: building the arbitraries costs more than drawing from them.
  const plans = new Map<string, fc.Arbitrary<{ operation: string; plan: Plan }>>();
  return fc.tuple(fc.constantFrom(...operations), fc.constantFrom(...categories)).chain(([op, category]) => {
    const key = `${op.method} ${op.template} ${category}`;
    let arbitrary = plans.get(key);
    if (!arbitrary) {
      arbitrary = planOf(op, category, ctx).map((plan) => ({ operation: `${op.method} ${op.template}`, plan }));
      plans.set(key, arbitrary);
    }
    return arbitrary;
  });
}

function planOf(op: Operation, category: Category, ctx: CaseContext): fc.Arbitrary<Plan> {
  const base = fc.record({ path: pathOf(op, ctx), query: queryOf(op, ctx), body: op.body ? valueOf(op.body, ctx) : fc.constant(undefined) });
  const http = (make: (b: { path: string; query: string[]; body: unknown }, pick: number) => Partial<HttpPlan>): fc.Arbitrary<Plan> =>
    fc.tuple(base, fc.nat()).map(([b, pick]) => ({ ...defaults(op, b, ctx, category), ...make(b, pick) }));
  const onBody = (mutate: (body: unknown, pick: number, specials: Piece[][]) => unknown): fc.Arbitrary<Plan> =>
    http((b, pick) => {
      const specials: Piece[][] = [];
      if (!op.body && op.method === "GET") {
        // A GET takes no body: its query, as an object, is broken instead.
        const query = mutate(queryObjectOf(b.query), pick, specials);
        return { target: withQuery(b.path, queryPartsOf(query, specials)) };
      }
      // Other operations without a body get the broken body anyway: the pipeline must ignore or refuse it.
      const body = mutate(b.body ?? {}, pick, specials);
      return { method: bodyMethod(op), body: serialize(body, specials) };
    });

  switch (category) {
    case "valid":
      return http(() => ({}));
    case "wrong-type":
      return onBody((body, pick) => replaceAt(body, pick, WRONG_VALUES[pick % WRONG_VALUES.length]));
    case "missing-field":
      return onBody((body, pick) => removeAt(body, pick));
    case "unknown-field":
      return onBody((body, pick) => addKeyAt(body, pick, misspelling(body, pick), WRONG_VALUES[pick % WRONG_VALUES.length]));
    case "prototype-key":
      return fc.oneof(
        onBody((body, pick) => addKeyAt(body, pick, PROTOTYPE_NAMES[pick % PROTOTYPE_NAMES.length]!, WRONG_VALUES[(pick >> 4) % WRONG_VALUES.length])),
        http((b, pick) => ({ target: withQuery(b.path, [...b.query, `${PROTOTYPE_NAMES[pick % PROTOTYPE_NAMES.length]}=${pick % 3 === 0 ? "x&" + PROTOTYPE_NAMES[pick % PROTOTYPE_NAMES.length] + "=y" : "1"}`]) })),
      );
    case "huge":
      return onBody((body, pick, specials) => {
        const size = HUGE_SIZES[pick % HUGE_SIZES.length]!;
        const kind = (pick >> 3) % 3;
        const piece: Piece[] =
          kind === 0 ? ['"', { repeat: "x", count: size }, '"'] : kind === 1 ? ["[", { repeat: "1,", count: size / 2 }, "1]"] : ["{", { repeat: '"k":1,', count: size / 6 }, '"k":1}'];
        return replaceAt(body, pick >> 5, special(specials, piece));
      });
    case "deep-nesting":
      return onBody((body, pick, specials) => {
        const depth = DEPTHS[pick % DEPTHS.length]!;
        const piece: Piece[] = pick % 2 === 0 ? [{ repeat: "[", count: depth }, { repeat: "]", count: depth }] : [{ repeat: '{"a":', count: depth }, "1", { repeat: "}", count: depth }];
        return replaceAt(body, pick >> 3, special(specials, piece));
      });
    case "invalid-utf8":
      return fc.oneof(
        onBody((body, pick, specials) => replaceAt(body, pick >> 4, special(specials, ['"ab', { bytes: INVALID_UTF8[pick % INVALID_UTF8.length]! }, 'cd"']))),
        http((b, pick) => ({ target: withQuery(b.path, [...b.query, `q=${INVALID_UTF8[pick % INVALID_UTF8.length]!.map((x) => "%" + x.toString(16)).join("")}`]) })),
      );
    case "control-characters":
      return fc.oneof(
        onBody((body, pick) => replaceAt(body, pick >> 4, CONTROL_TEXT[pick % CONTROL_TEXT.length])),
        // Unescaped inside a JSON string: not JSON at all.
        onBody((body, pick, specials) => replaceAt(body, pick >> 4, special(specials, [`"a${String.fromCharCode(pick % 32)}b"`]))),
        http((b, pick) => ({ target: withQuery(b.path, b.query.map((q) => q + encodeText(CONTROL_TEXT[pick % CONTROL_TEXT.length]!))) })),
      );
    case "number-edges":
      return fc.oneof(
        onBody((body, pick, specials) => replaceAt(body, pick >> 5, special(specials, [NUMBER_EDGES[pick % NUMBER_EDGES.length]!]))),
        http((b, pick) => ({ target: withQuery(b.path, b.query.map((q) => q.replace(/=.*/, "=" + encodeText(NUMBER_EDGES[pick % NUMBER_EDGES.length]!)))) })),
      );
    case "duplicate-keys":
      return http((b, pick) => {
        const body = b.body && typeof b.body === "object" && !Array.isArray(b.body) ? (b.body as Record<string, unknown>) : { a: 1 };
        const keys = Object.keys(body);
        const key = keys.length > 0 ? keys[pick % keys.length]! : "a";
        const text = JSON.stringify(body);
        const duplicate = `${JSON.stringify(key)}:${JSON.stringify(WRONG_VALUES[pick % WRONG_VALUES.length])}`;
        const withDuplicate = pick % 2 === 0 ? `{${duplicate}${text.length > 2 ? "," : ""}${text.slice(1)}` : `${text.slice(0, -1)}${text.length > 2 ? "," : ""}${duplicate}}`;
        return { method: bodyMethod(op), body: [withDuplicate] };
      });
    case "content-type":
      return http((b, pick) => {
        const type = CONTENT_TYPES[pick % CONTENT_TYPES.length];
        const headers = { ...defaults(op, b, ctx, category).headers };
        delete headers["content-type"];
        if (type !== undefined) headers["content-type"] = type;
        return { method: bodyMethod(op), headers, body: [JSON.stringify(b.body ?? {})] };
      });
    case "bad-path-segment":
      return http((b, pick) => {
        const segments = b.path.split("/");
        const bad = BAD_SEGMENTS[pick % BAD_SEGMENTS.length]!;
        const params = op.pathParams.length;
        if (params > 0 && pick % 3 !== 0) {
          const index = op.template.split("/").indexOf(`{${op.pathParams[(pick >> 5) % params]!.name}}`);
          segments[index] = bad;
        } else if (pick % 2 === 0) segments.push(bad);
        else segments[segments.length - 1] = segments[segments.length - 1]!.toUpperCase();
        return { target: withQuery(segments.join("/"), b.query) };
      });
    case "bad-query":
      return http((b, pick) => ({ target: withQuery(b.path, [...b.query.filter((_, i) => i !== pick % Math.max(1, b.query.length)), BAD_QUERY_PARTS[pick % BAD_QUERY_PARTS.length]!]) }));
    case "tampered-page-token":
      return http((b, pick) => ({ target: withQuery(b.path, [...b.query, `${tokenParam(op)}=${encodeText(tampered(ctx.pool.get("continuationToken") ?? [], pick))}`]) }));
    case "wrong-method":
      return http((b, pick) => {
        const method = OTHER_METHODS.filter((m) => m !== op.method)[pick % (OTHER_METHODS.length - 1)]!;
        return { method, body: method === "GET" || method === "HEAD" ? undefined : [JSON.stringify(b.body ?? {})] };
      });
    case "bad-authorization":
      return http((b, pick) => {
        const headers = { ...defaults(op, b, ctx, category).headers };
        if (op.portal) {
          // A broken session, a wrong or missing CSRF token, or a service account's credentials where a person's are due.
          const variant = pick % 3;
          if (variant === 0) {
            delete headers.cookie;
            Object.assign(headers, BAD_SESSIONS[(pick >> 2) % BAD_SESSIONS.length]);
          } else if (variant === 1) headers["x-csrf-token"] = ["", "x", ctx.session["x-csrf-token"].slice(1), "A".repeat(5_000)][(pick >> 2) % 4]!;
          else headers.authorization = [ctx.authorization, ...BAD_AUTHORIZATION.filter(Boolean)][(pick >> 2) % (BAD_AUTHORIZATION.length)]!;
          return { headers };
        }
        const value = BAD_AUTHORIZATION[pick % BAD_AUTHORIZATION.length]!;
        if (value === "") delete headers.authorization;
        else headers.authorization = value;
        return { headers };
      });
    case "idempotency-key":
      // A valid request otherwise; on a change the body may be any the schema allows, so the same key
      // comes with different bodies across cases.
      return http((b, pick) => {
        const headers = { ...defaults(op, b, ctx, category).headers };
        headers["idempotency-key"] = pick % 4 === 0 ? `"fuzz-${pick}"` : IDEMPOTENCY_KEYS[pick % IDEMPOTENCY_KEYS.length]!;
        return { headers };
      });
    case "protocol":
      return fc.tuple(base, fc.nat(), fc.string({ maxLength: 40 })).map(([b, pick, junk]) => ({ kind: "raw", category, payload: protocolPayload(op, b.path, pick, junk, ctx) }));
  }
}

function defaults(op: Operation, b: { path: string; query: string[]; body: unknown }, ctx: CaseContext, category: Category): HttpPlan {
  const headers: Record<string, string> = credentials(op, ctx);
  const plan: HttpPlan = { kind: "http", category, method: op.method, target: withQuery(b.path, b.query), headers };
  if (b.body !== undefined && op.multipart) {
    const boundary = "fuzz-boundary-7f3a";
    headers["content-type"] = `multipart/form-data; boundary=${boundary}`;
    plan.body = [multipartOf(b.body, op.body!, boundary)];
  } else if (b.body !== undefined) {
    headers["content-type"] = "application/json";
    plan.body = [JSON.stringify(b.body)];
  }
  return plan;
}

/**
 * A generated upload as `multipart/form-data`: fields the schema marks as binary become file parts,
 * the others text fields (objects as their JSON).
 */
function multipartOf(body: unknown, schema: JsonSchema, boundary: string): string {
  const fields = body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : { value: body };
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  let out = "";
  for (const [name, value] of Object.entries(fields)) {
    const text = typeof value === "string" ? value : JSON.stringify(value);
    const isFile = properties[name]?.format === "binary" || properties[name]?.contentMediaType !== undefined;
    const disposition = isFile ? `form-data; name="${name}"; filename="fuzz.txt"\r\nContent-Type: text/plain` : `form-data; name="${name}"`;
    out += `--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n${text}\r\n`;
  }
  return `${out}--${boundary}--\r\n`;
}

function bodyMethod(op: Operation): string {
  return op.method === "GET" ? "POST" : op.method;
}

function pathOf(op: Operation, ctx: CaseContext): fc.Arbitrary<string> {
  if (op.pathParams.length === 0) return fc.constant(op.template);
  return fc.tuple(...op.pathParams.map((p) => paramValue(op, p, ctx))).map((values) => {
    let path = op.template;
    op.pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, encodeText(values[i]!))));
    return path;
  });
}

function paramValue(op: Operation, p: Parameter, ctx: CaseContext): fc.Arbitrary<string> {
  const known = candidatesFor(op, p.name, ctx.pool);
  const fresh = valueOf(p.schema, ctx, p.name).map(String);
  return known.length > 0 ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: fresh }) : fresh;
}

function queryOf(op: Operation, ctx: CaseContext): fc.Arbitrary<string[]> {
  if (op.queryParams.length === 0) return fc.constant([]);
  return fc
    .tuple(...op.queryParams.map((p) => fc.tuple(fc.constant(p), p.required ? fc.constant(true) : fc.boolean(), queryValueOf(p.schema, ctx, p.name))))
    .map((entries) =>
      entries
        .filter(([p, present]) => present && !/token/i.test(p.name))
        .flatMap(([p, , values]) => values.map((v) => `${encodeText(p.name)}=${encodeText(v)}`)),
    );
}

function queryObjectOf(parts: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const part of parts) {
    const [name = "", value = ""] = part.split("=");
    const key = safeDecode(name);
    const decoded = safeDecode(value);
    out[key] = key in out ? [out[key], decoded].flat() : decoded;
  }
  return out;
}

const QUERY_BYTES_MAX = 8 * 1024;

/** Percent-encoding that never throws: a lone surrogate goes as the bytes Buffer gives it (U+FFFD). */
function encodeText(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    // A lone surrogate; encoded byte by byte below.
  }
  return [...Buffer.from(value, "utf8")].map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : "%" + b.toString(16).padStart(2, "0"))).join("");
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A (broken) query object back to `name=value` parts; markers become their bytes, percent-encoded. */
function queryPartsOf(query: unknown, specials: Piece[][]): string[] {
  const encode = (v: unknown): string => {
    if (typeof v === "string") {
      // eslint-disable-next-line no-control-regex -- the marker is fenced by a control character no input has
      const marker = /^\u0001FUZZ:(\d+)\u0001$/.exec(v);
      // Past Node's 16 KiB header limit the answer is 431 whatever follows: no need for megabytes.
      if (marker) return [...materialize(specials[Number(marker[1])]!).subarray(0, QUERY_BYTES_MAX)].map((byte) => "%" + byte.toString(16).padStart(2, "0")).join("");
      return encodeText(v);
    }
    return encodeText(typeof v === "object" && v !== null ? JSON.stringify(v) : String(v));
  };
  if (query === null || typeof query !== "object" || Array.isArray(query)) return [`q=${encode(query)}`];
  return Object.entries(query).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((item) => `${encodeText(k)}=${encode(item)}`));
}

function withQuery(path: string, query: string[]): string {
  return query.length > 0 ? `${path}?${query.join("&")}` : path;
}

function tokenParam(op: Operation): string {
  return op.queryParams.find((p) => /token/i.test(p.name))?.name ?? "continuationToken";
}

/** A real token changed the ways a client might: a flipped or dropped character, parts swapped or forged. */
function tampered(tokens: readonly string[], pick: number): string {
  const token = tokens[pick % Math.max(1, tokens.length)] ?? "eyJwIjoieCJ9.AAAA";
  const [payload = "", signature = ""] = token.split(".");
  const i = (pick >> 4) % Math.max(1, token.length);
  const forged = Buffer.from(JSON.stringify({ p: "00000000-0000-4000-8000-000000000000", b: "x", c: { after: "z" } })).toString("base64url");
  const variants = [
    token.slice(0, i) + (token[i] === "A" ? "B" : "A") + token.slice(i + 1),
    token.slice(0, -1),
    token + "A",
    `${signature}.${payload}`,
    `${forged}.${signature}`,
    `${payload}.`,
    `.${signature}`,
    `${payload}.${signature}.${signature}`,
    Buffer.from(token).toString("base64"),
    token.toUpperCase(),
    "",
    " ".repeat(3),
    "%",
    "x".repeat(5_000),
  ];
  return variants[pick % variants.length]!;
}

function protocolPayload(op: Operation, path: string, pick: number, junk: string, ctx: CaseContext): Piece[] {
  const auth = op.portal ? `Cookie: ${ctx.session.cookie}\r\nX-CSRF-Token: ${ctx.session["x-csrf-token"]}\r\n` : `Authorization: ${ctx.authorization}\r\n`;
  const p = path.replace(/[^\x21-\x7e]/g, "");
  const templates: string[] = [
    `${op.method.toLowerCase()} ${p} HTTP/1.1\r\nHost: h\r\n\r\n`,
    `FOO ${p} HTTP/1.1\r\nHost: h\r\n\r\n`,
    `${op.method} ${p} HTTP/1.1\r\nHost: h\rX-A: b\r\n\r\n`,
    `${op.method} ${p} HTTP/1.1\r\nHost: h\r\nX-A: b\r\n  folded\r\n\r\n`,
    `POST ${p} HTTP/1.1\r\nHost: h\r\n${auth}Transfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n`,
    `POST ${p} HTTP/1.1\r\nHost: h\r\n${auth}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    `POST ${p} HTTP/1.1\r\nHost: h\r\n${auth}Content-Length: abc\r\n\r\n`,
    `POST ${p} HTTP/1.1\r\nHost: h\r\n${auth}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
    `${op.method} ${p} HTTP/1.1\r\nHost: h\r\n${auth}Expect: teapot\r\nContent-Length: 0\r\n\r\n`,
    `PUT ${p} HTTP/1.1\r\nHost: h\r\n${auth}Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n`,
    `${op.method} ${p} HTTP/1.1\r\nHost: \r\n${auth}Connection: close\r\n\r\n`,
    `${op.method} ${p} HTTP/1.1\r\nHost: a:99999\r\n${auth}Connection: close\r\n\r\n`,
    `${op.method} ${p} HTTP/1.1\r\nHost: [::1\r\n${auth}Connection: close\r\n\r\n`,
    `${op.method} ${p} HTTP/1.1\r\nHost: h${pick}.example:${pick % 65536}\r\n${auth}Connection: close\r\n\r\n`,
    `${op.method} ${p} HTTP/1.1\r\n${auth}Connection: close\r\n\r\n`,
    `${op.method} http://evil.example${p} HTTP/1.1\r\nHost: h\r\n${auth}Connection: close\r\n\r\n`,
    `${op.method} ${p} HTTP/1.0\r\n${auth}\r\n`,
    `${op.method} ${p} HTTP/9.9\r\nHost: h\r\n\r\n`,
    `${op.method} ${p}\0 HTTP/1.1\r\nHost: h\r\n\r\n`,
    `${op.method} ${p} HTTP/1.1\r\nHost: h\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    `${op.method} ${p} HTTP/1.1\r\nHost: h\r\nBad Header: x\r\n\r\n`,
    `${op.method} ${p} HTTP/1.1\r\nHost: h\r\nX-Junk: ${junk.replace(/[\r\n]/g, "")}\r\n${auth}Connection: close\r\n\r\n`,
    `${junk.replace(/[\r\n]/g, "") || "?"} ${p} HTTP/1.1\r\nHost: h\r\n\r\n`,
    "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
    `${op.method} ${p} HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n${auth}\r\n`,
  ];
  return [templates[pick % templates.length]!];
}

// ---- JSON bodies with parts that are not plain JSON values ----

const MARK = "\u0001FUZZ:";

function special(specials: Piece[][], pieces: Piece[]): string {
  specials.push(pieces);
  return `${MARK}${specials.length - 1}\u0001`;
}

/** JSON text of the value, with each special marker replaced by its raw pieces. */
function serialize(value: unknown, specials: Piece[][]): Piece[] {
  const text = JSON.stringify(value) ?? "null";
  const out: Piece[] = [];
  let last = 0;
  for (const match of text.matchAll(/"\\u0001FUZZ:(\d+)\\u0001"/g)) {
    out.push(text.slice(last, match.index));
    out.push(...specials[Number(match[1])]!);
    last = match.index! + match[0].length;
  }
  out.push(text.slice(last));
  return out;
}

type Path = (string | number)[];

/** Every place in the value, the root included, in a stable order. */
function placesOf(value: unknown): Path[] {
  const out: Path[] = [[]];
  const visit = (node: unknown, path: Path) => {
    const children: [string | number, unknown][] = Array.isArray(node) ? node.map((child, i) => [i, child]) : node && typeof node === "object" ? Object.entries(node) : [];
    for (const [key, child] of children) {
      out.push([...path, key]);
      visit(child, [...path, key]);
    }
  };
  visit(value, []);
  return out;
}

function objectPlaces(value: unknown): Path[] {
  return placesOf(value).filter((p) => {
    const node = at(value, p);
    return node !== null && typeof node === "object" && !Array.isArray(node);
  });
}

function at(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)?.[key], value);
}

function clone(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function replaceAt(value: unknown, pick: number, replacement: unknown): unknown {
  const places = placesOf(value);
  const path = places[pick % places.length]!;
  if (path.length === 0) return replacement;
  const copy = clone(value);
  (at(copy, path.slice(0, -1)) as Record<string | number, unknown>)[path[path.length - 1]!] = replacement;
  return copy;
}

function removeAt(value: unknown, pick: number): unknown {
  const candidates = objectPlaces(value).filter((p) => Object.keys(at(value, p) as object).length > 0);
  if (candidates.length === 0) return {};
  const copy = clone(value);
  const target = at(copy, candidates[pick % candidates.length]!) as Record<string, unknown>;
  const keys = Object.keys(target);
  delete target[keys[(pick >> 4) % keys.length]!];
  return copy;
}

/** Adds an own property, `__proto__` included (defined, not assigned, so JSON.stringify writes it). */
function addKeyAt(value: unknown, pick: number, key: string, child: unknown): unknown {
  const copy = clone(value);
  const places = objectPlaces(copy);
  const target = (places.length > 0 ? at(copy, places[pick % places.length]!) : copy) as object;
  if (target === null || typeof target !== "object") return { [key]: child };
  Object.defineProperty(target, key, { value: child, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** An existing key spelt differently (case, a dropped letter), or a new name. */
function misspelling(value: unknown, pick: number): string {
  const keys = objectPlaces(value).flatMap((p) => Object.keys(at(value, p) as object));
  if (keys.length === 0 || pick % 4 === 0) return `unknown${pick % 100}`;
  const key = keys[pick % keys.length]!;
  return pick % 2 === 0 ? key.toLowerCase() + (key === key.toLowerCase() ? "_" : "") : key.slice(0, -1);
}

/** The bytes of a plan's pieces. */
export function materialize(pieces: Piece[]): Buffer {
  return Buffer.concat(pieces.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : "bytes" in p ? Buffer.from(p.bytes) : Buffer.from(p.repeat.repeat(Math.floor(p.count)), "utf8"))));
}
