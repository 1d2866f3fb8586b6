/**
 * Builds the deployment package exactly as `azd deploy` does (the `api` service's prepackage hook in
 * azure.yaml runs scripts/package-function.mjs) and checks what would ship: the bundled app, the
 * packages it loads later in files of their own, one small file per function file, the portal page and
 * host.json, within a size budget, needing nothing at run time but Node's own modules, the worker's
 * `@azure/functions-core` and the few packages kept as files.
 * Then it loads the package as the Functions worker does (scripts/functions-worker.cjs: package.json
 * `main`, the handlers `app.http` registered, through the programming model of the bundled
 * `@azure/functions`) and serves requests: on the memory store, and on Cosmos DB (a Cosmos-protocol
 * server; a service account made by the bootstrap, signing in with a managed identity as in Azure)
 * with telemetry to a fake Application Insights ingestion endpoint, whose records must carry the
 * invocation's trace, the Cosmos calls and the identity's token request as dependencies, and the
 * request log line with its fields as custom dimensions.
 */
import { buildFunctionPackage, filesUnder } from "../support/function-package";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer as createHttpsServer, type Server } from "node:https";
import { builtinModules } from "node:module";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { generate } from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBootstrap } from "../../scripts/bootstrap";
import { startCosmosServer, type CosmosServer } from "../support/cosmos-server";

const root = path.resolve(__dirname, "../..");
const WORKER = path.join(root, "scripts/functions-worker.cjs");
/** Uncompressed; the compiled tree with its production node_modules, unbundled, is about 50 MB. */
const SIZE_BUDGET_BYTES = 10 * 1024 * 1024;

let pkg: string;
let work: string;
let remove: (() => void) | undefined;
beforeAll(() => {
  ({ pkg, work, remove } = buildFunctionPackage("function-app-"));
}, 300_000);
afterAll(() => remove?.());

const rootPackage = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { main: string };
const functionFiles = readdirSync(path.join(root, "functions"))
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.replace(/\.ts$/, ""));
const httpFunctionNames = (JSON.parse(readFileSync(path.join(root, "shared/hosts/azure/http-functions.json"), "utf8")) as { name: string }[]).map((f) => f.name);

