import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { errorCodes } from "../../shared/platform/errors/api-error";
import { buildOpenApi } from "../../shared/platform/http/openapi";
import { allRoutes } from "../../shared/api/route-groups";

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

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
