// Runs a function app folder as the Azure Functions Node.js worker (v4 programming model) does, and
// hands it HTTP requests, without the Functions host:
//
//   node scripts/functions-worker.cjs <appDir> '<requests as JSON>'
//
// What the worker does, in its order: it provides the built-in module `@azure/functions-core` (the
// worker's API: `registerFunction`, `setProgrammingModel`, `registerHook`) by intercepting `require`;
// it requires every file that package.json `main` matches (a glob), or imports it when it is an ES
// module; it runs the `appStart` hooks; and for an invocation it asks the programming model the app's
// `@azure/functions` set for an invocation model, builds the handler's arguments from the RPC request
// (`getArguments`), runs the `preInvocation` hooks, calls the handler that `app.http` registered and
// turns its result into the RPC response (`getResponse`). The host's part is played here: the HTTP
// function is chosen by its route template (host.json's route prefix is empty), as the host routes.
//
// Each request: { method, url, headers?, body?, traceParent? }. Prints `{ worker: "loaded", at, functions,
// capabilities, hooks }` once the entry files are loaded (`hooks`: how many of each kind the app
// registered), then `{ worker: "answer", at, cpuMs, function, status, headers, body, bytes }` per
// answer (`at`: ms since this process started, performance.now(); `cpuMs`: the CPU time the process
// has used by then, which waiting for a busy machine's CPU does not inflate; `body` as UTF-8 text), on stdout
// among whatever the app itself writes there. With
// FUNCTIONS_WORKER_TERMINATE=1 it runs the `appTerminate` hooks before it exits (telemetry flushes
// there); otherwise it exits at once after the last answer. Plain CommonJS on purpose: it must load
// in a deployment folder with nothing but Node.
"use strict";
const Module = require("node:module");
const path = require("node:path");
const { readdirSync, readFileSync } = require("node:fs");
const { pathToFileURL } = require("node:url");
const { randomBytes, randomUUID } = require("node:crypto");

async function main() {
  const [appDirArg, requestsArg = "[]"] = process.argv.slice(2);
  if (!appDirArg) throw new Error("usage: functions-worker.cjs <appDir> '<requests as JSON>'");
  const appDir = path.resolve(appDirArg);
  const requests = JSON.parse(requestsArg);

  const functions = [];
  const hooks = { appStart: [], preInvocation: [], postInvocation: [], appTerminate: [], log: [] };
  let programmingModel;
  const disposable = (fn) => ({ dispose: fn });
  const coreApi = {
    version: "3.10.1",
    hostVersion: "4.1037.0",
    setProgrammingModel: (model) => (programmingModel = model),
    getProgrammingModel: () => programmingModel,
    registerFunction(metadata, callback) {
      const entry = { metadata, callback };
      functions.push(entry);
      return disposable(() => functions.splice(functions.indexOf(entry), 1));
    },
    registerHook(name, callback) {
      const list = hooks[name];
      if (!list) throw new Error(`unknown hook ${name}`);
      list.push(callback);
      return disposable(() => list.splice(list.indexOf(callback), 1));
    },
    Disposable: class {
      static from(...items) {
        return disposable(() => items.forEach((d) => d?.dispose?.()));
      }
      constructor(fn) {
        this.dispose = fn;
      }
    },
    log: (level, category, message) => {
      if (level === "warning" || level === "error" || level === "critical") process.stderr.write(`[${level}] ${message}\n`);
    },
  };
  Module.prototype.require = new Proxy(Module.prototype.require, {
    apply(target, thisArg, args) {
      return args[0] === "@azure/functions-core" ? coreApi : Reflect.apply(target, thisArg, args);
    },
  });

  const pkg = JSON.parse(readFileSync(path.join(appDir, "package.json"), "utf8"));
  for (const file of entryFiles(appDir, pkg.main)) {
    if (file.endsWith(".mjs") || (pkg.type === "module" && !file.endsWith(".cjs"))) await import(pathToFileURL(file).href);
    else require(file);
  }
  // Once the app is loaded the worker asks the programming model for its capabilities (which also
  // locks `app.setup`), then runs the appStart hooks.
  const capabilities = programmingModel ? await programmingModel.getCapabilities({}) : {};
  for (const hook of hooks.appStart) await hook({ hookData: {}, appHookData: {}, functionAppDirectory: appDir });
  const hookCounts = Object.fromEntries(Object.entries(hooks).map(([name, list]) => [name, list.length]));
  print({ worker: "loaded", at: performance.now(), functions: functions.map((f) => f.metadata.name), capabilities, hooks: hookCounts });

  for (const request of requests) {
    const fn = routeOf(functions, new URL(request.url).pathname);
    if (!fn) throw new Error(`no HTTP function's route matches ${request.url}`);
    const response = await invoke(programmingModel, hooks, fn, request);
    const http = response.returnValue?.http ?? {};
    const body = http.body?.bytes ? Buffer.from(http.body.bytes) : Buffer.from(http.body?.string ?? "");
    const at = performance.now();
    const { user, system } = process.cpuUsage();
    print({ worker: "answer", at, cpuMs: (user + system) / 1000, function: fn.metadata.name, status: Number(http.statusCode), headers: http.headers ?? {}, body: body.toString("utf8"), bytes: body.length });
  }
  if (process.env.FUNCTIONS_WORKER_TERMINATE === "1") {
    for (const hook of hooks.appTerminate) await hook({ hookData: {}, appHookData: {} });
  }
  exitWhenWritten(0);
}

