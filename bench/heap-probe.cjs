// Preloaded into a server the bench starts (`node --expose-gc --require bench/heap-probe.cjs <server>`),
// so the bench can read the server's heap after a full garbage collection without the server having an
// endpoint for it. Listens on 127.0.0.1:$BENCH_HEAP_PROBE_PORT, beside the server in its process:
//
//   GET /heap                  -> runs gc() twice (the second pass frees what the first one's finalizers
//                                 released), answers { heapUsedMb, heapTotalMb, rssMb, externalMb,
//                                 arrayBuffersMb, gcMs } as JSON
//   GET /snapshot?file=<path>  -> writes a heap snapshot there (for a look in Chrome DevTools), answers
//                                 { file }
//
// A collection stops the server's event loop while it runs (tens to hundreds of ms on a heap of a few
// hundred MB): a scenario that samples once a minute sees that pause in its latencies once a minute.
// The listener is unref'd: it never keeps the server alive on its own.

"use strict";
const http = require("node:http");
const v8 = require("node:v8");

const port = Number(process.env.BENCH_HEAP_PROBE_PORT);
if (!Number.isInteger(port) || port <= 0) throw new Error("heap-probe.cjs needs BENCH_HEAP_PROBE_PORT");
if (typeof globalThis.gc !== "function") throw new Error("heap-probe.cjs needs node --expose-gc");

const mb = (bytes) => bytes / (1024 * 1024);

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://probe");
  const answer = (status, body) => {
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(JSON.stringify(body));
  };
  if (req.method === "GET" && url.pathname === "/heap") {
    const started = performance.now();
    globalThis.gc();
    globalThis.gc();
    const gcMs = performance.now() - started;
    const m = process.memoryUsage();
    answer(200, { heapUsedMb: mb(m.heapUsed), heapTotalMb: mb(m.heapTotal), rssMb: mb(m.rss), externalMb: mb(m.external), arrayBuffersMb: mb(m.arrayBuffers), gcMs });
    return;
  }
  if (req.method === "GET" && url.pathname === "/snapshot" && url.searchParams.get("file")) {
    answer(200, { file: v8.writeHeapSnapshot(url.searchParams.get("file")) });
    return;
  }
  answer(404, { error: `unknown probe request ${req.method} ${url.pathname}` });
});
server.listen(port, "127.0.0.1");
server.unref();
