/**
 * Builds the deployment package exactly as `azd deploy` does (the `api` service's prepackage hook in
 * azure.yaml runs scripts/package-function.mjs) and checks what would ship: the compiled app and the
 * production dependencies only, within a size budget; that it loads on those dependencies alone; and
 * that, given an Application Insights connection string, it sends logs with their fields as custom
 * dimensions and calls to Cosmos DB and webhook targets as dependencies (to a fake ingestion endpoint).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer as createHttpsServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { generate } from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmosServer, type CosmosServer } from "../support/cosmos-server";

const root = path.resolve(__dirname, "../..");
/** Uncompressed; it was about 50 MB when this budget was set. */
const SIZE_BUDGET_BYTES = 80 * 1024 * 1024;

let work: string;
let pkg: string;
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), "function-app-"));
  // Outside the repository, so that module resolution cannot fall back on its node_modules.
  pkg = path.join(work, "package");
  const built = spawnSync(process.execPath, [path.join(root, "scripts/package-function.mjs"), pkg], { cwd: root, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`packaging failed:\n${built.stdout}\n${built.stderr}`);
}, 300_000);
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full, base) : [path.relative(base, full).split(path.sep).join("/")];
  });
}

const rootPackage = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  main: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as { packages: Record<string, { dev?: boolean }> };

