import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import { generate } from "selfsigned";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/*
 * What a cold start pays: the Functions worker imports every module matched by package.json `main`
 * (dist/functions/*.js). These tests compile the app as the build does (file by file, with the
 * project's compiler options), import the function modules in a fresh Node process, and read
 * `require.cache` there: what a module pulls in at import is in it, whatever the machine's speed.
 */

const root = join(__dirname, "../..");
const out = join(root, ".test-results/cold-start-build");

/** Every .ts file under functions/ and shared/, transpiled to `out` with tsconfig.build.json's options; JSON files as they are. */
function compileApp(): void {
  const configFile = ts.readConfigFile(join(root, "tsconfig.build.json"), (p) => ts.sys.readFile(p));
  const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
  rmSync(out, { recursive: true, force: true });
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      // Declarations (`.d.ts`) describe a module's types only: nothing to emit.
      return statSync(path).isDirectory() ? walk(path) : /\.(ts|json)$/.test(path) && !path.endsWith(".d.ts") ? [path] : [];
    });
  for (const file of [...walk(join(root, "functions")), ...walk(join(root, "shared"))]) {
    if (file.endsWith(".json")) {
      mkdirSync(dirname(join(out, relative(root, file))), { recursive: true });
      writeFileSync(join(out, relative(root, file)), readFileSync(file));
      continue;
    }
    const { outputText } = ts.transpileModule(readFileSync(file, "utf8"), { compilerOptions: { ...options, sourceMap: false }, fileName: file });
    const target = join(out, relative(root, file)).replace(/\.ts$/, ".js");
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
}

/**
 * Runs in a fresh process: captures the registrations, imports every function module, reports which
 * packages are loaded; then invokes one HTTP function (an unauthenticated GET: the services are built,
 * the answer is 401) and reports again.
 */
const probe = `
const { readdirSync } = require("node:fs");
const { join } = require("node:path");
const azure = require("@azure/functions");
const http = [];
azure.app.http = (name, options) => http.push({ name, options });
azure.app.serviceBusQueue = () => {};
azure.app.timer = () => {};
const loaded = () => {
  const files = Object.keys(require.cache);
  const has = (part) => files.some((f) => f.includes(part));
  return {
    cosmos: has("/node_modules/@azure/cosmos/"),
    serviceBus: has("/node_modules/@azure/service-bus/"),
    identity: has("/node_modules/@azure/identity/"),
    undici: has("/node_modules/undici/"),
    zod: has("/node_modules/zod/"),
    // Every endpoint group at once: the route table that route-groups.ts builds on import.
    routeTable: has("/shared/api/route-groups.js"),
    composition: has("/shared/hosts/composition.js"),
    modules: files.length,
  };
};
const dir = process.argv[1];
for (const file of readdirSync(dir).filter((f) => f.endsWith(".js"))) require(join(dir, file));
const atImport = loaded();
const fn = http.find((r) => r.name === "service-accounts");
fn.options
  .handler(new azure.HttpRequest({ method: "GET", url: "https://app.example/api/v2/service-accounts/" + "0".repeat(8) }), new azure.InvocationContext({ functionName: fn.name }))
  .then((response) => console.log(JSON.stringify({ atImport, status: response.status, afterHandler: loaded() })));
`;

/**
 * Runs in a fresh process on the production services with the Service Bus queues (the memory store,
 * so that a caller can be seeded): an authenticated GET through the handler that `app.http`
 * registered, then the health check through the API catch-all, reporting what is loaded after each;
 * with telemetry on, then a flush of what it holds (as the host's shutdown does).
 */
