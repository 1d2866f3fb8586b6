import { z } from "zod";
import { API_KEY_HEADER } from "../delivery/delivery-worker";
import { eventCatalogue, eventEnvelopeOf, webhookHeaders } from "../events/event-catalogue";
import { eventTypes } from "../events/event-types";
import { errorCodes, type ErrorCode } from "../errors/api-error";
import { paginationSchema } from "../http/paging";
import { ERROR_REFERENCE_PATH } from "../http/problem";
import type { Route } from "../http/route";
import { API_PREFIX } from "../http/router";

type JsonSchema = Record<string, unknown>;

/**
 * Errors every authenticated operation can answer with, beside its own. Every one reads a store,
 * whose failures are upstream failures (UPSTREAM_ERROR, TIMEOUT) as much as a vendor's.
 */
const COMMON_ERRORS: ErrorCode[] = ["BAD_REQUEST", "UNAUTHORIZED", "INSUFFICIENT_SCOPE", "NOT_FOUND", "RATE_LIMITED", "INTERNAL_ERROR", "UPSTREAM_ERROR", "TIMEOUT"];

type DocumentedProblem = { code: ErrorCode; status: number };

/**
 * The OpenAPI 3.1 document ("machine-readable contract", version 2.0), generated from the route
 * tables and their zod schemas so that it cannot drift from what is served.
 */
export function buildOpenApi(routes: readonly Route[], origin: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  // Templates that differ only in parameter names (`/users/{userId}`, `/users/{id}`) are one path in
  // OpenAPI 3.1, which forbids both: the first spelling names the path, the others are renamed to it.
  const pathOfShape = new Map<string, string>();
  for (const route of routes) {
    if (route.hidden) continue;
    const shape = route.path.replace(/\{[^}]+\}/g, "{}");
    const path = pathOfShape.get(shape) ?? API_PREFIX + route.path;
    pathOfShape.set(shape, path);
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route, parameterRenames(API_PREFIX + route.path, path));
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Security Operations Management API",
      version: "2.0",
      description:
        "Incidents from several detection vendors, gamebooks, and signed webhook events. Every request " +
        "authenticates with HTTP Basic (service account id and client secret). Errors are RFC 7807 " +
        `problem documents; see ${ERROR_REFERENCE_PATH} for the codes.`,
    },
    servers: [{ url: origin }],
    security: [{ basicAuth: [] }],
    paths,
    webhooks: eventWebhooks(),
    components: {
      securitySchemes: { basicAuth: { type: "http", scheme: "basic" }, ...WEBHOOK_SECURITY_SCHEMES },
      schemas: { Problem: problemSchema(), Meta: metaSchema() },
    },
  };
}

/** Route parameter name → the name the documented path uses at the same position. */
function parameterRenames(routePath: string, documentedPath: string): Map<string, string> {
  const a = routePath.split("/");
  const b = documentedPath.split("/");
  const renames = new Map<string, string>();
  a.forEach((segment, i) => {
    if (segment.startsWith("{") && segment !== b[i]) renames.set(segment.slice(1, -1), b[i]!.slice(1, -1));
  });
  return renames;
}

function operation(route: Route, renames: Map<string, string>): JsonSchema {
  const isPublic = route.auth === "public";
  const pathParameters = parameters(route.params, "path").map((p) => {
    const documented = renames.get(p.name as string);
    return documented ? { ...p, name: documented, description: `${(p.description as string | undefined) ?? ""} (\`${p.name as string}\` in the route table)`.trim() } : p;
  });
  const op: JsonSchema = {
    operationId: operationId(route),
    summary: route.summary,
    tags: [route.tag],
    description: [isPublic ? "No authentication." : `Scope: \`${route.auth}\`.`, route.description].filter(Boolean).join("\n\n"),
    parameters: [...pathParameters, ...parameters(route.query, "query")],
    responses: responses(route),
  };
  if (isPublic) op.security = [];
  else op["x-required-scope"] = route.auth;
  if (route.body) {
    op.requestBody = { required: true, content: { "application/json": { schema: schemaOf(route.body, "input") } } };
  }
  return op;
}

function responses(route: Route): JsonSchema {
  const out: JsonSchema = {};
  for (const status of [route.successStatus ?? 200].flat()) out[String(status)] = success(route, status);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const { code, status } of documentedProblems(route)) {
    const list = byStatus.get(status) ?? [];
    if (!list.includes(code)) byStatus.set(status, [...list, code]);
  }
  for (const [s, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(s)] = {
      description: `Problem: ${list.join(", ")}`,
      content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
    };
  }
  return out;
}

