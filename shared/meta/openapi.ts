import { z } from "zod";
import { errorCodes, type ErrorCode } from "../http/api-error";
import { paginationSchema } from "../http/paging";
import { ERROR_REFERENCE_PATH } from "../http/problem";
import type { Route } from "../http/route";
import { API_PREFIX } from "../http/router";

type JsonSchema = Record<string, unknown>;

/** Errors every authenticated operation can answer with, beside its own. */
const COMMON_ERRORS: ErrorCode[] = ["BAD_REQUEST", "UNAUTHORIZED", "INSUFFICIENT_SCOPE", "NOT_FOUND", "RATE_LIMITED", "INTERNAL_ERROR"];

/**
 * The OpenAPI 3.1 document ("machine-readable contract", version 2.0), generated from the route
 * tables and their zod schemas so that it cannot drift from what is served.
 */
export function buildOpenApi(routes: readonly Route[], origin: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    if (route.hidden) continue;
    const path = API_PREFIX + route.path;
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route);
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
    components: {
      securitySchemes: { basicAuth: { type: "http", scheme: "basic" } },
      schemas: { Problem: problemSchema(), Meta: metaSchema() },
    },
  };
}

function operation(route: Route): JsonSchema {
  const isPublic = route.auth === "public";
  const op: JsonSchema = {
    operationId: operationId(route),
    summary: route.summary,
    tags: [route.tag],
    description: isPublic ? "No authentication." : `Scope: \`${route.auth}\`.`,
    parameters: [...parameters(route.params, "path"), ...parameters(route.query, "query")],
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
  const status = String(route.successStatus ?? 200);
  if (status === "204") {
    out[status] = { description: "Done; no body." };
  } else if (route.auth === "public" && route.response === undefined) {
    out[status] = { description: "A document." };
  } else {
    const envelope: JsonSchema = {
      type: "object",
      properties: {
        data: route.response ? schemaOf(route.response, "output") : {},
        meta: { $ref: "#/components/schemas/Meta" },
        ...(route.paginated ? { pagination: schemaOf(paginationSchema, "output") } : {}),
      },
      required: ["data", "meta", ...(route.paginated ? ["pagination"] : [])],
    };
    out[status] = { description: "Success", content: { "application/json": { schema: envelope } } };
  }
  const codes = new Set<ErrorCode>(route.auth === "public" ? ["NOT_FOUND", "RATE_LIMITED", "INTERNAL_ERROR"] : COMMON_ERRORS);
  if (route.params || route.query || route.body) codes.add("VALIDATION_ERROR");
  if (route.body) codes.add("UNSUPPORTED_MEDIA_TYPE");
  if (route.method !== "GET") codes.add("CONFLICT").add("FORBIDDEN");
  if (route.path.includes("{workspaceId}")) codes.add("INSUFFICIENT_WORKSPACE_ROLE");
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const s = errorCodes[code].status;
    byStatus.set(s, [...(byStatus.get(s) ?? []), code]);
  }
  for (const [s, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(s)] = {
      description: `Problem: ${list.join(", ")}`,
      content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
    };
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
  return json;
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
