// Preloaded into the API host (`node --require bench/vendor-call-probe.cjs <host>`), so a scenario can
// count the calls the host makes to its simulated vendors without the host having a counter for them.
// The simulated vendor waits SIMULATED_VENDOR_LATENCY_MS on every call with node:timers/promises'
// setTimeout (shared/systems/vendors/simulated/simulated-vendor.ts), looked up on the module at each
// call: this counts the waits of exactly that length. Only meaningful with a latency above 0 and
// nothing else in the host waiting that long (the reconciler off: RECONCILE_INTERVAL_MS=0). A call
// that is aborted during its wait still counts: it reached the vendor.
//
//   GET /calls             -> { calls } since the host started
//   GET /calls?from=<n>    -> { calls, starts }: also when each call from the n-th on started (ms since
//                             the epoch), to tell calls made together from calls made one after another
//
// Listens on 127.0.0.1:$BENCH_VENDOR_PROBE_PORT, beside the host in its process; unref'd, so it never
// keeps the host alive on its own.

"use strict";
const http = require("node:http");
const timers = require("node:timers/promises");

const port = Number(process.env.BENCH_VENDOR_PROBE_PORT);
if (!Number.isInteger(port) || port <= 0) throw new Error("vendor-call-probe.cjs needs BENCH_VENDOR_PROBE_PORT");
const latencyMs = Number(process.env.SIMULATED_VENDOR_LATENCY_MS ?? 0);
if (!(latencyMs > 0)) throw new Error("vendor-call-probe.cjs needs SIMULATED_VENDOR_LATENCY_MS above 0: it counts the vendor's waits");

/** When each call started (ms since the epoch), in order. */
const starts = [];
const original = timers.setTimeout;
timers.setTimeout = function setTimeout(delay, ...rest) {
  if (delay === latencyMs) starts.push(Date.now());
  return original.call(this, delay, ...rest);
};

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://probe");
  if (req.method === "GET" && url.pathname === "/calls") {
    const from = url.searchParams.get("from");
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(from === null ? { calls: starts.length } : { calls: starts.length, starts: starts.slice(Number(from)) }));
    return;
  }
  res.writeHead(404).end();
});
server.listen(port, "127.0.0.1");
server.unref();