function success(route: Route, status: number): JsonSchema {
  if (status === 204) return { description: "Done; no body." };
  if (route.auth === "public" && route.response === undefined) return { description: "A document." };
  // Contract 2.1's exception: the body is the response schema itself, with no envelope.
  if (route.bare) return { description: "Success (no envelope)", content: { "application/json": { schema: route.response ? schemaOf(route.response, "output") : {} } } };
  const envelope: JsonSchema = {
    type: "object",
    properties: {
      data: route.response ? schemaOf(route.response, "output") : {},
      meta: { $ref: "#/components/schemas/Meta" },
      ...(route.paginated ? { pagination: schemaOf(paginationSchema, "output") } : {}),
    },
    required: ["data", "meta", ...(route.paginated ? ["pagination"] : [])],
  };
  return { description: "Success", content: { "application/json": { schema: envelope } } };
}

/** Every problem the operation can answer with: the common ones, those its inputs imply, and its own. */
function documentedProblems(route: Route): DocumentedProblem[] {
  const codes = new Set<ErrorCode>(route.auth === "public" ? ["NOT_FOUND", "RATE_LIMITED", "INTERNAL_ERROR"] : COMMON_ERRORS);
  if (route.params || route.query || route.body) codes.add("VALIDATION_ERROR");
  if (route.body) codes.add("UNSUPPORTED_MEDIA_TYPE");
  if (route.method !== "GET") codes.add("CONFLICT").add("FORBIDDEN");
  if (route.path.includes("{workspaceId}")) codes.add("INSUFFICIENT_WORKSPACE_ROLE");
  const out: DocumentedProblem[] = [...codes].map((code) => ({ code, status: errorCodes[code].status }));
  // A body over MAX_REQUEST_BODY_BYTES: the table has no code of its own for it.
  if (route.body) out.push({ code: "BAD_REQUEST", status: 413 });
  for (const extra of route.problems ?? []) {
    out.push(typeof extra === "string" ? { code: extra, status: errorCodes[extra].status } : extra);
  }
  return out;
}

function parameters(schema: z.ZodType | undefined, where: "path" | "query"): JsonSchema[] {
  if (!schema) return [];
  const shape = objectShape(schema);
  return Object.entries(shape).map(([name, field]) => {
    const param: JsonSchema = {
      name,
      in: where,
      required: where === "path" || !field.safeParse(undefined).success,
      schema: schemaOf(field, "input"),
    };
    if (field.description) param.description = field.description;
    const examples = z.globalRegistry.get(field)?.examples;
    if (Array.isArray(examples) && examples.length > 0) param.example = examples[0];
    return param;
  });
}

function objectShape(schema: z.ZodType): Record<string, z.ZodType> {
  if (schema instanceof z.ZodObject) return schema.shape as Record<string, z.ZodType>;
  throw new Error("Path and query schemas must be zod objects");
}

function schemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  delete json.$schema;
  // zod leaves a schema's own examples out when a field inside it transforms (a case-insensitive
  // source, say): the examples of a body, a response or a parameter are put back here.
  const examples = z.globalRegistry.get(schema)?.examples;
  if (examples !== undefined && json.examples === undefined) json.examples = examples;
  return json;
}

/** How the service authenticates to a webhook endpoint, per its `authenticationType` (None: nothing). */
const WEBHOOK_SECURITY_SCHEMES: Record<string, JsonSchema> = {
  webhookBearer: { type: "http", scheme: "bearer", description: "authenticationType Bearer: `Authorization: Bearer <token>`." },
  webhookBasic: { type: "http", scheme: "basic", description: "authenticationType Basic: `Authorization: Basic base64(<token>)`, the token being `user:password`." },
  webhookApiKey: { type: "apiKey", in: "header", name: API_KEY_HEADER, description: "authenticationType ApiKey: the token in this header." },
};

/** Headers described by the security schemes rather than as parameters. */
const WEBHOOK_SECURITY_HEADERS = new Set(["authorization", API_KEY_HEADER.toLowerCase()]);

