// Two builds' request pipelines side by side in one process, in alternating batches of 20,000
// authenticated GET /service-accounts/{id} (as bench/pipeline-inprocess.mjs sends them), so that
// a shared machine's noise falls on both alike; prints the CPU per request of each (medians) and
// their ratio. Each folder must hold a built dist/ (`npm run build`; a pinned older build in a git
// worktree, say).
//
// Usage: node bench/pipeline-ab.mjs <base folder> <candidate folder> [rounds, default 30] [swap]
// (`swap` loads the candidate first, to show the loading order does not decide the result)
import path from "node:path";
import { inProcessPipeline } from "./in-process-pipeline.mjs";
async function load(root) {
  const { handle, admin } = await inProcessPipeline({ root });
  const headers = { authorization: `Basic ${Buffer.from(`${admin.clientId}:${admin.clientSecret}`).toString("base64")}`, host: "127.0.0.1:7071" };
  const path = `/api/v2/service-accounts/${admin.clientId}`;
  const signal = new AbortController().signal;
  const header = (n) => headers[n];
  const noBody = async () => Buffer.alloc(0);
  const request = () => ({ method: "GET", path, search: "", origin: "http://127.0.0.1:7071", header, body: noBody, clientAddress: "127.0.0.1", signal });
  const r = await handle(request());
  if (r.response.status !== 200) throw new Error(root + " " + r.response.status);
  return { handle, request };
}
const [baseRoot, candidateRoot] = process.argv.slice(2, 4).map((p) => path.resolve(p ?? ""));
if (!process.argv[3]) throw new Error("usage: node bench/pipeline-ab.mjs <base folder> <candidate folder> [rounds] [swap]");
const order = process.argv[5] === "swap" ? ["main", "base"] : ["base", "main"];
const roots = { base: baseRoot, main: candidateRoot };
const builds = {};
for (const name of order) builds[name] = await load(roots[name]);
for (const b of Object.values(builds)) for (let i = 0; i < 50000; i++) await b.handle(b.request());
const N = 20000;
const ROUNDS = Number(process.argv[4] ?? 30);
const us = { base: [], main: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const name of r % 2 ? ["main", "base"] : ["base", "main"]) {
    const b = builds[name];
    const c0 = process.cpuUsage();
    for (let i = 0; i < N; i++) await b.handle(b.request());
    const c = process.cpuUsage(c0);
    us[name].push((c.user + c.system) / N);
  }
}
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const ratios = us.main.map((m, i) => m / us.base[i]);
console.log(JSON.stringify({ baseUs: med(us.base).toFixed(2), candidateUs: med(us.main).toFixed(2), ratioOfMedians: (med(us.main) / med(us.base)).toFixed(3), medianPairRatio: med(ratios).toFixed(3) }));