describe("deployment package", () => {
  it("holds the bundled app, a file per function file, the portal page, host.json and a package.json with nothing to install", () => {
    const all = filesUnder(pkg).sort();
    const portal = all.filter((f) => f.startsWith("dist/portal/")).map((f) => f.replace(/-\w+\.(js|css|svg)((?:\.br|\.gz)?)$/, ".$1$2"));
    // The script and the style with their compressed forms, made at build time, and the page's icon.
    expect(portal.sort()).toEqual([
      "dist/portal/assets/app.css",
      "dist/portal/assets/app.css.br",
      "dist/portal/assets/app.css.gz",
      "dist/portal/assets/app.js",
      "dist/portal/assets/app.js.br",
      "dist/portal/assets/app.js.gz",
      "dist/portal/assets/favicon.svg",
      "dist/portal/index.html",
    ]);
    // A bundle's licence comments, when its packages have any, are in a .LEGAL.txt file beside it.
    expect(all.filter((f) => f.endsWith(".LEGAL.txt") && !all.includes(f.replace(/\.LEGAL\.txt$/, "")))).toEqual([]);
    expect(all.filter((f) => !/^(dist\/portal|dist\/vendor|node_modules)\//.test(f) && !f.endsWith(".LEGAL.txt"))).toEqual(
      // .funcignore: what azd leaves out of the zip it makes of this folder (test/integration/deploy-zip.test.ts).
      [".funcignore", "dist/app.js", "dist/compile-cache.js", ...functionFiles.map((f) => `dist/functions/${f}.js`), "host.json", "package.json"].sort(),
    );
    expect(all.filter((f) => f.startsWith("dist/vendor/") && !/\.js(\.LEGAL\.txt)?$/.test(f))).toEqual([]);
    // Kept as files: what the telemetry's require hook patches and the programming model, with their
    // dependencies, and the reference page's files, served from the package's folder as they are.
    const modules = all.filter((f) => f.startsWith("node_modules/"));
    expect([...new Set(modules.map((f) => f.split("/").slice(1, f.startsWith("node_modules/@") ? 3 : 2).join("/")))].sort()).toEqual(
      ["@azure/core-tracing", "@azure/functions", "@azure/functions-extensions-base", "cookie", "swagger-ui-dist", "tslib"].sort(),
    );
    expect(modules.filter((f) => f.startsWith("node_modules/swagger-ui-dist/")).sort()).toEqual(
      ["LICENSE", "NOTICE", "favicon-32x32.png", "package.json", "swagger-ui-bundle.js", "swagger-ui.css"].map((f) => `node_modules/swagger-ui-dist/${f}`),
    );
    expect(modules.filter((f) => /\.(map|ts|md)$/.test(f))).toEqual([]);

    const shipped = JSON.parse(readFileSync(path.join(pkg, "package.json"), "utf8")) as Record<string, unknown>;
    expect(shipped.main).toBe(rootPackage.main);
    expect(shipped.main).toBe("dist/functions/*.js");
    for (const key of ["scripts", "dependencies", "devDependencies"]) expect(shipped).not.toHaveProperty(key);
    expect(JSON.parse(readFileSync(path.join(pkg, "host.json"), "utf8"))).toEqual(JSON.parse(readFileSync(path.join(root, "host.json"), "utf8")));
  });

  it("turns on the compile cache, then registers each function file's functions from the one bundle", () => {
    for (const f of functionFiles) {
      const stub = readFileSync(path.join(pkg, "dist/functions", `${f}.js`), "utf8");
      expect(stub.indexOf('require("../compile-cache.js")')).toBeGreaterThan(-1);
      expect(stub.indexOf('require("../compile-cache.js")')).toBeLessThan(stub.indexOf(`require("../app.js").register(${JSON.stringify(f)})`));
    }
  });

  it("needs nothing at run time but Node's modules, the worker's module, the packages kept as files and its own vendor files", () => {
    const allowed = new Set([...builtinModules, "@azure/functions-core", "@azure/functions", "@azure/core-tracing", "swagger-ui-dist/package.json"]);
    const code = ["dist/app.js", "dist/compile-cache.js", ...readdirSync(path.join(pkg, "dist/vendor")).filter((f) => f.endsWith(".js")).map((f) => `dist/vendor/${f}`)];
    const needed = new Set<string>();
    for (const file of code) {
      for (const [, name] of readFileSync(path.join(pkg, file), "utf8").matchAll(/\brequire(?:\.resolve)?\("([^"]+)"\)/g)) {
        needed.add(name!.startsWith("./") ? path.posix.join(path.posix.dirname(file), name!) : name!);
      }
    }
    const own = [...needed].filter((name) => name.startsWith("dist/"));
    expect(own.filter((file) => !code.includes(file))).toEqual([]);
    expect([...needed].filter((name) => !name.startsWith("node:") && !name.startsWith("dist/") && !allowed.has(name))).toEqual([]);
    expect(needed).toContain("@azure/functions");
    expect(own).toContain("dist/vendor/azure-service-bus.js");
  });

  it("loads each package kept out of the first answer's way from its vendor file, on the package alone", async () => {
    const out = await runInPackage(`
      const vendor = (name) => Object.keys(require("./dist/vendor/" + name));
      console.log(JSON.stringify({
        serviceBus: vendor("azure-service-bus.js"),
        blob: vendor("azure-storage-blob.js"),
        resources: vendor("azure-management.arm-resources.js"),
        subscriptions: vendor("azure-management.arm-resources-subscriptions.js"),
        insights: vendor("azure-management.arm-operationalinsights.js"),
        logs: vendor("azure-management.monitor-query-logs.js"),
        exporter: vendor("azure-monitor-opentelemetry-exporter.js"),
        jose: vendor("jose.js"),
        keyVaultKeys: vendor("azure-keyvault-keys.js"),
        undici: vendor("undici.js"),
        identity: vendor("azure-identity.js"),
      }));
    `);
    const exports = JSON.parse(out.trim().split("\n").at(-1)!) as Record<string, string[]>;
    expect(exports.serviceBus).toContain("ServiceBusClient");
    expect(exports.blob).toContain("BlobServiceClient");
    expect(exports.resources).toContain("ResourceManagementClient");
    expect(exports.subscriptions).toContain("SubscriptionClient");
    expect(exports.insights).toContain("OperationalInsightsManagementClient");
    expect(exports.logs).toContain("LogsQueryClient");
    expect(exports.exporter).toEqual(expect.arrayContaining(["AzureMonitorTraceExporter", "AzureMonitorLogExporter"]));
    expect(exports.jose).toContain("jwtVerify");
    expect(exports.keyVaultKeys).toContain("KeyClient");
    expect(exports.undici).toEqual(expect.arrayContaining(["Agent", "fetch"]));
    expect(exports.identity).toEqual(expect.arrayContaining(["DefaultAzureCredential", "ManagedIdentityCredential"]));
  });

  it("bundles into dist/app.js what a first answer runs, without what it never runs: no HTTP client, no Entra ID sign-in, none of zod's translations, one copy of each OpenTelemetry package", () => {
    const { sources } = JSON.parse(readFileSync(`${pkg}.sourcemaps/app.js.map`, "utf8")) as { sources: string[] };
    // undici and @azure/identity (with MSAL) are vendor files, loaded on a webhook's send and on a sign-in without a key.
    expect(sources.filter((s) => /node_modules\/(undici|@azure\/identity|@azure\/msal-[a-z]+)\//.test(s))).toEqual([]);
    // zod's English messages only, the default; the other translations are never bundled.
    expect(sources.filter((s) => s.includes("node_modules/zod/v4/locales/") && !/\/(en|index)\.js$/.test(s))).toEqual([]);
    // Each OpenTelemetry package from one installed copy, but where the Azure SDK instrumentation pins its own release.
    const copies = new Map<string, Set<string>>();
    for (const source of sources) {
      const dir = /^(?:.*\/)?node_modules\/(?:.*\/node_modules\/)?(@opentelemetry\/[^/]+)\//.exec(source);
      if (!dir || source.includes("node_modules/@azure/opentelemetry-instrumentation-azure-sdk/")) continue;
      const installed = source.slice(0, source.lastIndexOf(dir[1]!) + dir[1]!.length);
      copies.set(dir[1]!, (copies.get(dir[1]!) ?? new Set()).add(installed));
    }
    expect(copies.get("@opentelemetry/core")?.size).toBe(1);
    expect([...copies].filter(([, dirs]) => dirs.size > 1).map(([name, dirs]) => `${name}: ${[...dirs].join(", ")}`)).toEqual([]);
  });

  it("builds its Cosmos client without loading Key Vault's keys (client-side encryption, unused)", async () => {
    const out = await runInPackage(`
      Object.assign(process.env, {
        STORE: "cosmos", COSMOS_ENDPOINT: "https://127.0.0.1:1", COSMOS_KEY: ${JSON.stringify(key(4))}, LOG_LEVEL: "error",
        ${Object.entries(keys).map(([name, value]) => `${name}: ${JSON.stringify(value)}`).join(", ")},
      });
      const azure = require("@azure/functions");
      const http = [];
      azure.app.http = (name, options) => http.push({ name, options });
      azure.app.serviceBusQueue = () => {};
      azure.app.timer = () => {};
      for (const file of require("node:fs").readdirSync("dist/functions")) require("./dist/functions/" + file);
      const fn = http.find((r) => r.name === "service-accounts");
      fn.options
        .handler(new azure.HttpRequest({ method: "GET", url: "https://func.example/api/v2/service-accounts/" + "0".repeat(8) }), new azure.InvocationContext({ functionName: fn.name }))
        .then((response) => {
          const files = Object.keys(require.cache).map((f) => f.slice(process.cwd().length + 1));
          console.log(JSON.stringify({ status: response.status, files }));
          process.exit(0);
        });
    `);
    const { status, files } = JSON.parse(out.trim().split("\n").at(-1)!) as { status: number; files: string[] };
    expect(status).toBe(401);
    expect(files).toContain("dist/app.js");
    expect(files.filter((f) => f.startsWith("dist/vendor/"))).toEqual([]);
  });

  it(`stays within its size budget (${SIZE_BUDGET_BYTES / 1024 / 1024} MB uncompressed), its source maps beside it`, () => {
    const bytes = filesUnder(pkg).reduce((sum, f) => sum + statSync(path.join(pkg, f)).size, 0);
    console.log(`deployment package: ${(bytes / 1024 / 1024).toFixed(1)} MB, ${filesUnder(pkg).length} files`);
    expect(bytes).toBeLessThan(SIZE_BUDGET_BYTES);
    expect(filesUnder(pkg).filter((f) => f.endsWith(".map"))).toEqual([]);
    expect(readFileSync(path.join(pkg, "dist/app.js"), "utf8")).not.toContain("sourceMappingURL");
    const map = JSON.parse(readFileSync(`${pkg}.sourcemaps/app.js.map`, "utf8")) as { sources: string[] };
    expect(map.sources).toContain("functions/http-api.ts");
    expect(map.sources.some((s) => s.includes("node_modules/@azure/cosmos/"))).toBe(true);
  });
});

const keys = { SECRET_HASH_KEY: key(1), PAGE_TOKEN_KEY: key(2), WEBHOOK_SECRETS_KEY: key(3) };

describe("deployment package, loaded as the Functions worker loads it", () => {
  it("registers every function and serves through the handlers app.http registered, on the memory store", async () => {
    const clientId = "5b0e6a52-4a3b-4c4f-9a63-2f1d6e8c7b10";
    const { loaded, answers } = await runWorker(
      [
        { method: "GET", url: `https://func.example/api/v2/service-accounts/${clientId}`, headers: basic(clientId, "soms_not-a-secret-of-any-account-0123456789") },
        { method: "GET", url: "https://func.example/api/v2/health" },
        { method: "GET", url: "https://func.example/api/v2/nothing-here" },
        { method: "GET", url: "https://func.example/api/v2/docs/assets/swagger-ui.css" },
        { method: "GET", url: "https://func.example/portal/" },
      ],
      { ...keys, LOG_LEVEL: "error" },
    );
    expect([...loaded.functions].sort()).toEqual(
      [...httpFunctionNames, "portal-page", "portal-page-root", "approval-expiry", "event-fan-out", "gamebook-executor", "outbox-sweep", "reconciler", "reconcile-workspace", "webhook-delivery"].sort(),
    );
    // Without Application Insights nothing of telemetry is set up.
    expect(loaded.capabilities).toEqual({});
    expect(loaded.hooks).toMatchObject({ preInvocation: 0, log: 0, appTerminate: 0 });

    const [account, health, unknown, css, portal] = answers;
    expect(account).toMatchObject({ function: "service-accounts", status: 401 });
    expect(account!.headers["content-type"]).toBe("application/problem+json");
    expect(JSON.parse(account!.body)).toMatchObject({ code: "UNAUTHORIZED", requestId: account!.headers["x-request-id"] });
    expect(health).toMatchObject({ function: "meta", status: 200 });
    expect(JSON.parse(health!.body).data).toMatchObject({ status: "ok", checks: { store: { status: "ok" }, queue: { status: "ok" } } });
    expect(unknown).toMatchObject({ function: "meta", status: 404 });
    expect(css).toMatchObject({ status: 200, bytes: statSync(path.join(root, "node_modules/swagger-ui-dist/swagger-ui.css")).size });
    expect(portal).toMatchObject({ function: "portal-page", status: 200 });
    expect(portal!.body).toContain("/portal/assets/app-");
  }, 60_000);

  describe("on Cosmos DB, with a managed identity and telemetry", () => {
    let cosmos: CosmosServer;
    let ingestion: Server;
    let identity: HttpServer;
    let certFile: string;
    const received: { url: string; items: Envelope[] }[] = [];
    const tokenRequests: string[] = [];
    let admin: { clientId: string; clientSecret: string; accountId: string };
    const database = "deploy-package";

    beforeAll(async () => {
      cosmos = await startCosmosServer();
      const out = await runBootstrap(
        ["--account-name", "Contoso"],
        { STORE: "cosmos", COSMOS_ENDPOINT: cosmos.endpoint, COSMOS_KEY: cosmos.key, COSMOS_DATABASE: database, COSMOS_TRUST_SELF_SIGNED: "true", ...keys },
        () => {},
      );
      admin = { clientId: out.clientId!, clientSecret: out.clientSecret!, accountId: out.accountId };

      const pems = await generate([{ name: "commonName", value: "127.0.0.1" }], {
        keyType: "ec",
        algorithm: "sha256",
        notBeforeDate: new Date(Date.now() - 60_000),
        extensions: [{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] }],
      });
      certFile = path.join(work, "ingestion-cert.pem");
      writeFileSync(certFile, pems.cert);
      // The exporter always speaks HTTPS to its ingestion endpoint.
      ingestion = createHttpsServer({ cert: pems.cert, key: pems.private }, (req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          const raw = Buffer.concat(chunks);
          const text = (req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw).toString("utf8");
          received.push({ url: req.url ?? "", items: JSON.parse(text) as Envelope[] });
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ itemsReceived: 1, itemsAccepted: 1, errors: [] }));
        });
      });
      await new Promise<void>((resolve) => ingestion.listen(0, "127.0.0.1", resolve));
      // The platform's managed identity endpoint (IDENTITY_ENDPOINT and IDENTITY_HEADER, as App Service and Functions set them).
      identity = createHttpServer((req, res) => {
        tokenRequests.push(`${req.url} ${req.headers["x-identity-header"]}`);
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({ access_token: "managed-identity-token", expires_on: String(Math.floor(Date.now() / 1000) + 3600), resource: "https://cosmos.azure.com", token_type: "Bearer" }),
        );
      });
      await new Promise<void>((resolve) => identity.listen(0, "127.0.0.1", resolve));
    }, 60_000);
    afterAll(async () => {
      ingestion?.close();
      identity?.close();
      await cosmos?.close();
    });

    it("answers an authenticated GET of a service account and sends its trace, dependencies and log record to Application Insights", async () => {
      const traceId = randomBytes(16).toString("hex");
      const { loaded, answers } = await runWorker(
        [
          {
            method: "GET",
            url: `https://func.example/api/v2/service-accounts/${admin.clientId}`,
            headers: basic(admin.clientId, admin.clientSecret),
            traceParent: `00-${traceId}-${randomBytes(8).toString("hex")}-01`,
          },
        ],
        {
          ...keys,
          STORE: "cosmos",
          COSMOS_ENDPOINT: cosmos.endpoint,
          COSMOS_DATABASE: database,
          COSMOS_TRUST_SELF_SIGNED: "true",
          // No COSMOS_KEY: DefaultAzureCredential, which finds the managed identity endpoint.
          IDENTITY_ENDPOINT: `http://127.0.0.1:${(identity.address() as AddressInfo).port}/msi/token`,
          IDENTITY_HEADER: "identity-header-value",
          QUEUE: "servicebus",
          SERVICEBUS__fullyQualifiedNamespace: "sb-secops-test.servicebus.windows.net",
          APPLICATIONINSIGHTS_CONNECTION_STRING: `InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1:${(ingestion.address() as AddressInfo).port}/`,
          APPLICATIONINSIGHTS_STATSBEAT_DISABLED: "true",
          APPLICATIONINSIGHTS_SDKSTATS_DISABLED: "true",
          NODE_EXTRA_CA_CERTS: certFile,
          WEBSITE_SITE_NAME: "func-secops-test",
          // The appTerminate hook flushes what telemetry holds.
          FUNCTIONS_WORKER_TERMINATE: "1",
        },
      );
      // Telemetry is joined to the Functions host (joinFunctionsHost): the host is told, and each
      // invocation runs in its trace.
      expect(loaded.capabilities).toMatchObject({ WorkerOpenTelemetryEnabled: "true" });
      expect(loaded.hooks).toMatchObject({ preInvocation: 1, log: 1, appTerminate: 1 });

      const [answer] = answers;
      expect(answer).toMatchObject({ function: "service-accounts", status: 200 });
      expect(JSON.parse(answer!.body).data).toMatchObject({ id: admin.clientId, accountId: admin.accountId, organizationalRole: "Admin" });
      expect(tokenRequests.length).toBeGreaterThan(0);
      expect(tokenRequests[0]).toMatch(/resource=.*identity-header-value$/);

      const items = received.flatMap((r) => r.items);
      expect(received.every((r) => r.url === "/v2.1/track")).toBe(true);
      const messages = items.filter((i) => i.data.baseType === "MessageData");
      const request = messages.find((m) => m.data.baseData.message === "request");
      expect(request?.data.baseData).toMatchObject({
        severityLevel: "Information",
        properties: { status: "200", method: "GET", path: `/api/v2/service-accounts/${admin.clientId}`, requestId: answer!.headers["x-request-id"] },
      });
      expect(request!.tags["ai.cloud.role"]).toBe("func-secops-test");
      expect(request!.tags["ai.operation.id"]).toBe(traceId);

      const dependencies = items.filter((i) => i.data.baseType === "RemoteDependencyData");
      // The Cosmos reads, HTTPS calls to the account caught by the HTTP instrumentation.
      const cosmosHost = new URL(cosmos.endpoint).host;
      expect(dependencies.map((d) => d.data.baseData)).toContainEqual(
        expect.objectContaining({ name: `GET /dbs/${database}/colls/serviceAccounts/docs/${admin.clientId}`, target: cosmosHost, resultCode: "200" }),
      );
      // The token request, traced by the identity library through @azure/core-tracing, which the
      // Azure SDK instrumentation connects to OpenTelemetry.
      expect(dependencies.map((d) => d.data.baseData)).toContainEqual(expect.objectContaining({ name: "ManagedIdentityCredential.getToken", type: "InProc | Microsoft.AAD" }));
      // All of it in the invocation's trace.
      expect(dependencies.length).toBeGreaterThan(2);
      for (const dependency of dependencies) expect(dependency.tags["ai.operation.id"], String(dependency.data.baseData.name)).toBe(traceId);
    }, 60_000);
  });
});

