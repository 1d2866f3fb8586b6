import { z } from "zod";
import { LIVENESS_PATH } from "./pipeline";
import { DELIVERY_USER_AGENT } from "../delivery/delivery-worker";
import { API_KEY_HEADER } from "../../model/webhooks/webhook";
import { eventCatalogue, eventEnvelopeOf, webhookHeaders } from "../../model/events/event-catalogue";
import { eventTypes } from "../../model/events/event-types";
import { errorCodes, type ErrorCode } from "../errors/api-error";
import { exampleDetail } from "../errors/error-codes";
import { paginationSchema } from "./paging";
import { ERROR_REFERENCE_PATH, problemType } from "./problem";
import type { Route } from "./route";
import { SESSION_COOKIE } from "../auth/portal-session";
import { API_PREFIX } from "./router";
import { EXAMPLE_META, EXAMPLE_UNAVAILABLE_STREAMS, EXAMPLE_UNAVAILABLE_WORKSPACES } from "./examples";
import { partialMeta } from "./partial-results";
import { CSRF_PARAMETER, IDEMPOTENCY_KEY_PARAMETER, IF_MATCH_PARAMETER, standardHeaders, type DeclaredHeader, type HeaderDefinition } from "./documented-headers";

type JsonSchema = Record<string, unknown>;

/**
 * Problems every authenticated operation can answer with, beside those its inputs and its own work
 * imply. Authenticating reads the credential store, whose failures are upstream failures.
 */
const AUTHENTICATED_PROBLEMS: ErrorCode[] = ["UNAUTHORIZED", "INSUFFICIENT_SCOPE", "RATE_LIMITED", "INTERNAL_ERROR", "UPSTREAM_ERROR", "TIMEOUT"];
/** Public operations read nothing but the route table. */
const PUBLIC_PROBLEMS: ErrorCode[] = ["RATE_LIMITED", "INTERNAL_ERROR", "TIMEOUT"];
/**
 * Portal operations: no session (401); service-account credentials, a role that may not, or a change
 * without its CSRF token (403 FORBIDDEN); a sign-in without MFA; a person the service does not know.
 */
const PERSON_PROBLEMS: ErrorCode[] = ["UNAUTHORIZED", "FORBIDDEN", "MFA_REQUIRED", "USER_NOT_REGISTERED", "RATE_LIMITED", "INTERNAL_ERROR", "UPSTREAM_ERROR", "TIMEOUT"];

/** What each tag of operations is about, for the reference page's section headings. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Incidents: "Incidents of the detection vendors (sources), read live, with the service's own state: status, assignee, SLA.",
  Gamebooks: "Ordered runs of playbooks against an incident: submit, follow and read their history.",
  "Data sources": "The data connectors feeding a workspace and their ingestion anomalies.",
  Tickets: "ITSM tickets linked to incidents.",
  Investigation: "A user's sign-in and directory audit logs, for an investigation.",
  Audit: "The workspace's audit trail, for export.",
  "Agent tools": "What the query tool of an AI agent may read.",
  Webhooks: "Signed event delivery to your HTTPS endpoints, and its delivery log.",
  "Service accounts": "The credentials integrations call this API with.",
  Users: "The people of your organization.",
  "Cloud resources": "Subscriptions, resource groups and workspaces the service can reach.",
  "Portal: sign-in": "People sign in with OpenID Connect (Microsoft Entra ID) and get a browser session. Not for service accounts.",
  "Portal: approvals": "Gamebook runs waiting for a person: the queue across workspaces, what approving will do, approve or deny; the approval policy.",
  "Portal: organizations": "A service provider's customer organizations: create, rename, deactivate; the partner approval setting; offboarded workspaces' audit trails.",
  "Portal: workspaces": "Onboarding and offboarding workspaces, their per-source settings (on or off, the vendor's identifier, their own bridge) and integrations.",
  "Portal: people": "The organization's people: their organizational and workspace roles, activation, and their sessions. UserAdmin.",
  "Portal: content": "A workspace's playbook catalogue and gamebook rules: OrgContentOperator reads them, OrgContentAdmin changes them.",
  "Portal: agents": "The investigation agent's classification cards and the webhooks they name: AgentAdmin.",
  "Portal: SOPs": "The workspace's standard operating procedures, as uploaded documents: AgentAdmin uploads and deletes, anyone on the workspace reads.",
  "Portal: incidents": "Incidents across the workspaces a person may see, with the contract's filters and page tokens, and one incident with its comments, its gamebook runs and related incidents.",
  "Portal: incident runs":
    "Playbook runs from an incident: what can run on it, whether a run would wait for approval, the run itself as the person, and retry, cancel and undo of a run. Service accounts cannot retry or cancel: those are a person's decisions.",
  "Portal: service accounts": "The organization's service accounts and their credentials, each secret shown once: UserAdmin manages them, WorkspaceAdmin reads them.",
  "Portal: webhooks": "The organization's webhooks and their health: delivery figures over 24 hours and 7 days, latency, last failures, a chart and the filtered delivery log; pause, resume, enable and redelivery (WorkspaceAdmin).",
  "Portal: history": "What happened, read-only: decided approval requests and what ran, gamebook runs across the workspaces a person sees, and the organization's audit trail (Admin, UserAdmin, WorkspaceAdmin).",
  Reference: "This document, its reading page and the error reference.",
  Events: "What the service sends to your webhooks (OpenAPI webhooks).",
};

type DocumentedProblem = { code: ErrorCode; status: number };

/**
 * The OpenAPI 3.1 document ("machine-readable contract", version 2.0), generated from the route
 * tables and their zod schemas so that it cannot drift from what is served.
 */
