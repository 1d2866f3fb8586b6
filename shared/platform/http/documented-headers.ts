import { EXAMPLE_META, EXAMPLE_SERVICE_ACCOUNT_ID } from "./examples";
import { SESSION_COOKIE } from "../auth/portal-session";

/** A header as the OpenAPI document describes it: what it means, its schema, an example value. */
export interface HeaderDefinition {
  description: string;
  schema: Record<string, unknown>;
  example: string | number;
}

/** A version of a resource: opaque, the store's own (quoted, as an entity tag, where the store quotes it); sent back unchanged. */
const ENTITY_TAG = { type: "string", minLength: 1 };

/**
 * The response headers the service sends, for the OpenAPI document's `components.headers`. The
 * pipeline's own (`X-Request-Id`, `Cache-Control`, `RateLimit-*`, `Retry-After`, `WWW-Authenticate`)
 * are documented on every operation by the generator; the others are named by the routes whose
 * answers carry them (`Route.responseHeaders`).
 */
export const standardHeaders = {
  "X-Request-Id": {
    description: "The request's id: `meta.requestId` of an answer, `requestId` of a problem. Quote it when reporting a problem.",
    schema: { type: "string", format: "uuid" },
    example: EXAMPLE_META.requestId,
  },
  "Cache-Control": {
    description: "`no-store` on every answer that carries the caller's data; `public, max-age=<seconds>` on the reference documents.",
    schema: { type: "string" },
    example: "no-store",
  },
  "RateLimit-Limit": {
    description: "The caller's request budget: how many requests it may send at once (a token bucket per credential, per person, or per address before authentication).",
    schema: { type: "integer", minimum: 1 },
    example: 100,
  },
  "RateLimit-Remaining": {
    description: "Requests left in the budget after this one.",
    schema: { type: "integer", minimum: 0 },
    example: 99,
  },
  "RateLimit-Reset": {
    description: "Seconds until the budget is full again.",
    schema: { type: "integer", minimum: 0 },
    example: 1,
  },
  "Retry-After": {
    description:
      "Seconds to wait before trying again: the rate limit's refill, an upstream system's own `Retry-After` relayed, an open circuit breaker's cool-down, or a request with the same `Idempotency-Key` still in progress. Sent when known.",
    schema: { type: "integer", minimum: 0 },
    example: 2,
  },
  "WWW-Authenticate": {
    description: "The scheme to authenticate with (RFC 9110): `Basic` for service accounts; for the portal, the session cookie and where a browser signs in.",
    schema: { type: "string" },
    example: 'Basic realm="api", charset="UTF-8"',
  },
  ETag: {
    description: "The version of the resource as this answer shows it, opaque. Send it back unchanged in `If-Match` to change it only while it is still that version.",
    schema: ENTITY_TAG,
    example: '"3"',
  },
  Location: {
    description: "Where the resource this answer names is, or where a browser goes next.",
    schema: { type: "string", format: "uri-reference" },
    example: `https://secops.contoso-mssp.example/api/v2/service-accounts/${EXAMPLE_SERVICE_ACCOUNT_ID}`,
  },
  "Set-Cookie": {
    description: `The portal's cookies (RFC 6265): the session (\`${SESSION_COOKIE}\`) and the sign-in in progress, set or cleared. One header per cookie.`,
    schema: { type: "string" },
    example: `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`,
  },
  "Content-Disposition": {
    description: "`attachment`, with the file name (RFC 6266: an ASCII `filename` and the exact `filename*=UTF-8''…`).",
    schema: { type: "string" },
    example: "attachment; filename=\"phishing-triage.md\"; filename*=UTF-8''phishing-triage.md",
  },
  "X-Content-Type-Options": {
    description: "`nosniff`: browsers keep to the media type given.",
    schema: { type: "string", const: "nosniff" },
    example: "nosniff",
  },
  "Idempotent-Replayed": {
    description:
      "`true` on an answer given again to a request repeated with its `Idempotency-Key`: the first request's status, body and headers, nothing carried out anew.",
    schema: { type: "string", const: "true" },
    example: "true",
  },
  "Content-Security-Policy": {
    description: "What a browser may load and run while showing the answer.",
    schema: { type: "string" },
    example: "default-src 'none'; sandbox",
  },
} satisfies Record<string, HeaderDefinition>;

export type StandardHeaderName = keyof typeof standardHeaders;

/**
 * A header a route's answers carry beside the pipeline's. By name alone (a standard header, on every
 * success answer), or with `status` (on that status only; a problem status too), `when` (sent on some
 * of those answers only: the condition, completing "Sent when …") and, for a header of the route's
 * own, its `definition`.
 */
export type DeclaredHeader =
  | StandardHeaderName
  | { name: StandardHeaderName; status?: number; when?: string }
  | { name: string; definition: HeaderDefinition; status?: number; when?: string };

/** `If-Match`: the request parameter of every route that honours it (`Route.ifMatch`). */
export const IF_MATCH_PARAMETER = {
  name: "If-Match",
  in: "header",
  required: false,
  description:
    "Change the resource only if it is still the version you read: its `ETag` (or several, comma-separated; `*` matches any). " +
    "Another version answers 409 `CONFLICT` with `target` `If-Match`; read it again. Without the header the change applies to whatever version is current.",
  // An example in the schema, not the parameter's own: a reference page pre-fills a parameter's
  // example, and a made-up version would only ever be refused.
  schema: { ...ENTITY_TAG, examples: ['"3"'] },
};

/**
 * `Idempotency-Key`: the request parameter of every route that creates or starts something
 * (`Route.idempotencyKey`); its rules are `idempotency.ts`'s.
 */
export const IDEMPOTENCY_KEY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: [
    "Makes this request safe to send again: send a new random key (a UUID) with each new request, and the same key when you repeat one whose answer you did not get (a timeout, a dropped connection).",
    "Within 24 hours of the key's first request, the same caller (the credential's service account, or the signed-in person, in its organization) sending the key again with the same method, path, query and body gets the first answer again — its status, body, `Location` and other headers, with `Idempotent-Replayed: true` — and nothing is done twice.",
    "While the first request is still being carried out, a repeat is answered 409 `IDEMPOTENCY_KEY_IN_USE` with `Retry-After`: send it again then. The key with another request is 422 `IDEMPOTENCY_KEY_REUSED`. Only a success is kept: after an error, or a refusal, the same key may be sent again, corrected or not, and is carried out afresh.",
    'The key is 1 to 255 printable ASCII characters, sent bare or as a quoted string (`"…"`, RFC 8941); anything else is 400 `VALIDATION_ERROR` with `target` `Idempotency-Key`. Keys are the caller\'s own: no one else can send yours.',
  ].join("\n\n"),
  schema: { type: "string", minLength: 1, maxLength: 257, examples: ['"8e03978e-40d5-43e8-bc93-6894a57f9324"'] },
};

/** `X-CSRF-Token`: required on every portal change. */
export const CSRF_PARAMETER = {
  name: "X-CSRF-Token",
  in: "header",
  required: true,
  description: "The session's CSRF token (`GET /portal/me`, `csrfToken`).",
  schema: { type: "string", examples: ["9cQ1mXbq0mB4t2fZr7yK3dH8sWn5vLpA6eUoJiGhTcE"] },
};