interface Envelope {
  name: string;
  tags: Record<string, string>;
  data: { baseType: string; baseData: Record<string, unknown> };
}

interface WorkerAnswer {
  function: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  bytes: number;
}

interface WorkerLoaded {
  functions: string[];
  capabilities: Record<string, string>;
  hooks: Record<string, number>;
}

/** Runs the package in a fresh worker process with only `env` (and PATH), and parses what the worker reports. */
function runWorker(requests: object[], env: Record<string, string>): Promise<{ loaded: WorkerLoaded; answers: WorkerAnswer[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER, pkg, JSON.stringify(requests)], { cwd: pkg, env: { PATH: process.env.PATH ?? "", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill(), 45_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      let lines: { worker: string }[];
      try {
        lines = stdout
          .split("\n")
          .filter((line) => line.startsWith('{"worker":'))
          .map((line) => JSON.parse(line) as { worker: string });
      } catch (error) {
        // A line cut short (the worker killed, or exiting before its output was written) fails the test, not the run.
        reject(new Error(`worker exit ${code}, its report unreadable (${String(error)}):\n${stderr.slice(-4000)}`));
        return;
      }
      const loaded = lines.find((l) => l.worker === "loaded") as WorkerLoaded | undefined;
      const answers = lines.filter((l) => l.worker === "answer") as unknown as WorkerAnswer[];
      if (code === 0 && loaded && answers.length === requests.length) resolve({ loaded, answers });
      else reject(new Error(`worker exit ${code}:\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`));
    });
  });
}

/** Runs a script with the package as working directory and only its node_modules to resolve from. */
function runInPackage(script: string): Promise<string> {
  const file = path.join(pkg, `check-${process.hrtime.bigint()}.js`);
  writeFileSync(file, script);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd: pkg, env: { PATH: process.env.PATH ?? "" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("close", (code) => {
      rmSync(file, { force: true });
      if (code === 0) resolve(stdout);
      else reject(new Error(`exit ${code}:\n${stdout}\n${stderr}`));
    });
  });
}

function basic(id: string, secret: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}` };
}

function key(fill: number): string {
  return Buffer.alloc(32, fill).toString("base64");
}
