// What an `Idempotency-Key` costs a POST, in this process (no socket): POST /api/v2/webhooks through
// createPipeline over the whole route table, on the local host's services (memory stores) with the
// demo data, in alternating batches of three kinds, so that a shared machine's noise falls on all
// alike: without a key; with a new key each (the key claimed, the answer sealed and kept); and sent
// again with a key already answered (the replay). Prints one JSON line: the median CPU and wall time
// per request of each kind, and their ratios to the POST without a key.
//
// Usage: npm run build && node bench/idempotency-key-cost.mjs [--batch N] [--rounds R]
import { parseArgs } from "node:util";
import { inProcessPipeline } from "./in-process-pipeline.mjs";

const { values: args } = parseArgs({ options: { batch: { type: "string", default: "200" }, rounds: { type: "string", default: "20" } } });
const batch = Number(args.batch);
const roundsWanted = Number(args.rounds);

const { handle, admin } = await inProcessPipeline({ localOptions: { resolveHost: async () => ["93.184.215.14"] } });

const authorization = `Basic ${Buffer.from(`${admin.clientId}:${admin.clientSecret}`).toString("base64")}`;
const signal = new AbortController().signal;
let n = 0;
/** A webhook creation, each with a body of its own (a new name), with the key given if any. */
function request(key, body) {
  const raw = Buffer.from(JSON.stringify(body));
  const headers = { authorization, host: "127.0.0.1:7071", "content-type": "application/json", ...(key === undefined ? {} : { "idempotency-key": key }) };
  return { method: "POST", path: "/api/v2/webhooks", search: "", origin: "http://127.0.0.1:7071", header: (name) => headers[name], body: async () => raw, clientAddress: "127.0.0.1", signal };
}
const bodyOf = () => ({ name: `bench ${++n}`, url: "https://receiver.example.com/hook", eventTypes: ["incident.created.v1"], authenticationType: "None" });
async function send(key, body = bodyOf()) {
  const { response } = await handle(request(key, body));
  if (response.status !== 201) throw new Error(`POST /webhooks: ${response.status} ${response.body}`);
}
// The replay's key, answered once before anything is measured.
const replayBody = bodyOf();
await send('"bench-replay"', replayBody);

const kinds = {
  withoutKey: () => send(undefined),
  newKey: () => send(`"bench-${n}-${Math.random()}"`),
  replayed: () => send('"bench-replay"', replayBody),
};
async function measure(kind) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < batch; i++) await kinds[kind]();
  const cpu = process.cpuUsage(cpu0);
  return { cpuUs: (cpu.user + cpu.system) / batch, wallUs: ((performance.now() - t0) * 1000) / batch };
}
// Warm-up: the JIT and the heap settle before anything is measured.
for (let r = 0; r < 3; r++) for (const kind of Object.keys(kinds)) await measure(kind);
const samples = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
for (let r = 0; r < roundsWanted; r++) {
  // The order turns each round, so no kind always follows the same one.
  const order = Object.keys(kinds);
  for (let i = 0; i < r % order.length; i++) order.push(order.shift());
  for (const kind of order) samples[kind].push(await measure(kind));
}
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
const result = Object.fromEntries(Object.entries(samples).map(([k, s]) => [k, { cpuUs: Math.round(median(s.map((x) => x.cpuUs))), wallUs: Math.round(median(s.map((x) => x.wallUs))) }]));
const ratio = (k) => Math.round((result[k].cpuUs / result.withoutKey.cpuUs) * 100) / 100;
console.log(JSON.stringify({ batch, rounds: roundsWanted, ...result, cpuRatio: { newKey: ratio("newKey"), replayed: ratio("replayed") } }));