export function buildOpenApi(routes: readonly Route[], origin: string): JsonSchema {
  const components = new Components();
  const paths: Record<string, Record<string, JsonSchema>> = {};
  // Templates that differ only in parameter names (`/users/{userId}`, `/users/{id}`) are one path in
  // OpenAPI 3.1, which forbids both: the first spelling names the path, the others are renamed to it.
  const pathOfShape = new Map<string, string>();
  for (const route of routes) {
    if (route.hidden) continue;
    const shape = route.path.replace(/\{[^}]+\}/g, "{}");
    const path = pathOfShape.get(shape) ?? API_PREFIX + route.path;
    pathOfShape.set(shape, path);
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route, parameterRenames(API_PREFIX + route.path, path), origin, components);
  }
  const tags = [...new Set([...routes.filter((r) => !r.hidden).map((r) => r.tag), "Events"])];
  return {
    openapi: "3.1.0",
    info: {
      title: "Security Operations Management API",
      version: "2.0",
      description:
        "Incidents from several detection vendors, gamebooks, and signed webhook events. Every request " +
        "authenticates with HTTP Basic: the service account id (`clientId`) as the user name and its client " +
        `secret as the password. Errors are RFC 7807 problem documents; see ${ERROR_REFERENCE_PATH} for the codes. ` +
        "Answers of 1 KiB or more come compressed (`Content-Encoding` `br` or `gzip`, `Vary: Accept-Encoding`) when `Accept-Encoding` allows it; " +
        "an `ETag` is the resource's version in every coding.",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    // Self-hosted: every deployment serves its own document, so the server is wherever it came from.
    servers: [{ url: "/", description: "This deployment: the origin this document was served from." }],
    security: [{ basicAuth: [] }],
    tags: tags.map((name) => (TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name })),
    paths,
    webhooks: eventWebhooks(components),
    components: {
      securitySchemes: {
        basicAuth: {
          type: "http",
          scheme: "basic",
          description: "User name: the service account id (`clientId`). Password: a client secret of that service account (shown once, when the service account or the credential is created).",
        },
        portalSession: {
          type: "apiKey",
          in: "cookie",
          name: SESSION_COOKIE,
          description:
            `The portal's browser session, set by the sign-in (\`GET ${API_PREFIX}/portal/auth/sign-in\`). Portal operations refuse service-account credentials. ` +
            "Every change (POST, PUT, PATCH, DELETE) also sends the session's CSRF token (`GET /portal/me`, `csrfToken`) in the `X-CSRF-Token` header.",
        },
      },
      schemas: { Problem: problemSchema(), Meta: metaSchema() },
      headers: components.headers,
      parameters: components.parameters,
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

function operation(route: Route, renames: Map<string, string>, origin: string, components: Components): JsonSchema {
  const isPublic = route.auth === "public";
  const isPortal = route.auth === "session";
  const pathParameters = parameters(route.params, "path").map((p) => {
    const documented = renames.get(p.name as string);
    return documented ? { ...p, name: documented, description: `${(p.description as string | undefined) ?? ""} (\`${p.name as string}\` in the route table)`.trim() } : p;
  });
  const op: JsonSchema = {
    operationId: operationId(route),
    summary: route.summary,
    tags: [route.tag],
    description: [isPublic ? "No authentication." : isPortal ? portalAccess(route) : `Scope: \`${route.auth}\`.`, route.description].filter(Boolean).join("\n\n"),
    parameters: [...pathParameters, ...parameters(route.query, "query")],
    responses: responses(route, origin, exampleInstance(API_PREFIX + route.path, pathParameters), components),
  };
  if (route.ifMatch) op.parameters = [...(op.parameters as JsonSchema[]), components.parameter(IF_MATCH_PARAMETER)];
  if (route.idempotencyKey) op.parameters = [...(op.parameters as JsonSchema[]), components.parameter(IDEMPOTENCY_KEY_PARAMETER)];
  if (isPublic) op.security = [];
  else if (isPortal) {
    op.security = [{ portalSession: [] }];
    if (route.roles) op["x-required-roles"] = route.roles;
    if (route.workspaceRole) op["x-required-workspace-role"] = route.workspaceRole;
    if (route.adminWithoutWorkspaceRole) op["x-admin-without-workspace-role"] = true;
    if (route.method !== "GET") op.parameters = [...(op.parameters as JsonSchema[]), components.parameter(CSRF_PARAMETER)];
  } else op["x-required-scope"] = route.auth;
  if (route.body) {
    const mediaType = route.multipart ? "multipart/form-data" : "application/json";
    op.requestBody = { required: true, content: { [mediaType]: { schema: schemaOf(route.body, "input") } } };
  }
  return op;
}

/** The access line of a portal operation: who may call it. */
function portalAccess(route: Route): string {
  const roles = route.roles ? `Organizational role: ${route.roles.map((r) => `\`${r}\``).join(", ")}.` : "Any registered person.";
  const workspace =
    route.kind !== "personWorkspace"
      ? ""
      : route.workspaceRole
        ? ` Workspace role: \`${route.workspaceRole}\`${route.adminWithoutWorkspaceRole ? ", or the organizational role `Admin`" : ""}.`
        : " A role on the workspace, or an organization-wide role (`Admin`, `WorkspaceAdmin`).";
  return `Portal session (people only). ${roles}${workspace}`;
}