const authenticatedProbe = `
const { readdirSync } = require("node:fs");
const { join } = require("node:path");
const azure = require("@azure/functions");
const http = [];
azure.app.http = (name, options) => http.push({ name, options });
azure.app.serviceBusQueue = () => {};
azure.app.timer = () => {};
const loaded = () => {
  const files = Object.keys(require.cache);
  return {
    serviceBus: files.some((f) => f.includes("/node_modules/@azure/service-bus/")),
    exporter: files.some((f) => f.includes("/node_modules/@azure/monitor-opentelemetry-exporter/")),
    undici: files.some((f) => f.includes("/node_modules/undici/")),
    identity: files.some((f) => f.includes("/node_modules/@azure/identity/")),
    apiModules: files.filter((f) => f.includes("/shared/api/")).map((f) => f.slice(f.indexOf("/shared/api/") + 12)).sort(),
  };
};
const dir = process.argv[1];
for (const file of readdirSync(join(dir, "functions")).filter((f) => f.endsWith(".js"))) require(join(dir, "functions", file));
const invoke = (name, path, headers) => {
  const fn = http.find((r) => r.name === name);
  return fn.options.handler(new azure.HttpRequest({ method: "GET", url: "https://app.example/api/v2" + path, headers }), new azure.InvocationContext({ functionName: name }));
};
(async () => {
  const { getServices } = require(join(dir, "shared/hosts/composition.js"));
  const { ensureAdminAccount } = require(join(dir, "shared/domain/organizations/admin-account.js"));
  const services = getServices();
  const { clientId, clientSecret } = await ensureAdminAccount(services, { accountId: "00000000-0000-0000-0000-000000000001", name: "probe", workspaceIds: [] });
  const built = loaded();
  const get = await invoke("service-accounts", "/service-accounts/" + clientId, { authorization: "Basic " + Buffer.from(clientId + ":" + clientSecret).toString("base64") });
  const afterGet = loaded();
  const health = await invoke("meta", "/health");
  const afterHealth = loaded();
  const telemetry = require(join(dir, "shared/hosts/telemetry.js")).activeTelemetry();
  if (telemetry) await telemetry.flush();
  const flushed = telemetry ? loaded() : undefined;
  // A webhook send (to a port where nothing listens) loads the HTTP client.
  const { createGuardedSender } = require(join(dir, "shared/platform/delivery/guarded-sender.js"));
  const sender = createGuardedSender({ timeoutMs: 5000, maxResponseBytes: 1024, allowPrivateTargets: true });
  const sent = await sender.send({ url: "https://127.0.0.1:1/hook", headers: { "content-type": "application/json" }, body: "{}" });
  await sender.close();
  console.log(JSON.stringify({
    queue: services.config.queue.kind,
    built,
    get: { status: get.status, requestId: get.headers["X-Request-Id"], ...afterGet },
    health: { status: health.status, ...afterHealth },
    flushed,
    webhook: { outcome: sent.kind === "error" ? sent.error : sent.kind, ...loaded() },
  }));
  process.exit(0);
})().catch((error) => { console.error(error); process.exit(1); });
`;

let report: { atImport: Record<string, unknown>; status: number; afterHandler: Record<string, unknown> };
let withCosmosKey: typeof report;
type Loaded = { serviceBus: boolean; exporter: boolean; undici: boolean; identity: boolean; apiModules: string[] };
type AuthenticatedReport = {
  queue: string;
  built: Loaded;
  get: Loaded & { status: number; requestId: string };
  health: Loaded & { status: number };
  flushed?: Loaded;
  webhook: Loaded & { outcome: string };
};
let authenticated: AuthenticatedReport;
let withTelemetry: AuthenticatedReport;
type Envelope = { data: { baseType: string; baseData: { message?: string; properties?: Record<string, string> } } };
let ingestion: Server;
const ingested: Envelope[] = [];

beforeAll(async () => {
  compileApp();
  const key = Buffer.alloc(32, 1).toString("base64");
  const stdout = execFileSync(process.execPath, ["-e", probe, join(out, "functions")], {
    cwd: root,
    // As in Azure: Cosmos and Service Bus with managed identity, which is what loads @azure/identity.
    env: {
      PATH: process.env.PATH,
      STORE: "cosmos",
      COSMOS_ENDPOINT: "https://127.0.0.1:1",
      QUEUE: "servicebus",
      SERVICEBUS__fullyQualifiedNamespace: "app.servicebus.windows.net",
      SECRET_HASH_KEY: key,
      PAGE_TOKEN_KEY: key,
      WEBHOOK_SECRETS_KEY: key,
      LOG_LEVEL: "error",
    },
    encoding: "utf8",
    timeout: 60_000,
  });
  report = JSON.parse(stdout.trim().split("\n").at(-1)!);
  // The same with a Cosmos key (local runs, tests): no Entra ID credential is needed.
  const keyStdout = execFileSync(process.execPath, ["-e", probe, join(out, "functions")], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      STORE: "cosmos",
      COSMOS_ENDPOINT: "https://127.0.0.1:1",
      COSMOS_KEY: key,
      SECRET_HASH_KEY: key,
      PAGE_TOKEN_KEY: key,
      WEBHOOK_SECRETS_KEY: key,
      LOG_LEVEL: "error",
    },
    encoding: "utf8",
    timeout: 60_000,
  });
  withCosmosKey = JSON.parse(keyStdout.trim().split("\n").at(-1)!);
  const authenticatedOut = execFileSync(process.execPath, ["-e", authenticatedProbe, out], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      QUEUE: "servicebus",
      SERVICEBUS__fullyQualifiedNamespace: "app.servicebus.windows.net",
      SECRET_HASH_KEY: key,
      PAGE_TOKEN_KEY: key,
      WEBHOOK_SECRETS_KEY: key,
      LOG_LEVEL: "error",
    },
    encoding: "utf8",
    timeout: 60_000,
  });
  authenticated = JSON.parse(authenticatedOut.trim().split("\n").at(-1)!);

  // The same with telemetry on, sending to an Application Insights ingestion endpoint of the test's own.
  const pems = await generate([{ name: "commonName", value: "127.0.0.1" }], {
    keyType: "ec",
    algorithm: "sha256",
    notBeforeDate: new Date(Date.now() - 60_000),
    extensions: [{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] }],
  });
  const certFile = join(out, "ingestion-cert.pem");
  writeFileSync(certFile, pems.cert);
  ingestion = createServer({ cert: pems.cert, key: pems.private }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      ingested.push(...(JSON.parse((req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw).toString("utf8")) as Envelope[]));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ itemsReceived: 1, itemsAccepted: 1, errors: [] }));
    });
  });
  await new Promise<void>((resolve) => ingestion.listen(0, "127.0.0.1", resolve));
  const { stdout: telemetryOut } = await promisify(execFile)(process.execPath, ["-e", authenticatedProbe, out], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      QUEUE: "servicebus",
      SERVICEBUS__fullyQualifiedNamespace: "app.servicebus.windows.net",
      SECRET_HASH_KEY: key,
      PAGE_TOKEN_KEY: key,
      WEBHOOK_SECRETS_KEY: key,
      APPLICATIONINSIGHTS_CONNECTION_STRING: `InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1:${(ingestion.address() as AddressInfo).port}/`,
      APPLICATIONINSIGHTS_STATSBEAT_DISABLED: "true",
      APPLICATIONINSIGHTS_SDKSTATS_DISABLED: "true",
      NODE_EXTRA_CA_CERTS: certFile,
    },
    encoding: "utf8",
    timeout: 60_000,
  });
  withTelemetry = JSON.parse(telemetryOut.trim().split("\n").at(-1)!);
}, 120_000);
afterAll(() => ingestion?.close());

