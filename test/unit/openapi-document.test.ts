import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { errorCodes } from "../../shared/platform/errors/api-error";
import { buildOpenApi } from "../../shared/platform/http/openapi";
import { allRoutes } from "../../shared/api/route-groups";
import type { Json } from "../support/json";

const ORIGIN = "https://secops.contoso-mssp.example";
const doc: Json = buildOpenApi(allRoutes(), ORIGIN);
const operations = Object.entries<Json>(doc.paths).flatMap(([path, item]) => Object.entries<Json>(item).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })));

/** Every schema in the document that carries `examples`, with where it is. */
function schemasWithExamples(node: Json, where: string, out: { where: string; schema: Json }[] = []): { where: string; schema: Json }[] {
  if (Array.isArray(node)) node.forEach((child, i) => schemasWithExamples(child, `${where}/${i}`, out));
  else if (node && typeof node === "object") {
    if (Array.isArray(node.examples) && (node.type !== undefined || node.properties !== undefined || node.anyOf !== undefined || node.items !== undefined || node.enum !== undefined || node.const !== undefined)) out.push({ where, schema: node });
    for (const [key, child] of Object.entries(node)) if (key !== "examples") schemasWithExamples(child, `${where}/${key}`, out);
  }
  return out;
}

describe("the OpenAPI document's examples", () => {
  it("give every success response with a JSON body an example of the whole body", () => {
    const missing = operations.flatMap(({ where, op }) =>
      Object.entries<Json>(op.responses)
        .filter(([status, response]) => status.startsWith("2") && response.content?.["application/json"])
        .filter(([, response]) => !Array.isArray(response.content["application/json"].schema.examples))
        .map(([status]) => `${where} ${status}`),
    );
    expect(missing).toEqual([]);
  });

  it("are valid instances of their own schemas", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, "doc");
    const found = schemasWithExamples(doc.paths, "#/paths");
    expect(found.length).toBeGreaterThan(50);
    const invalid: string[] = [];
    for (const { where, schema } of found) {
      const { examples, ...rest } = schema;
      // `$ref`s inside (Meta) point into the document.
      const validate = ajv.compile(JSON.parse(JSON.stringify(rest).replace(/"#\/components/g, '"doc#/components')));
      for (const example of examples) if (!validate(example)) invalid.push(`${where}: ${ajv.errorsText(validate.errors)}`);
    }
    expect(invalid).toEqual([]);
  }, 30_000);

  it("give each problem status one example per code, with that code's type, title and the status", () => {
    let checked = 0;
    for (const { where, op } of operations) {
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        const media = response.content?.["application/problem+json"];
        if (!media) continue;
        const codes = String(response.description).replace("Problem: ", "").split(", ");
        expect(Object.keys(media.examples), `${where} ${status}`).toEqual(codes);
        for (const [code, { value }] of Object.entries<Json>(media.examples)) {
          expect(value, `${where} ${status} ${code}`).toMatchObject({
            code,
            status: Number(status),
            type: `${ORIGIN}/api/v2/errors#${code}`,
            title: errorCodes[code as keyof typeof errorCodes].title,
          });
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
  });
});

describe("the OpenAPI document's shape", () => {
  it("offers the API's two schemes, Basic for service accounts and the session cookie for people, saying what goes in each", () => {
    expect(Object.keys(doc.components.securitySchemes)).toEqual(["basicAuth", "portalSession"]);
    expect(doc.components.securitySchemes.portalSession).toMatchObject({ type: "apiKey", in: "cookie", name: "__Host-secops-session" });
    expect(doc.components.securitySchemes.portalSession.description).toMatch(/X-CSRF-Token/);
    // Each operation names the one scheme of its kind of caller.
    for (const item of Object.values<Json>(doc.paths)) {
      for (const op of Object.values<Json>(item)) {
        if (op.security?.length) expect(op.security.length).toBe(1);
      }
    }
    expect(doc.components.securitySchemes.basicAuth.description).toMatch(/service account id \(`clientId`\)/);
    expect(doc.components.securitySchemes.basicAuth.description).toMatch(/client secret/);
    for (const webhook of Object.values<Json>(doc.webhooks)) expect(webhook.post.security).toEqual([]);
  });

  it("names each path parameter one way for each resource across the document", () => {
    // The name a parameter has after a given literal segment: `/users/{userId}` everywhere, say.
    const names = new Map<string, Set<string>>();
    for (const path of Object.keys(doc.paths)) {
      const segments = path.split("/");
      segments.forEach((segment, i) => {
        if (!segment.startsWith("{") || i === 0) return;
        const after = segments.slice(0, i).join("/");
        names.set(after, (names.get(after) ?? new Set()).add(segment));
      });
    }
    const ambiguous = [...names].filter(([, set]) => set.size > 1).map(([after, set]) => `${after}/: ${[...set].join(" ")}`);
    expect(ambiguous).toEqual([]);
  });
});

describe("the OpenAPI document's headers", () => {
  const resolve = (entry: Json, kind: "headers" | "parameters"): Json => (entry.$ref ? doc.components[kind][entry.$ref.split("/").pop()] : entry);
  const answers = operations.flatMap(({ where, op }) => Object.entries<Json>(op.responses).map(([status, response]) => ({ where: `${where} ${status}`, op, status: Number(status), headers: response.headers ?? {} })));

  it("document on every answer the request id and caching, and the rate limit where it is always sent", () => {
    for (const { where, status, headers } of answers) {
      expect(resolve(headers["X-Request-Id"], "headers").required, where).toBe(true);
      expect(resolve(headers["Cache-Control"], "headers").required, where).toBe(true);
      for (const name of ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]) {
        // A body refused before the API, a failure, a shed request or a deadline before the caller is known, comes without them.
        expect(resolve(headers[name], "headers").required, `${where} ${name}`).toBe(![413, 429, 500, 504].includes(status));
      }
      if ([429, 502, 504].includes(status)) expect(resolve(headers["Retry-After"], "headers").required, where).toBe(false);
    }
    expect(answers.length).toBeGreaterThan(800);
  });

  it("document a 429 on every operation that can be shed, and none on the liveness check, which never is", () => {
    expect(Object.keys(doc.paths["/api/v2/health"].get.responses)).not.toContain("429");
    const without = operations.filter(({ where, op }) => where !== "GET /api/v2/health" && !op.responses["429"]).map(({ where }) => where);
    expect(without).toEqual([]);
  });

  it("document WWW-Authenticate on every 401 of an authenticated operation", () => {
    const unauthorized = answers.filter((a) => a.status === 401 && !(Array.isArray(a.op.security) && a.op.security.length === 0));
    expect(unauthorized.length).toBeGreaterThan(100);
    for (const { where, headers } of unauthorized) expect(resolve(headers["WWW-Authenticate"], "headers").required, where).toBe(true);
  });

  it("document the headers routes set on their answers: ETag, Location, and the service's own", () => {
    const at = (where: string) => answers.find((a) => a.where === where)!.headers;
    const incident = "GET /api/v2/workspaces/{workspaceId}/incidents/{source}/{incidentId} 200";
    expect(resolve(at(incident).ETag, "headers")).toMatchObject({ required: true, schema: { type: "string" }, example: '"3"' });
    expect(resolve(at("POST /api/v2/service-accounts 201").Location, "headers").required).toBe(true);
    const validity = at("GET /api/v2/azure-resources/subscriptions/{subscriptionId}/resource-groups/{resourceGroup}/workspaces/{workspaceName}/validate 200")["X-Validation-Reason"];
    expect(resolve(validity, "headers")).toMatchObject({ required: false, schema: { enum: ["WorkspaceNotFound", "NotOnboarded"] } });
    expect(validity.description).toMatch(/^Sent when `data` is false\./);
    expect(resolve(at("GET /api/v2/workspaces/{workspaceId}/incidents/{source}/{incidentId}/comments 200")["X-Ticket-Notes"], "headers").required).toBe(false);
    expect(resolve(at("GET /api/v2/portal/auth/sign-in 303").Location, "headers").required).toBe(true);
  });

  it("keep every reusable header and parameter with a schema and an example, each one named by some operation", () => {
    const used = JSON.stringify({ paths: doc.paths, webhooks: doc.webhooks });
    for (const [key, header] of Object.entries<Json>(doc.components.headers)) {
      expect(header.schema, key).toBeDefined();
      expect(header.example, key).toBeDefined();
      expect(used, key).toContain(`"#/components/headers/${key}"`);
    }
    for (const [key, parameter] of Object.entries<Json>(doc.components.parameters)) {
      expect(parameter.in, key).toBe("header");
      expect(parameter.example ?? parameter.schema.examples?.[0], key).toBeDefined();
      expect(used, key).toContain(`"#/components/parameters/${key}"`);
    }
  });

  it("document If-Match where it is honoured, with the 409 a stale one gets", () => {
    const withIfMatch = operations.filter(({ op }) => (op.parameters ?? []).some((p: Json) => p.$ref === "#/components/parameters/If-Match")).map(({ where }) => where);
    expect(withIfMatch).toEqual(
      expect.arrayContaining([
        "PUT /api/v2/workspaces/{workspaceId}/incidents/{source}/{incidentId}/status",
        "PUT /api/v2/workspaces/{workspaceId}/incidents/{source}/{incidentId}/assignee",
        "PUT /api/v2/webhooks/{id}",
        "PUT /api/v2/service-accounts/{id}",
      ]),
    );
    for (const { where, op } of operations.filter(({ where }) => withIfMatch.includes(where))) {
      expect(Object.keys(op.responses["409"].content["application/problem+json"].examples), where).toContain("CONFLICT");
    }
    // A reference page pre-fills a parameter's own example: If-Match keeps its example in the schema, so none is sent unasked.
    expect(doc.components.parameters["If-Match"]).toMatchObject({ required: false, schema: { examples: ['"3"'] } });
    expect(doc.components.parameters["If-Match"].example).toBeUndefined();
  });
});

describe("the OpenAPI document's rules across fields", () => {
  const ajv = new Ajv2020({ strict: false });
  addFormats(ajv);
  const body = (path: string, method: string): Json => doc.paths[path][method].requestBody.content["application/json"].schema;
  const base = "/api/v2/workspaces/{workspaceId}/tickets";

  it("name a ticket by exactly one of its id and number (link, unlink, priority)", () => {
    for (const [path, method, rest] of [
      [`${base}/link`, "post", { source: "SourceA", incidentId: "i-1" }],
      [`${base}/unlink`, "post", { source: "SourceA", incidentId: "i-1" }],
      [`${base}/priority`, "put", { priority: "P1" }],
    ] as const) {
      const validate = ajv.compile(body(path, method));
      expect(validate({ ...rest, ticketId: "12219" }), path).toBe(true);
      expect(validate({ ...rest, ticketNumber: "SEC-2219" }), path).toBe(true);
      expect(validate({ ...rest }), path).toBe(false);
      expect(validate({ ...rest, ticketId: "12219", ticketNumber: "SEC-2219" }), path).toBe(false);
    }
  });

  it("ask a partial change to name at least one field", () => {
    const workspace = ajv.compile(body("/api/v2/portal/workspaces/{workspaceId}", "patch"));
    expect([workspace({}), workspace({ name: "x" }), workspace({ sources: {} })]).toEqual([false, true, true]);
    const organization = ajv.compile(body("/api/v2/portal/organizations/{accountId}", "patch"));
    expect([organization({}), organization({ isActive: false })]).toEqual([false, true]);
    const integrations = ajv.compile(body("/api/v2/portal/workspaces/{workspaceId}/integrations", "put"));
    expect([integrations({}), integrations({ ticketing: true })]).toEqual([false, true]);
  });

  it("say in the parameters and the operation which query parameters are needed, and give an example of one", () => {
    const rules: [string, string[]][] = [
      [`${base}/search`, ["groupingId", "ticketNumber"]],
      ["/api/v2/workspaces/{workspaceId}/incidents/{source}/by-entity", ["IncidentId", "EntityName", "EntityFilter"]],
    ];
    for (const [path, names] of rules) {
      const op = doc.paths[path].get;
      const rule = names.map((n) => `\`${n}\``);
      for (const name of names) {
        const param = op.parameters.find((p: Json) => p.name === name);
        expect(param.required, `${path} ${name}`).toBe(false);
        for (const named of rule) expect(param.description, `${path} ${name}`).toContain(named);
      }
      for (const named of rule) expect(op.description, path).toContain(named);
      expect(op.parameters.some((p: Json) => names.includes(p.name) && p.example !== undefined), path).toBe(true);
    }
  });
});