function responses(route: Route, origin: string, instance: string, components: Components): JsonSchema {
  const out: JsonSchema = {};
  for (const status of [route.successStatus ?? 200].flat()) {
    const response = success(route, status, components);
    out[String(status)] = { ...response, headers: { ...answerHeaders(route, status, components), ...(response.headers as JsonSchema | undefined) } };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const { code, status } of documentedProblems(route)) {
    const list = byStatus.get(status) ?? [];
    if (!list.includes(code)) byStatus.set(status, [...list, code]);
  }
  for (const [s, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(s)] = {
      description: `Problem: ${list.join(", ")}`,
      headers: answerHeaders(route, s, components),
      content: {
        "application/problem+json": {
          schema: { $ref: "#/components/schemas/Problem" },
          // One example per code, so a reader (and a client generator) sees each as it is sent.
          examples: Object.fromEntries(list.map((code) => [code, { summary: errorCodes[code].title, value: problemExample(route, code, s, origin, instance) }])),
        },
      },
    };
  }
  return out;
}

function success(route: Route, status: number, components: Components): JsonSchema {
  if (status === 204) return { description: "Done; no body." };
  if (status === 303) {
    return { description: "See Other: the browser goes on to `Location`.", headers: { Location: components.header("Location", true, "Where the browser goes next.") } };
  }
  if (route.rawMediaTypes) {
    return {
      description: "The document's bytes, as uploaded, in its media type.",
      headers: Object.fromEntries((["Content-Disposition", "X-Content-Type-Options"] as const).map((name) => [name, components.header(name, true)])),
      content: Object.fromEntries(route.rawMediaTypes.map((type) => [type, { schema: { type: "string", format: "binary" } }])),
    };
  }
  if (route.auth === "public" && route.response === undefined) return { description: "A document." };
  // docs/contract.md §2.1's exception: the body is the response schema itself, with no envelope.
  if (route.bare) return { description: "Success (no envelope)", content: { "application/json": { schema: route.response ? schemaOf(route.response, "output") : {} } } };
  const data = route.response ? schemaOf(route.response, "output") : {};
  const envelope: JsonSchema = {
    type: "object",
    properties: {
      data,
      meta: route.partial ? schemaOf(partialMeta, "output") : { $ref: "#/components/schemas/Meta" },
      ...(route.paginated ? { pagination: schemaOf(paginationSchema, "output") } : {}),
    },
    required: ["data", "meta", ...(route.paginated ? ["pagination"] : [])],
  };
  // The envelope's example wraps the data's, so the whole answer reads as it is sent.
  const examples = data.examples;
  if (Array.isArray(examples) && examples.length > 0) {
    const meta = route.partial ? { ...EXAMPLE_META, unavailable: route.partial === "streams" ? EXAMPLE_UNAVAILABLE_STREAMS : EXAMPLE_UNAVAILABLE_WORKSPACES } : EXAMPLE_META;
    envelope.examples = [{ data: examples[0], meta, ...(route.paginated ? { pagination: { hasMore: false } } : {}) }];
  }
  return { description: "Success", content: { "application/json": { schema: envelope } } };
}