describe("cold start", () => {
  it("importing the function modules loads no Azure SDK, no HTTP client, no schema and no route table", () => {
    expect(report.atImport).toMatchObject({
      cosmos: false,
      serviceBus: false,
      identity: false,
      undici: false,
      zod: false,
      routeTable: false,
      composition: false,
    });
  });

  it("the first invocation loads what it needs: the services are built on first use, not the Service Bus SDK, nor every route group", () => {
    expect(report.status).toBe(401);
    expect(report.afterHandler).toMatchObject({ cosmos: true, serviceBus: false, identity: true, zod: true, routeTable: false, composition: true });
  });

  it("Cosmos with a key never loads @azure/identity; without one (managed identity) it does", () => {
    expect(withCosmosKey.status).toBe(401);
    expect(withCosmosKey.afterHandler).toMatchObject({ cosmos: true, identity: false, composition: true });
    expect(report.afterHandler).toMatchObject({ cosmos: true, identity: true });
  });

  it("an authenticated GET never loads the webhook sender's HTTP client; the first webhook send does", () => {
    expect(authenticated.built.undici).toBe(false);
    expect(authenticated.get).toMatchObject({ status: 200, undici: false, identity: false });
    expect(authenticated.webhook).toMatchObject({ outcome: "connection", undici: true });
  });

  it("an authenticated GET on the Service Bus queues never loads the Service Bus SDK; the health check's queue ping does", () => {
    expect(authenticated.queue).toBe("servicebus");
    expect(authenticated.built.serviceBus).toBe(false);
    expect(authenticated.get).toMatchObject({ status: 200, serviceBus: false });
    // The ping opens the queue's link (and fails here, with no broker): the client is built when first needed.
    expect(authenticated.health.serviceBus).toBe(true);
  });

  it("a request builds its own endpoint group alone: the GET its group, the health check the catch-all's", () => {
    expect(authenticated.built.apiModules).toEqual([]);
    // Beside its group, what the groups share: the route kinds, and the examples and schemas it shows.
    expect(authenticated.get.apiModules).toEqual(["examples/identity-examples.js", "identity/service-account-routes.js", "route-kinds.js", "route-table.js", "schemas/service-account-schemas.js"]);
    expect(authenticated.health.apiModules).toEqual([
      "examples/identity-examples.js",
      "identity/service-account-routes.js",
      "meta/health.js",
      "meta/meta-routes.js",
      "route-kinds.js",
      "route-table.js",
      "schemas/service-account-schemas.js",
    ]);
  });

  it("with Application Insights on, the exporters load on their first export, after the first answer, and the first request's log record is sent", () => {
    expect(withTelemetry.get).toMatchObject({ status: 200, exporter: false });
    expect(withTelemetry.health.exporter).toBe(false);
    expect(withTelemetry.flushed?.exporter).toBe(true);
    const messages = ingested.filter((i) => i.data.baseType === "MessageData").map((i) => i.data.baseData);
    expect(messages).toContainEqual(
      expect.objectContaining({
        message: "request",
        properties: expect.objectContaining({ requestId: withTelemetry.get.requestId, path: expect.stringContaining("/api/v2/service-accounts/"), status: "200" }),
      }),
    );
  });
});
