import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoAdministration } from "../../shared/hosts/local/demo-administration";
import { seedDemoGamebookRuns } from "../../shared/hosts/local/demo-gamebook-runs";
import { fakeDns, startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { signInHeadless } from "../support/oidc-sign-in";
import { demoPerson } from "../../shared/hosts/local/identity-provider/demo-people";

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

/**
 * "Try it out" on the reference page, for every operation: the request Swagger UI fills in from the
 * served document (path and query parameters from their `example`, `schema.example` or
 * `schema.default`, the body from its schema's first `examples` entry) is sent as the local admin to
 * a host seeded as `npm start` seeds it, and must succeed; a portal operation is sent as an Admin of
 * the provider who owns every demo workspace, with their session (its CSRF token is the session's,
 * not the document's). Reads go first, then writes, deletions last, so that no example removes what
 * a later one needs.
 */

let host: TestHost;
let person: TestPerson;
beforeAll(async () => {
  // Webhook URLs are checked against public DNS (example.com resolves), but deliveries connect
  // through the first resolver, which answers loopback: the sender refuses it, so no example
  // delivery leaves the machine.
  host = await startTestHost({ resolveHost: async () => ["127.0.0.1"], signIn: true });
  host.services.resolveHost = fakeDns;
  await seedDemoAdministration(host.services, host.demo);
  await seedDemoGamebookRuns(host.services, host.demo.workspaces);
  person = await host.person({ organizationalRole: "Admin", workspaceAssignments: host.demo.workspaces.map((w) => ({ workspaceId: w.id, role: "Owner" as const })) });
});
afterAll(async () => host?.close());

interface ExampleRequest {
  method: string;
  template: string;
  url: string;
  body?: unknown;
  /** A multipart upload: the body's fields sent as file parts. */
  fileFields?: string[];
}

/** The value Swagger UI 5 puts in a parameter's field when "Try it out" is pressed (parameter-row.jsx). */
function prefilled(param: Json): unknown {
  const schema = param.schema ?? {};
  const value = param.example ?? schema.example ?? schema.default;
  if (value === undefined && param.required && Array.isArray(schema.enum)) return schema.enum[0];
  return value;
}

function exampleRequests(doc: Json): { requests: ExampleRequest[]; missing: string[] } {
  const requests: ExampleRequest[] = [];
  const missing: string[] = [];
  for (const [template, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const where = `${method.toUpperCase()} ${template}`;
      let path = template;
      const query = new URLSearchParams();
      for (const param of op.parameters ?? []) {
        // The session's CSRF token: the browser's, never a value the document could give.
        if (param.in === "header" && param.name === "X-CSRF-Token") continue;
        const value = prefilled(param);
        if (value === undefined) {
          if (param.required) missing.push(`${where}: ${param.in} parameter ${param.name}`);
          continue;
        }
        if (param.in === "path") path = path.replace(`{${param.name}}`, encodeURIComponent(String(value)));
        else for (const v of Array.isArray(value) ? value : [value]) query.append(param.name, String(v));
      }
      let body: unknown;
      let fileFields: string[] | undefined;
      if (op.requestBody) {
        // An upload's example is its form's fields; those the schema marks binary are the files to pick.
        const form = op.requestBody.content?.["multipart/form-data"]?.schema;
        body = (form ?? op.requestBody.content?.["application/json"]?.schema)?.examples?.[0];
        if (form) fileFields = Object.entries<Json>(form.properties ?? {}).filter(([, field]) => field.format === "binary").map(([name]) => name);
        if (body === undefined) missing.push(`${where}: request body`);
      }
      const search = query.toString();
      requests.push({ method: method.toUpperCase(), template, url: path + (search ? `?${search}` : ""), body, fileFields });
    }
  }
  // Signing out ends the session every other portal example is sent with: it goes last.
  const rank = (r: ExampleRequest) => (r.template.endsWith("/portal/auth/sign-out") ? 3 : r.method === "GET" ? 0 : r.method === "DELETE" ? 2 : 1);
  return { requests: requests.sort((a, b) => rank(a) - rank(b)), missing };
}

describe("the reference page's examples", () => {
  it("fill every parameter a caller must give and every request body", async () => {
    const doc: Json = await (await host.call("GET", "/openapi.json", { auth: null })).json();
    expect(exampleRequests(doc).missing).toEqual([]);
  });

  it("succeed as pre-filled for every operation, sent in order: reads, writes, deletions", async () => {
    const doc: Json = await (await host.call("GET", "/openapi.json", { auth: null })).json();
    const { requests } = exampleRequests(doc);
    const operations = Object.values<Json>(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(requests.length).toBe(operations);
    const failures: string[] = [];
    const counts = { GET: 0, write: 0, DELETE: 0 };
    for (const request of requests) {
      // `call` and `portal` check every answer against the served document as well.
      const path = request.url.slice("/api/v2".length);
      // The callback's only caller is the identity provider's redirect: its example is a real sign-in's.
      const res = request.template.endsWith("/portal/auth/callback")
        ? (await signInHeadless({ startUrl: `${host.base}/portal/auth/sign-in`, personId: demoPerson("amira").oid })).response
        : request.fileFields
        ? await host.fetch(host.base + path, { method: request.method, headers: person.headers, body: formOf(request.body as Json, request.fileFields) })
        : path.startsWith("/portal/")
          ? await host.portal(person, request.method, path, { body: request.body })
          : await host.call(request.method, path, { body: request.body });
      const text = await res.text();
      // A sign-in step answers with where the browser goes next (303), as it documents.
      const redirected = res.status === 303 && doc.paths[request.template][request.method.toLowerCase()].responses["303"] !== undefined;
      if ((res.status < 200 || res.status > 299) && !redirected) failures.push(`${request.method} ${request.url} → ${res.status} ${text.slice(0, 300)}`);
      counts[request.method === "GET" || request.method === "DELETE" ? request.method : "write"]++;
    }
    expect(failures).toEqual([]);
    expect(counts.GET).toBeGreaterThan(20);
    expect(counts.write).toBeGreaterThan(15);
    expect(counts.DELETE).toBeGreaterThanOrEqual(5);
    console.info(`example requests: ${requests.length} (${counts.GET} reads, ${counts.write} writes, ${counts.DELETE} deletions), all 2xx`);
  }, 120_000);
});

/** An upload's example as a browser sends it: each file field a file, named as a person's would be, the others text. */
function formOf(example: Json, fileFields: string[]): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(example)) {
    if (fileFields.includes(name)) form.append(name, new Blob([String(value)]), `${name}-example.md`);
    else form.append(name, String(value));
  }
  return form;
}