/** Statuses whose answers may come before the caller is identified, without the rate-limit headers. */
const RATE_LIMIT_UNSURE: Record<number, string> = {
  413: "the body reached the API: a body announced too large with `Expect: 100-continue` is refused before that",
  429: "the caller's own budget ran out; a request shed because the instance is at its bound of requests in progress is refused before the caller is identified",
  500: "the service got as far as identifying the caller",
  504: "the caller was identified before the request's deadline passed",
};
/** Statuses that may say when to try again: the rate limit, an upstream system's own word, an open circuit breaker. */
const RETRY_AFTER_STATUSES = new Set([429, 502, 503, 504]);
const RATE_LIMIT_HEADERS = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"] as const;

/**
 * The headers of one documented answer: the pipeline's (on every answer: the request id, caching,
 * `nosniff`, the caller's rate limit; `Retry-After` where it may say when to try again; the scheme to
 * authenticate with on a 401 of an authenticated route), then those the route declares for the status.
 */
function answerHeaders(route: Route, status: number, components: Components): JsonSchema {
  const out: JsonSchema = {
    "X-Request-Id": components.header("X-Request-Id", true),
    "Cache-Control": components.header("Cache-Control", true),
    "X-Content-Type-Options": components.header("X-Content-Type-Options", true),
  };
  const unsure = RATE_LIMIT_UNSURE[status];
  for (const name of RATE_LIMIT_HEADERS) out[name] = components.header(name, unsure === undefined, unsure && `Sent when ${unsure}.`);
  if (RETRY_AFTER_STATUSES.has(status) || (status === 409 && route.idempotencyKey)) out["Retry-After"] = components.header("Retry-After", false);
  if (status === 401 && route.auth !== "public") out["WWW-Authenticate"] = components.header("WWW-Authenticate", true);
  const isSuccess = status < 400;
  if (isSuccess && route.idempotencyKey) {
    out["Idempotent-Replayed"] = components.header("Idempotent-Replayed", false, "Sent when the answer is the first request's, given again for its `Idempotency-Key`.");
  }
  for (const declared of route.responseHeaders ?? []) {
    const header: Exclude<DeclaredHeader, string> = typeof declared === "string" ? { name: declared } : declared;
    if (header.status === undefined ? !isSuccess : header.status !== status) continue;
    const definition = "definition" in header ? header.definition : undefined;
    out[header.name] = components.header(header.name, header.when === undefined, header.when && `Sent when ${header.when}.`, definition);
  }
  return out;
}

/**
 * The document's reusable headers and parameters, collected as the operations name them: a header is
 * a component per name, and per name a second one (`<name>.optional`) where it is sent on only some
 * of the answers of a status.
 */
class Components {
  readonly headers: Record<string, JsonSchema> = {};
  readonly parameters: Record<string, JsonSchema> = {};