/**
 * Exits once stdout and stderr have taken everything written, as `scripts/exit-when-written.ts` does
 * for the commands (this file loads with Node alone, so it keeps its own few lines): a write to a pipe
 * may still be queued when it returns, and an answer's body can be hundreds of kilobytes.
 */
function exitWhenWritten(code) {
  let pending = 2;
  const done = () => --pending === 0 && process.exit(code);
  process.stdout.write("", done);
  process.stderr.write("", done);
}

/** package.json `main`: one file, or a pattern with `*` in its last segment (what this app uses). */
function entryFiles(appDir, main) {
  if (!main) throw new Error("package.json has no main");
  const dir = path.join(appDir, path.dirname(main));
  const pattern = path.basename(main);
  if (!pattern.includes("*")) return [path.join(appDir, main)];
  const re = new RegExp(`^${pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*")}$`);
  return readdirSync(dir).filter((f) => re.test(f)).sort().map((f) => path.join(dir, f));
}

/** The HTTP function whose route template matches the path; of several, the most specific (literals first). */
function routeOf(functions, pathname) {
  const segments = pathname.replace(/^\/+|\/+$/g, "").split("/");
  let best;
  for (const fn of functions) {
    const trigger = Object.values(fn.metadata.bindings).find((b) => b.type === "httpTrigger");
    if (!trigger) continue;
    const template = String(trigger.route ?? fn.metadata.name).replace(/^\/+|\/+$/g, "").split("/");
    const rank = matchRank(template, segments);
    if (rank && (!best || compareRank(rank, best.rank) > 0)) best = { fn, rank };
  }
  return best?.fn;
}

function matchRank(template, segments) {
  const rank = [];
  for (let i = 0; i < template.length; i++) {
    const part = template[i];
    if (part.startsWith("{*")) return [...rank, 0];
    if (i >= segments.length) return undefined;
    if (part.startsWith("{")) rank.push(1);
    else if (part.toLowerCase() === decodeURIComponent(segments[i]).toLowerCase()) rank.push(2);
    else return undefined;
  }
  return template.length === segments.length ? rank : undefined;
}

function compareRank(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? -1) - (b[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/** One invocation, as the worker's InvocationHandler makes it. */
async function invoke(programmingModel, hooks, fn, request) {
  const [triggerName] = Object.entries(fn.metadata.bindings).find(([, b]) => b.type === "httpTrigger");
  const invocationId = randomUUID();
  const url = new URL(request.url);
  const coreCtx = {
    invocationId,
    request: {
      invocationId,
      functionId: fn.metadata.functionId ?? fn.metadata.name,
      inputData: [
        {
          name: triggerName,
          data: {
            http: {
              method: request.method,
              url: request.url,
              headers: request.headers ?? {},
              query: Object.fromEntries(url.searchParams),
              params: {},
              body: request.body === undefined ? undefined : { bytes: Buffer.from(request.body) },
            },
          },
        },
      ],
      triggerMetadata: {},
      // The host starts each invocation's trace; a request may name it (W3C traceparent).
      traceContext: { traceParent: request.traceParent ?? `00-${randomHex(16)}-${randomHex(8)}-01`, traceState: "", attributes: {} },
    },
    metadata: fn.metadata,
    state: undefined,
    log: (level, category, message) => {
      if (level === "warning" || level === "error" || level === "critical") process.stderr.write(`[${level}] ${message}\n`);
    },
  };
  const model = await programmingModel.getInvocationModel(coreCtx);
  const { context, inputs } = await model.getArguments();
  const pre = { hookData: {}, appHookData: {}, invocationContext: context, functionCallback: fn.callback, inputs };
  for (const hook of hooks.preInvocation) await hook(pre);
  let result;
  let error;
  try {
    result = await model.invokeFunction(context, pre.inputs, pre.functionCallback);
  } catch (err) {
    error = err;
  }
  const post = { hookData: pre.hookData, appHookData: {}, invocationContext: context, inputs: pre.inputs, result, error };
  for (const hook of hooks.postInvocation) await hook(post);
  if (post.error) throw post.error;
  return model.getResponse(context, post.result);
}

function randomHex(bytes) {
  return randomBytes(bytes).toString("hex");
}

function print(value) {
  process.stdout.write(JSON.stringify(value) + "\n");
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  exitWhenWritten(1);
});