const WEBHOOK_DESCRIPTION = [
  "Sent by the service to the webhook's HTTPS endpoint as signed JSON: the envelope `{id, type, occurredAt, data}` (plus `isTest: true` on test events). Fields may be added within a version: ignore unknown fields.",
  "",
  "Signatures (both schemes on every delivery; verify either, over the exact raw body, envelope included):",
  '- `X-Svc-Timestamp: <unix seconds>`, `X-Svc-Signature: v1=<hex HMAC-SHA256(key, "<ts>.<raw body>")>`;',
  '- Standard Webhooks: `webhook-id` (= event id), `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<ts>.<raw body>")>`.',
  "The key is the base64-decoded part of the `whsec_` secret shown once at creation, or the UTF-8 bytes of an override signing token. During a rotation both keys sign and each signature header carries two space-separated entries.",
  "",
  "Also sent: `X-Svc-Event-Id` (same on every retry; deduplicate on it), `X-Svc-Event-Type`, `X-Svc-Schema` (ignore unknown values), `X-Svc-Test: true` on test events, and the endpoint credential: `Authorization: Bearer <token>` (Bearer), `Authorization: Basic base64(user:password)` (Basic) or `X-Api-Key: <token>` (ApiKey).",
  "",
  "Delivery is at-least-once: up to 10 attempts within 5 minutes, 30 s apart (a longer `Retry-After` is honoured), on 408, 429, 500, 502, 503, 504, timeouts and connection errors. Redirects are not followed. Answer within 30 seconds.",
].join("\n");

/** Contract 6: every event type as an OpenAPI 3.1 webhook whose body is the envelope with that type's data. */
function eventWebhooks(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const type of eventTypes) {
    const schema = z.toJSONSchema(eventEnvelopeOf(type), {
      io: "output",
      unrepresentable: "any",
      // The catalogue is strict to keep itself complete; receivers must still accept added fields.
      override: (ctx) => {
        if (ctx.jsonSchema.additionalProperties === false) delete ctx.jsonSchema.additionalProperties;
        // `format: date-time` says it; zod's long regex beside it only makes the document harder to read.
        if (ctx.jsonSchema.format === "date-time") delete ctx.jsonSchema.pattern;
      },
    }) as JsonSchema;
    delete schema.$schema;
    out[type] = {
      post: {
        operationId: "event" + type.replace(/(^|[.])(\w)/g, (_, __, c: string) => c.toUpperCase()),
        summary: eventCatalogue[type].summary,
        description: WEBHOOK_DESCRIPTION,
        tags: ["Events"],
        security: [{}, { webhookBearer: [] }, { webhookBasic: [] }, { webhookApiKey: [] }],
        parameters: webhookHeaders
          .filter((h) => !WEBHOOK_SECURITY_HEADERS.has(h.name.toLowerCase()))
          .map((h) => ({ name: h.name, in: "header", required: h.required, description: h.description, schema: { type: "string" } })),
        requestBody: { required: true, content: { "application/json": { schema } } },
        responses: {
          "2XX": { description: "Received. Any 2xx ends the delivery; the body is read up to 1 MB and discarded." },
          default: { description: "408, 429, 500, 502, 503 and 504 are retried; any other status, 3xx included, fails the delivery." },
        },
      },
    };
  }
  return out;
}

function operationId(route: Route): string {
  const words = route.path
    .split("/")
    .filter(Boolean)
    .map((s) => (s.startsWith("{") ? "by-" + s.slice(1, -1) : s));
  return [route.method.toLowerCase(), ...words]
    .join("-")
    .replace(/[-_]+(\w)/g, (_, c: string) => c.toUpperCase());
}

function problemSchema(): JsonSchema {
  return {
    type: "object",
    description: "RFC 7807 problem document. Clients switch on `code`; `title` and `detail` may be reworded.",
    properties: {
      type: { type: "string", format: "uri" },
      title: { type: "string" },
      status: { type: "integer" },
      detail: { type: "string" },
      instance: { type: "string" },
      code: { type: "string", enum: Object.keys(errorCodes) },
      requestId: { type: "string" },
      timestamp: { type: "string", format: "date-time" },
      target: { type: "string" },
      errors: {
        type: "object",
        additionalProperties: { type: "array", items: { type: "string" } },
        description: "JSON property path → messages; the empty key carries object-level errors.",
      },
    },
    required: ["type", "title", "status", "detail", "instance", "code", "requestId", "timestamp"],
  };
}

function metaSchema(): JsonSchema {
  return {
    type: "object",
    properties: { requestId: { type: "string" }, timestamp: { type: "string", format: "date-time" } },
    required: ["requestId", "timestamp"],
  };
}