  /** A reference to the header; `note` (when it is sent, what it holds here) is added before its description. */
  header(name: string, required: boolean, note?: string, definition?: HeaderDefinition): JsonSchema {
    const defined = definition ?? (standardHeaders as Record<string, HeaderDefinition>)[name];
    if (!defined) throw new Error(`The header ${name} is neither a standard header (documented-headers.ts) nor given a definition.`);
    if (definition && name in standardHeaders) throw new Error(`The header ${name} is a standard header: name it without a definition.`);
    const key = required ? name : `${name}.optional`;
    const component = { description: defined.description, required, schema: defined.schema, example: defined.example };
    const known = this.headers[key];
    if (known && JSON.stringify(known) !== JSON.stringify(component)) throw new Error(`The header ${name} is defined twice, differently.`);
    this.headers[key] = component;
    const ref = { $ref: `#/components/headers/${key}` };
    return note ? { ...ref, description: `${note} ${defined.description}` } : ref;
  }

  /** A reference to a request header parameter, under its name. */
  parameter(definition: JsonSchema): JsonSchema {
    const name = definition.name as string;
    const known = this.parameters[name];
    if (known && JSON.stringify(known) !== JSON.stringify(definition)) throw new Error(`The parameter ${name} is defined twice, differently.`);
    this.parameters[name] = definition;
    return { $ref: `#/components/parameters/${name}` };
  }
}

/**
 * Every problem the operation can answer with: those of authentication, those its inputs imply (a
 * path names something that may not exist, a body may be unreadable), and those the route declares
 * for its own work.
 */
function documentedProblems(route: Route): DocumentedProblem[] {
  const codes = new Set<ErrorCode>(route.auth === "public" ? PUBLIC_PROBLEMS : route.auth === "session" ? PERSON_PROBLEMS : AUTHENTICATED_PROBLEMS);
  // A public route's 429 is a request shed at the instance's bound; the liveness check is never shed.
  if (route.path === LIVENESS_PATH) codes.delete("RATE_LIMITED");
  if (route.params || route.query || route.body) codes.add("VALIDATION_ERROR");
  if (route.params) codes.add("NOT_FOUND");
  if (route.body) codes.add("BAD_REQUEST").add("UNSUPPORTED_MEDIA_TYPE");
  if (route.path.includes("{workspaceId}")) codes.add("INSUFFICIENT_WORKSPACE_ROLE");
  // A source may be switched off in a deployment (its endpoints then answer EXTENSION_NOT_ENABLED).
  if (route.path.includes("{source}")) codes.add("EXTENSION_NOT_ENABLED");
  // Another version than the one `If-Match` names.
  if (route.ifMatch) codes.add("CONFLICT");
  // A malformed key, a key still in use, a key sent with another request.
  if (route.idempotencyKey) codes.add("VALIDATION_ERROR").add("IDEMPOTENCY_KEY_IN_USE").add("IDEMPOTENCY_KEY_REUSED");
  const out: DocumentedProblem[] = [...codes].map((code) => ({ code, status: errorCodes[code].status }));
  // A body over MAX_REQUEST_BODY_BYTES: the table has no code of its own for it.
  if (route.body) out.push({ code: "BAD_REQUEST", status: 413 });
  for (const extra of route.problems ?? []) {
    out.push(typeof extra === "string" ? { code: extra, status: errorCodes[extra].status } : extra);
  }
  return out;
}

function problemExample(route: Route, code: ErrorCode, status: number, origin: string, instance: string): JsonSchema {
  const problem: JsonSchema = {
    type: problemType(origin, code),
    title: errorCodes[code].title,
    status,
    // The error-code table's example text for this code, at this status where it has one.
    detail: exampleDetail(code, status),
    instance,
    code,
    requestId: EXAMPLE_META.requestId,
    timestamp: EXAMPLE_META.timestamp,
  };
  if (code === "INSUFFICIENT_SCOPE" && route.auth !== "public" && route.auth !== "session") problem.target = route.auth;
  if (code === "VALIDATION_ERROR") {
    const field = firstInput(route);
    problem.errors = { [field]: [status === 422 ? "Cannot be carried out in its current state." : "Invalid input."] };
    if (field !== "") problem.target = field;
  }
  return problem;
}

/** The first input a caller fills (a body field, else a parameter), for a validation example. */
function firstInput(route: Route): string {
  for (const schema of [route.body, route.query, route.params]) {
    if (schema instanceof z.ZodObject) {
      const name = Object.keys(schema.shape as object)[0];
      if (name !== undefined) return name;
    }
  }
  return "";
}

