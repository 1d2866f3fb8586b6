import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoAdministration } from "../../shared/hosts/local/demo-administration";
import { seedDemoGamebookRuns } from "../../shared/hosts/local/demo-gamebook-runs";
import { exampleRank } from "../support/example-requests";
import { fakeDns, startTestHost, storeKind, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

/**
 * What a Postman user gets from the served document: Portman (`@apideck/portman`) turns it into a
 * Postman collection with its contract tests on — a 2xx status, the documented content type, a JSON
 * body matching the documented schema, every header the document marks required — and runs it with
 * Newman against a host seeded as `npm start` seeds it. Every documented request must pass.
 *
 * What the test gives Portman beside the document is what a Postman user fills in by hand:
 * - the credentials: the admin's Basic credential, and for the portal's operations a person's
 *   session cookie and CSRF token (Postman has no cookie API key: the converter would send the
 *   cookie's name as a header);
 * - the optional query parameters the document gives an example of, ticked (Portman's converter
 *   leaves optional parameters unticked; the documented examples are what carries, say, the
 *   ticket search's `ticketNumber`);
 * - a file for each upload's file field, holding the example's text;
 * - one folder for every operation, in the order the examples need (reads, writes, deletions,
 *   signing out last): Portman orders requests within a folder only, and the document's tags
 *   would make folders whose deletions remove what a later folder's example names.
 * Left out: the identity provider's callback, which only a real sign-in's redirect can call
 * (test/api/openapi-examples.test.ts sends it). Adjusted: an operation answering one of several
 * media types is checked to answer one of them (Portman compares with the first); and Portman's
 * schema test deletes every key named `discriminator` from the schema, a property of the audit
 * events among them, so there it lets properties past the schema (the answer is checked
 * property by property everywhere else, and whole by the API tests).
 */

const PORTMAN = join(__dirname, "../../node_modules/@apideck/portman/bin/portman");
const CALLBACK = "/api/v2/portal/auth/callback";
const FOLDER = "API";

let host: TestHost;
let person: TestPerson;
let dir: string;
beforeAll(async () => {
  // As in the examples test: webhook URLs pass the public-DNS check, deliveries go nowhere.
  host = await startTestHost({ resolveHost: async () => ["127.0.0.1"], signIn: true });
  host.services.resolveHost = fakeDns;
  await seedDemoAdministration(host.services, host.demo);
  await seedDemoGamebookRuns(host.services, host.demo.workspaces);
  person = await host.person({ organizationalRole: "Admin", workspaceAssignments: host.demo.workspaces.map((w) => ({ workspaceId: w.id, role: "Owner" as const })) });
  const root = join(__dirname, "../..");
  mkdirSync(join(root, ".test-results"), { recursive: true });
  dir = mkdtempSync(join(root, ".test-results", "portman-"));
});
afterAll(async () => {
  await host?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs Portman in the work folder, asynchronously: the host answers in this process. */
function portman(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [PORTMAN, ...args], { cwd: dir, timeout: 120_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, FORCE_COLOR: "0" } }, (error, stdout, stderr) => {
      // Newman's failures are read from its report; anything else is Portman's own.
      if (error && !stdout.includes("Run Newman against")) reject(new Error(`portman failed (${error.message}):\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** The served document as Portman is given it: every operation in one folder, the callback left out. */
function documentForRun(doc: Json): { doc: Json; operations: { id: string; method: string; path: string; op: Json }[] } {
  const copy = structuredClone(doc);
  delete copy.paths[CALLBACK];
  copy.tags = [{ name: FOLDER }];
  const operations = Object.entries<Json>(copy.paths).flatMap(([path, item]) =>
    Object.entries<Json>(item).map(([method, op]) => {
      op.tags = [FOLDER];
      return { id: `${method.toUpperCase()}::${path}`, method: method.toUpperCase(), path, op };
    }),
  );
  operations.sort((a, b) => exampleRank({ method: a.method, template: a.path }) - exampleRank({ method: b.method, template: b.path }));
  return { doc: copy, operations };
}

/** Portman's configuration: its contract tests, and what a Postman user fills in (see above). */
function portmanConfig(operations: ReturnType<typeof documentForRun>["operations"]): Json {
  const overwrites: Json[] = [];
  const extendTests: Json[] = [];
  const severalMediaTypes: string[] = [];
  const discriminatorProperty: string[] = [];
  for (const { id, method, op } of operations) {
    const overwrite: Json = { openApiOperation: id };
    const examples = (op.parameters ?? []).filter((p: Json) => p.in === "query" && !p.required && p.example !== undefined);
    if (examples.length > 0) overwrite.overwriteRequestQueryParams = examples.map((p: Json) => ({ key: p.name, disable: false }));
    if ((op.security ?? []).some((s: Json) => "portalSession" in s)) {
      overwrite.overwriteRequestSecurity = { apiKey: { key: "Cookie", value: person.headers.cookie, in: "header" } };
      if (method !== "GET") overwrite.overwriteRequestHeaders = [{ key: "X-CSRF-Token", value: person.headers["x-csrf-token"] }];
    }
    const form = op.requestBody?.content?.["multipart/form-data"]?.schema;
    if (form) {
      overwrite.overwriteRequestBody = Object.entries<Json>(form.properties)
        .filter(([, field]) => field.format === "binary")
        .map(([name]) => {
          const file = join(dir, `${name}-example.md`);
          writeFileSync(file, String(form.examples[0][name]));
          return { key: name, value: file };
        });
    }
    if (Object.keys(overwrite).length > 1) overwrites.push(overwrite);

    const [, success] = Object.entries<Json>(op.responses).find(([status]) => status.startsWith("2")) ?? [];
    const types = Object.keys(success?.content ?? {});
    if (types.length > 1) {
      severalMediaTypes.push(id);
      extendTests.push({
        openApiOperation: id,
        tests: [
          `pm.test("${id} - Content-Type is one of the documented", function () {\n` +
            `  pm.expect(${JSON.stringify(types)}).to.include(String(pm.response.headers.get("Content-Type")).split(";")[0].trim());\n});\n`,
        ],
      });
    }
    if (JSON.stringify(success?.content ?? {}).includes('"discriminator":{')) discriminatorProperty.push(id);
  }
  const everywhere = (test: Json, except: string[] = []) => ({ openApiOperation: "*::/*", ...(except.length ? { excludeForOperations: except } : {}), ...test });
  return {
    version: 1.0,
    tests: {
      contractTests: [
        everywhere({ statusSuccess: { enabled: true } }),
        everywhere({ contentType: { enabled: true } }, severalMediaTypes),
        everywhere({ jsonBody: { enabled: true } }),
        everywhere({ schemaValidation: { enabled: true } }, discriminatorProperty),
        ...discriminatorProperty.map((id) => ({ openApiOperation: id, schemaValidation: { enabled: true, additionalProperties: true } })),
        everywhere({ headersPresent: { enabled: true } }),
      ],
      extendTests,
    },
    overwrites,
    globals: {
      securityOverwrites: { basic: { username: host.admin.clientId, password: host.admin.clientSecret } },
      orderOfOperations: operations.map((o) => o.id),
    },
  };
}

describe.skipIf(storeKind === "cosmos")("a Postman collection generated from the served document (Portman, contract tests on)", () => {
  it("passes every documented request", async () => {
    const served = await json(await host.call("GET", "/openapi.json", { auth: null }));
    const { doc, operations } = documentForRun(served);
    writeFileSync(join(dir, "openapi.json"), JSON.stringify(doc));
    writeFileSync(join(dir, "portman-config.json"), JSON.stringify(portmanConfig(operations)));
    const report = join(dir, "newman.json");
    const newman = { abortOnFailure: false, reporters: ["json"], reporter: { json: { export: report } } };
    const origin = new URL(host.base).origin;
    await portman(["--local", "openapi.json", "--baseUrl", origin, "--portmanConfigFile", "portman-config.json", "--output", "collection.json", "--runNewman", "--newmanRunOptions", JSON.stringify(newman)]);

    const run = JSON.parse(readFileSync(report, "utf8")).run as Json;
    const failures = (run.executions as Json[]).flatMap((e) =>
      (e.assertions ?? []).filter((a: Json) => a.error).map((a: Json) => `${a.assertion}: ${a.error.message} (${e.response?.code})`),
    );
    expect(failures).toEqual([]);
    expect(run.failures).toEqual([]);
    // Every documented request ran, each under Portman's contract tests.
    expect(run.executions.length).toBe(operations.length);
    const assertions = (run.executions as Json[]).flatMap((e) => (e.assertions ?? []).map((a: Json) => a.assertion as string));
    for (const kind of ["Status code is 2xx", "Schema is valid", "Response header X-Request-Id is present", "Response header ETag is present"]) {
      expect(assertions.some((a) => a.endsWith(kind)), kind).toBe(true);
    }
    expect(assertions.length).toBeGreaterThan(operations.length * 5);
    // Portman validates no body whose schema it cannot compile or still holds a `$ref`: none may be left unvalidated.
    expect(readFileSync(join(dir, "collection.json"), "utf8")).not.toContain("Response Validation - Disabled");
    console.info(`portman: ${run.executions.length} requests, ${assertions.length} assertions, all passed`);
  }, 180_000);
});
