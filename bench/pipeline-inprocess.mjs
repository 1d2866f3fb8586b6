// The request pipeline alone, in this process (no socket): GET /api/v2/service-accounts/{id} as an
// authenticated caller, through createPipeline over the whole route table, on the local host's
// services with the demo data. Reports the CPU time per request (process.cpuUsage: every thread,
// the garbage collector's included) and the wall time, per round.
//
// Usage: node bench/pipeline-inprocess.mjs [--requests N] [--rounds R]; `--cpu-prof` on the node
// command line profiles it. Prints one JSON line: { rounds: [{ cpuUs, wallUs }], requests }.

import { parseArgs } from "node:util";
import { inProcessPipeline } from "./in-process-pipeline.mjs";

const { values: args } = parseArgs({ options: { requests: { type: "string", default: "200000" }, rounds: { type: "string", default: "5" } } });
const requests = Number(args.requests);
const roundsWanted = Number(args.rounds);

const { handle, admin } = await inProcessPipeline();

// What a host hands the pipeline: the parsed request line, a header lookup, the client's address.
const headers = { authorization: `Basic ${Buffer.from(`${admin.clientId}:${admin.clientSecret}`).toString("base64")}`, host: "127.0.0.1:7071" };
const path = `/api/v2/service-accounts/${admin.clientId}`;
const signal = new AbortController().signal;
const header = (name) => headers[name];
const noBody = async () => Buffer.alloc(0);
const request = () => ({ method: "GET", path, search: "", origin: "http://127.0.0.1:7071", header, body: noBody, clientAddress: "127.0.0.1", signal });

// The host's start-up work ends first (the demo data's events and the collection after seeding take
// some 50 ms of CPU after the services resolve): requests sent into it find V8 deciding, at a
// scavenge where start-up objects and theirs are alive together, to allocate some of the request
// path's objects in the old generation for the rest of the process (allocation-site pretenuring),
// and the process then measures 17-25 us instead of 12-14. A host serving traffic is past it.
await settled();

const first = await handle(request());
if (first.response.status !== 200) throw new Error(`GET ${path}: ${first.response.status} ${first.response.body}`);

// Warm-up: the JIT and the heap settle before anything is measured.
for (let i = 0; i < Math.min(50_000, requests); i++) await handle(request());
const rounds = [];
for (let r = 0; r < roundsWanted; r++) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < requests; i++) await handle(request());
  const wallUs = ((performance.now() - t0) * 1000) / requests;
  const cpu = process.cpuUsage(cpu0);
  rounds.push({ cpuUs: (cpu.user + cpu.system) / requests, wallUs });
}
console.log(JSON.stringify({ requests, rounds, bodyBytes: Buffer.byteLength(first.response.body) }));

/** Resolves once the process has used under a tenth of a core for 100 ms, or after 5 s. */
async function settled() {
  const until = performance.now() + 5_000;
  for (;;) {
    const cpu = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const used = process.cpuUsage(cpu);
    if ((used.user + used.system) / 1000 < 10 || performance.now() > until) return;
  }
}