/** The path of an example request: its parameters filled with their examples, where they have one. */
function exampleInstance(path: string, pathParameters: JsonSchema[]): string {
  return path.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const example = pathParameters.find((p) => p.name === name)?.example;
    return typeof example === "string" ? encodeURIComponent(example) : whole;
  });
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

/** Headers described in the webhooks' description (the endpoint credential) rather than as parameters. */
const WEBHOOK_CREDENTIAL_HEADERS = new Set(["authorization", API_KEY_HEADER.toLowerCase()]);

const WEBHOOK_DESCRIPTION = [
  "Sent by the service to the webhook's HTTPS endpoint as signed JSON: the envelope `{id, type, occurredAt, data}` (plus `isTest: true` on test events). Fields may be added within a version: ignore unknown fields.",
  "",
  "Signatures (both schemes on every delivery; verify either, over the exact raw body, envelope included):",
  '- `X-Svc-Timestamp: <unix seconds>`, `X-Svc-Signature: v1=<hex HMAC-SHA256(key, "<ts>.<raw body>")>`;',
  '- Standard Webhooks: `webhook-id` (= event id), `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256(key, "<id>.<ts>.<raw body>")>`.',
  "The key is the base64-decoded part of the `whsec_` secret shown once at creation, or the UTF-8 bytes of an override signing token. During a rotation both keys sign and each signature header carries two space-separated entries.",
  "",
  "Also sent: `X-Svc-Event-Id` (same on every retry; deduplicate on it), `X-Svc-Event-Type`, `X-Svc-Schema` (ignore unknown values) and `X-Svc-Test: true` on test events.",
  "",
  `How the service authenticates to your endpoint, per the webhook's \`authenticationType\`: None sends no credential; Bearer sends \`Authorization: Bearer <token>\`; Basic sends \`Authorization: Basic base64(<token>)\`, the token being \`user:password\`; ApiKey sends the token in \`${API_KEY_HEADER}: <token>\`.`,
  "",
  "Delivery is at-least-once: up to 10 attempts within 5 minutes, 30 s apart (a longer `Retry-After` is honoured), on 408, 429, 500, 502, 503, 504, timeouts and connection errors. Redirects are not followed. Answer within 30 seconds.",
].join("\n");

/** docs/contract.md §6: every event type as an OpenAPI 3.1 webhook whose body is the envelope with that type's data. */
function eventWebhooks(components: Components): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  // Every delivery's request headers, one reusable parameter each; the endpoint credential is described in prose.
  const headers = [
    ...webhookHeaders
      .filter((h) => !WEBHOOK_CREDENTIAL_HEADERS.has(h.name.toLowerCase()))
      .map((h) => ({ name: h.name, in: "header", required: h.required, description: h.description, schema: { type: "string", ...(h.pattern ? { pattern: h.pattern } : {}) }, example: h.example })),
    { name: "User-Agent", in: "header", required: true, description: "The service's delivery client.", schema: { type: "string" }, example: DELIVERY_USER_AGENT },
  ].map((h) => components.parameter(h));
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
        // The API's own scheme does not apply: the endpoint credential is described above.
        security: [],
        parameters: headers,
        requestBody: { required: true, content: { "application/json": { schema } } },
        responses: {
          "2XX": { description: "Received. Any 2xx ends the delivery; the body is read up to 1 MB and discarded." },
          default: {
            description: "408, 429, 500, 502, 503 and 504 are retried; any other status, 3xx included, fails the delivery.",
            headers: {
              "Retry-After": {
                description: "On a retried status: when to try again, in delta-seconds or an HTTP-date. Honoured when longer than the 30 s backoff, within the 5-minute window.",
                required: false,
                schema: { type: "string" },
                example: "120",
              },
            },
          },
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
      commit: {
        type: "string",
        enum: ["none", "committed", "in-progress"],
        description:
          "On a 504 `TIMEOUT` of the request's own server-side deadline: what it had changed. `none`: nothing was or will be changed, so the request may be sent again; " +
          "`committed`: its change was saved before the time ran out; `in-progress`: a write was under way and completes on its own. After `committed` or `in-progress`, read the resource before repeating the request.",
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