describe("deployment package", () => {
  it("holds the compiled functions and shared code, host.json and a package.json without scripts, and nothing else of the repository", () => {
    const all = filesUnder(pkg);
    const own = all.filter((f) => !f.startsWith("node_modules/"));
    expect(own.filter((f) => !f.startsWith("dist/")).sort()).toEqual(["host.json", "package-lock.json", "package.json"]);
    // The portal page, bundled: its page, one script and one stylesheet, content-named; no source maps.
    const page = own.filter((f) => f.startsWith("dist/portal/")).sort();
    expect(page.map((f) => f.replace(/-\w+\.(js|css)$/, ".$1")).sort()).toEqual(["dist/portal/assets/app.css", "dist/portal/assets/app.js", "dist/portal/index.html"]);
    // Otherwise only compiled JavaScript: no TypeScript sources, source maps, tests, bench, scripts or infra.
    const code = own.filter((f) => !f.startsWith("dist/portal/"));
    expect(code.filter((f) => f.startsWith("dist/") && !f.endsWith(".js"))).toEqual(["dist/shared/hosts/azure/http-functions.json"]);
    expect(code.filter((f) => !/^dist\/(functions|shared)\//.test(f) && f.startsWith("dist/"))).toEqual([]);
    // What Azure runs only: no simulated system and no local host (they are the embedded default's).
    expect(own.filter((f) => f.startsWith("dist/shared/hosts/local/") || /^dist\/shared\/systems\/[^/]+\/simulated\//.test(f))).toEqual([]);
    for (const kind of ["hosts/azure", "api", "domain", "platform", "systems"]) expect(own.some((f) => f.startsWith(`dist/shared/${kind}/`)), kind).toBe(true);
    const functionFiles = readdirSync(path.join(root, "functions")).filter((f) => f.endsWith(".ts"));
    for (const f of functionFiles) expect(own, f).toContain(`dist/functions/${f.replace(/\.ts$/, ".js")}`);

    const shipped = JSON.parse(readFileSync(path.join(pkg, "package.json"), "utf8")) as Record<string, unknown>;
    expect(shipped.main).toBe(rootPackage.main);
    expect(shipped.main).toBe("dist/functions/*.js");
    expect(shipped).not.toHaveProperty("scripts");
    expect(JSON.parse(readFileSync(path.join(pkg, "host.json"), "utf8"))).toEqual(JSON.parse(readFileSync(path.join(root, "host.json"), "utf8")));
  });

  it("installs every production dependency and no development dependency, without source maps or type declarations", () => {
    for (const name of Object.keys(rootPackage.dependencies)) {
      expect(statSync(path.join(pkg, "node_modules", name, "package.json")).isFile(), name).toBe(true);
    }
    const devOnly = Object.entries(lock.packages)
      .filter(([p, meta]) => p.startsWith("node_modules/") && meta.dev === true)
      .map(([p]) => p);
    expect(devOnly.length).toBeGreaterThan(50);
    const present = devOnly.filter((p) => {
      try {
        return statSync(path.join(pkg, p)).isDirectory();
      } catch {
        return false;
      }
    });
    expect(present).toEqual([]);
    for (const name of Object.keys(rootPackage.devDependencies)) expect(present).not.toContain(`node_modules/${name}`);
    expect(filesUnder(path.join(pkg, "node_modules")).filter((f) => /\.(map|d\.ts)$/.test(f))).toEqual([]);
  });

  it(`stays within its size budget (${SIZE_BUDGET_BYTES / 1024 / 1024} MB uncompressed)`, () => {
    const bytes = filesUnder(pkg).reduce((sum, f) => sum + statSync(path.join(pkg, f)).size, 0);
    console.log(`deployment package: ${(bytes / 1024 / 1024).toFixed(1)} MB, ${filesUnder(pkg).length} files`);
    expect(bytes).toBeLessThan(SIZE_BUDGET_BYTES);
  });

  it("loads every function file on the production dependencies alone, without loading OpenTelemetry when no connection string is set", async () => {
    const out = await runInPackage(`
      for (const f of require("fs").readdirSync("dist/functions")) require("./dist/functions/" + f);
      const otel = Object.keys(require.cache).filter((k) => k.includes("@opentelemetry") || k.includes("monitor-opentelemetry"));
      console.log(JSON.stringify({ loaded: true, otel: otel.length }));
    `, {});
    expect(JSON.parse(out.trim().split("\n").pop()!)).toEqual({ loaded: true, otel: 0 });
  });
});

describe("deployment package telemetry", () => {
  let ingestion: Server;
  let certFile: string;
  let cosmos: CosmosServer;
  const received: { url: string; items: Envelope[] }[] = [];

  beforeAll(async () => {
    cosmos = await startCosmosServer();
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
  }, 60_000);
  afterAll(async () => {
    ingestion?.close();
    await cosmos?.close();
  });

  it("sends log fields as custom dimensions and Cosmos DB and webhook calls as dependencies to Application Insights", async () => {
    const { port } = ingestion.address() as AddressInfo;
    await runInPackage(
      `
      (async () => {
        for (const f of require("fs").readdirSync("dist/functions")) require("./dist/functions/" + f);
        const { activeTelemetry } = require("./dist/shared/hosts/azure/telemetry.js");
        const { createServices } = require("./dist/shared/hosts/composition.js");
        const { loadConfig } = require("./dist/shared/platform/config/config.js");
        const services = createServices(loadConfig(process.env));
        services.logger.info("request", { requestId: "req-1", eventId: "evt-1", webhookId: "wh-1", incidentId: "INC-1", status: 200 });
        services.logger.debug("below the level", { requestId: "req-2" });
        await services.stores.accounts.get("health-probe").catch(() => undefined);
        const tracing = require("@azure/core-tracing").createTracingClient({ namespace: "Microsoft.ServiceBus", packageName: "@azure/service-bus" });
        await tracing.withSpan("ServiceBusSender.send", {}, async () => {}, { spanKind: "client" });
        const target = require("http").createServer((q, s) => s.end("ok"));
        await new Promise((r) => target.listen(0, "127.0.0.1", r));
        const { request } = require("undici");
        const res = await request("http://127.0.0.1:" + target.address().port + "/hook", { method: "POST", body: "{}" });
        await res.body.text();
        await activeTelemetry().flush();
        target.close();
        console.log("done");
        process.exit(0);
      })().catch((e) => { console.error(e); process.exit(1); });
      `,
      {
        APPLICATIONINSIGHTS_CONNECTION_STRING: `InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1:${port}/`,
        APPLICATIONINSIGHTS_STATSBEAT_DISABLED: "true",
        APPLICATIONINSIGHTS_SDKSTATS_DISABLED: "true",
        NODE_EXTRA_CA_CERTS: certFile,
        WEBSITE_SITE_NAME: "func-secops-test",
        STORE: "cosmos",
        COSMOS_ENDPOINT: cosmos.endpoint,
        COSMOS_KEY: cosmos.key,
        COSMOS_DATABASE: "telemetry",
        COSMOS_TRUST_SELF_SIGNED: "true",
        SECRET_HASH_KEY: Buffer.alloc(32, 1).toString("base64"),
        PAGE_TOKEN_KEY: Buffer.alloc(32, 2).toString("base64"),
        WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 3).toString("base64"),
      },
    );
    const items = received.flatMap((r) => r.items);
    expect(received.every((r) => r.url === "/v2.1/track")).toBe(true);

    const messages = items.filter((i) => i.data.baseType === "MessageData");
    expect(messages).toHaveLength(1);
    expect(messages[0]!.data.baseData).toMatchObject({
      message: "request",
      severityLevel: "Information",
      properties: { requestId: "req-1", eventId: "evt-1", webhookId: "wh-1", incidentId: "INC-1", status: "200" },
    });
    expect(messages[0]!.tags["ai.cloud.role"]).toBe("func-secops-test");

    const dependencies = items.filter((i) => i.data.baseType === "RemoteDependencyData").map((i) => i.data.baseData);
    expect(dependencies).toContainEqual(expect.objectContaining({ name: "POST /hook", type: "Http", resultCode: "200" }));
    // The Cosmos read: an HTTPS call to the account, caught by the HTTP instrumentation.
    const cosmosHost = new URL(cosmos.endpoint).host;
    expect(dependencies).toContainEqual(expect.objectContaining({ name: "GET /dbs/telemetry/colls/accounts/docs/health-probe", target: cosmosHost }));
    // Azure SDK operations (Service Bus sends, over AMQP rather than HTTP) trace through
    // @azure/core-tracing, which the Azure SDK instrumentation connects to OpenTelemetry.
    expect(dependencies).toContainEqual(expect.objectContaining({ name: "ServiceBusSender.send" }));
  }, 60_000);
});

interface Envelope {
  name: string;
  tags: Record<string, string>;
  data: { baseType: string; baseData: Record<string, unknown> };
}

/** Runs a script with the package as working directory and only its node_modules to resolve from. */
function runInPackage(script: string, env: Record<string, string>): Promise<string> {
  const file = path.join(pkg, `check-${process.hrtime.bigint()}.js`);
  writeFileSync(file, script);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd: pkg, env: { PATH: process.env.PATH ?? "", ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill(), 45_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      rmSync(file, { force: true });
      if (code === 0) resolve(stdout);
      else reject(new Error(`exit ${code}:\n${stdout}\n${stderr}`));
    });
  });
}
