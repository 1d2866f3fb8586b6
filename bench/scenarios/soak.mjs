// Soak: the local API host under a steady mixed load for minutes, three webhooks receiving every event,
// one outage of the receiver in the middle. Does memory stay flat, and does every event arrive once?

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { apiJson, ROOT, startApiHost, startCosmosServer } from "../api-host.mjs";
import { childEnv, describeExit, numberFromEnv, p50p99, processCpuMs, startIpcChild } from "../lib.mjs";
import { closedLoop, createLoad, openLoop, prepareWorld, reconcileEvents } from "../mixed-load.mjs";

const HTTPS_RECEIVER = path.join(ROOT, "bench/https-receiver.mjs");
const HOOKS = ["a", "b", "c"];
/** Per 150 requests: reads 70 (incident, comments, cross-workspace page, delivery log), writes 80. */
const MIX = {
  readIncident: 40,
  readComments: 10,
  listPage: 15,
  readDeliveryLog: 5,
  changeStatus: 34,
  changeAssignee: 34,
  runGamebook: 6,
  createAtVendor: 3,
  closeAtVendor: 3,
};
/** On Cosmos the soak runs at this share of what a closed-loop calibration was served. */
const COSMOS_SHARE_OF_CALIBRATION = 0.5;
/** A reconcile pass (the timer's stand-in) this often; the host's own timer is off. */
const RECONCILE_EVERY_MS = 10_000;
/** Targets: heap after a full collection at the end within this of the start; no event lost. */
const HEAP_GROWTH_TARGET_MB = 50;
/** The client's limit on outstanding requests; arrivals beyond it are counted as not sent. */
const MAX_IN_FLIGHT = 256;
/** After the load: how long the receiver's counts must stand still (longer than the 30 s retry backoff), and the longest wait. */
const SETTLE_QUIET_MS = 40_000;
const SETTLE_MAX_MS = 420_000;

/**
 * Two runs, each against a fresh host started as the other scenarios start it (dist/), under
 * bench/heap-probe.cjs, so the heap after a full collection can be read once a minute:
 *
 * - memory store: BENCH_SOAK_MEMORY_S (default 600; the target is set for 1800) at BENCH_SOAK_RPS
 *   (default 150) requests a second;
 * - STORE=cosmos on the Cosmos-protocol server (bench/cosmos-server.mjs, its own process):
 *   BENCH_SOAK_COSMOS_S (default 300) at the rate it can take: half what 16 closed-loop workers are
 *   served in a 30 s calibration with the same mix (at most BENCH_SOAK_RPS; the requests' deliveries
 *   and audit events come behind them), or BENCH_SOAK_COSMOS_RPS. Connections are kept alive
 *   throughout: the bench's to the host (undici), the host's to the Cosmos-protocol server.
 * BENCH_SOAK_STORES (default "memory,cosmos") picks the runs; 0 s skips one too. BENCH_SOAK_SNAPSHOT_DIR:
 * also write heap snapshots of the host there, before the load and after it has settled (compare them in
 * Chrome DevTools to see what grew).
 *
 * The load (bench/mixed-load.mjs), open loop over keep-alive connections: per 150 requests, 40 incident
 * reads, 10 comment reads, 15 first pages of the cross-workspace listing, 5 delivery-log pages, 34 status
 * flips, 34 assignee changes (unique addresses), 6 gamebook runs (one comment playbook), 3 incidents
 * created and 3 closed in SourceA's console; a reconcile pass every 10 s. Three webhooks subscribed to
 * every event deliver to one HTTPS receiver (bench/https-receiver.mjs, its own process), which verifies
 * both signatures with each webhook's secret. For BENCH_SOAK_OUTAGE_S (default 60) in the middle of
 * the run it answers 500 to everything; the service retries (every 30 s, for 5 minutes).
 *
 * Per minute: requests/s, p50/p99, non-2xx, the host's RSS and heap after a full collection, and what
 * the receiver has got. At the end (after a last reconcile, and once the receiver's counts have stood
 * still for 40 s): per webhook, events lost (an expected event that never arrived there, or one
 * another webhook got) and duplicated (the same event id answered 200 twice).
 */
export async function soak({ log }) {
  const stores = (process.env.BENCH_SOAK_STORES ?? "memory,cosmos").split(",").map((s) => s.trim()).filter(Boolean);
  const rate = numberFromEnv("BENCH_SOAK_RPS", 150);
  const outageS = numberFromEnv("BENCH_SOAK_OUTAGE_S", 60, { min: 0 });
  const snapshotDir = process.env.BENCH_SOAK_SNAPSHOT_DIR ? path.resolve(process.env.BENCH_SOAK_SNAPSHOT_DIR) : null;
  const runs = [];
  if (stores.includes("memory")) {
    const seconds = numberFromEnv("BENCH_SOAK_MEMORY_S", 600, { min: 0 });
    if (seconds > 0) runs.push({ store: "memory", seconds, rate });
  }
  if (stores.includes("cosmos")) {
    const seconds = numberFromEnv("BENCH_SOAK_COSMOS_S", 300, { min: 0 });
    const fixed = process.env.BENCH_SOAK_COSMOS_RPS ? numberFromEnv("BENCH_SOAK_COSMOS_RPS", 50) : null;
    if (seconds > 0) runs.push({ store: "cosmos", seconds, rate: fixed, maxRate: rate });
  }
  const results = [];
  const problems = [];
  const checks = [];
  for (const run of runs) {
    log(`  -- ${run.store} store, ${run.seconds} s`);
    const result = await soakOnce({ ...run, outageS, snapshotDir, log });
    results.push(result);
    problems.push(...result.problems.map((p) => `${run.store}: ${p}`));
    checks.push(...result.checks.map((c) => ({ ...c, name: `${run.store}: ${c.name}` })));
  }
  return { checks, problems, runs: results };
}

async function soakOnce({ store, seconds, rate, maxRate, outageS, snapshotDir, log }) {
  const problems = [];
  const notes = [];
  const started = [];
  let tmpDir;
  let load;
  try {
    const receiver = await startIpcChild({ name: "https receiver", script: HTTPS_RECEIVER, cwd: ROOT, env: childEnv({}) });
    started.push(receiver);
    tmpDir = await mkdtemp(path.join(os.tmpdir(), "bench-soak-"));
    const certPath = path.join(tmpDir, "receiver-cert.pem");
    await writeFile(certPath, receiver.ready.cert);

    let cosmosEnv = {};
    let cosmosPid = null;
    if (store === "cosmos") {
      const cosmos = await startCosmosServer();
      started.push(cosmos.server);
      cosmosEnv = cosmos.hostEnv("soak");
      cosmosPid = cosmos.server.child.pid;
    }
    const t0 = performance.now();
    const api = await startApiHost({
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", NODE_EXTRA_CA_CERTS: certPath, RECONCILE_INTERVAL_MS: "0", ...cosmosEnv },
      readyTimeoutMs: 300_000,
      heapProbe: true,
    });
    started.unshift(api.server); // stopped first: the host, then what it talks to
    log(`  host ready in ${((performance.now() - t0) / 1000).toFixed(1)} s (STORE=${store})`);

    const world = await prepareWorld(api, { incidents: 600 });
    // The demo's own webhooks go: their endpoints do not exist (a failed name lookup can take seconds
    // on a machine without a resolver, holding one of the delivery queue's slots), and the paused ones
    // hold every delivery until resumed. The soak measures its three webhooks and nothing else.
    const demoHooks = (await apiJson(api, "GET", "/webhooks")).data;
    for (const hook of demoHooks) await apiJson(api, "DELETE", `/webhooks/${hook.id}`);
    const secrets = {};
    const webhookIds = [];
    for (const name of HOOKS) {
      const created = await apiJson(api, "POST", "/webhooks", {
        name: `soak ${name}`,
        url: `https://127.0.0.1:${receiver.ready.port}/hooks/${name}`,
        eventTypes: world.eventTypes,
        authenticationType: "None",
      });
      secrets[name] = created.data.signingSecret;
      webhookIds.push(created.data.id);
    }
    await receiver.call({ op: "configureHooks", hooks: secrets });
    log(`  ${world.incidents.length} open incidents in ${world.workspaces.length} workspaces (${world.noApproval.length} run gamebooks without approval); the demo's ${demoHooks.length} webhooks deleted, 3 on every event type (${world.eventTypes.length})`);

    load = createLoad({ api, world, mix: MIX, webhookIds, tag: `soak-${store}` });
    const { ctx } = load;

    if (rate === null) {
      // Cosmos: what it can take. Closed loop with the same mix measures the requests alone; behind
      // them come their events, deliveries, delivery-log entries and audit events, and the Cosmos-
      // protocol server slows as it fills (its queries scan). Half the calibration is what it sustains.
      const calibration = [];
      const c = await closedLoop({ workers: 16, durationMs: 30_000, next: load.next, onResult: (r) => calibration.push(r) });
      const served = calibration.filter((r) => r.status >= 200 && r.status < 300).length / c.seconds;
      const lat = p50p99(calibration.map((r) => r.ms));
      rate = Math.max(5, Math.min(maxRate, Math.floor(served * COSMOS_SHARE_OF_CALIBRATION)));
      log(`  calibration: 16 closed-loop workers for 30 s were served ${served.toFixed(1)} 2xx/s (p50 ${lat.p50.toFixed(0)} ms, p99 ${lat.p99.toFixed(0)} ms); soak at ${rate} req/s`);
      ctx.expected.length = 0; // the calibration's writes are not part of the soak's accounting
    }

    const heapStart = await api.heapAfterGc();
    if (snapshotDir) await api.heapSnapshot(path.join(snapshotDir, `soak-${store}-start.heapsnapshot`));
    const rssStart = heapStart.rssMb;
    log(`  start: heap after GC ${heapStart.heapUsedMb.toFixed(1)} MB, RSS ${rssStart.toFixed(0)} MB; ${rate} req/s for ${seconds} s; receiver answers 500 for ${outageS} s from ${outageWindow(seconds, outageS).from} s`);
    log(`  minute   req/s    p50 ms    p99 ms  non-2xx  not sent  host CPU  heap MB   RSS MB  received a/b/c`);

    // Per-minute buckets, filled as answers come in.
    const minutes = [];
    const bucket = (at) => {
      const m = Math.floor((at - loadStart) / 60_000);
      return (minutes[m] ??= { minute: m + 1, n: 0, ms: [], non2xx: 0, byStatus: {}, notSent: 0 });
    };
    const results = [];
    const onResult = (r) => {
      const b = bucket(r.answeredAt);
      b.n++;
      b.ms.push(r.ms);
      if (r.status < 200 || r.status > 299) {
        b.non2xx++;
        const k = `${r.op} ${r.status}${r.code ? ` ${r.code}` : ""}${r.error ? ` ${r.error}` : ""}`;
        b.byStatus[k] = (b.byStatus[k] ?? 0) + 1;
      }
      results.push({ op: r.op, status: r.status, ms: r.ms });
    };

    // The reconcile timer's stand-in, and the outage of the receiver, on their own clocks.
    const loadStart = performance.now();
    let stopping = false;
    const reconciles = [];
    const reconcileLoop = (async () => {
      while (!stopping) {
        await sleep(RECONCILE_EVERY_MS);
        if (stopping) break;
        const startedAt = performance.now();
        const res = await ctx.local("POST", "/reconcile");
        reconciles.push({ ms: res.ms, status: res.status });
        onResult({ op: "reconcile", ...res });
        if (res.status === 200) ctx.vendor.lastPassStartedAt = startedAt;
      }
    })();
    const outage = outageWindow(seconds, outageS);
    const outageLoop = (async () => {
      if (outageS === 0) return;
      await sleep(outage.from * 1000);
      if (stopping) return;
      await receiver.call({ op: "respond", status: 500 });
      await sleep(outageS * 1000);
      await receiver.call({ op: "respond", status: null });
    })();

    // A sample a minute: heap after GC (which pauses the host), RSS, the receiver's counts.
    const samples = [];
    let sampling = true;
    let cpuBefore = await processCpuMs(api.server.child.pid);
    let storeCpuBefore = cosmosPid === null ? null : await processCpuMs(cosmosPid);
    const sampleLoop = (async () => {
      for (let m = 1; sampling; m++) {
        const wait = loadStart + m * 60_000 - performance.now();
        if (wait > 0) await sleep(wait);
        if (!sampling) break;
        const cpu = await processCpuMs(api.server.child.pid);
        const cpuPercent = cpu === null || cpuBefore === null ? NaN : ((cpu - cpuBefore) / 60_000) * 100;
        cpuBefore = cpu;
        const storeCpu = cosmosPid === null ? null : await processCpuMs(cosmosPid);
        const storeCpuPercent = storeCpu === null || storeCpuBefore === null ? NaN : ((storeCpu - storeCpuBefore) / 60_000) * 100;
        storeCpuBefore = storeCpu;
        const heap = await api.heapAfterGc().catch(() => null);
        const counts = (await receiver.call({ op: "hookCounts" })).hooks;
        const b = minutes[m - 1] ?? { n: 0, ms: [], non2xx: 0 };
        const lat = p50p99(b.ms);
        const sample = { minute: m, rps: b.n / 60, p50: lat.p50, p99: lat.p99, non2xx: b.non2xx, notSent: b.notSent ?? 0, cpuPercent, storeCpuPercent, heapMb: heap?.heapUsedMb ?? NaN, rssMb: heap?.rssMb ?? NaN, gcMs: heap?.gcMs ?? NaN, received: HOOKS.map((h) => counts[h].received), refused: HOOKS.map((h) => counts[h].refused) };
        samples.push(sample);
        log(
          `  ${String(m).padStart(6)}  ${sample.rps.toFixed(1).padStart(6)}  ${fmt(sample.p50, 1).padStart(8)}  ${fmt(sample.p99, 1).padStart(8)}  ${String(sample.non2xx).padStart(7)}  ${String(sample.notSent).padStart(8)}  ${`${fmt(sample.cpuPercent)}%`.padStart(8)}  ${fmt(sample.heapMb, 1).padStart(7)}  ${fmt(sample.rssMb, 0).padStart(7)}  ${sample.received.join("/")}${sample.refused.some((n) => n > 0) ? ` (refused ${sample.refused.join("/")})` : ""}${cosmosPid === null ? "" : `; Cosmos server CPU ${fmt(storeCpuPercent)}%`}`,
        );
        if (Object.keys(b.byStatus ?? {}).length > 0) log(`          non-2xx: ${Object.entries(b.byStatus).map(([k, n]) => `${k} x${n}`).join(", ")}`);
        if (api.server.exited()) break;
      }
    })();

    const sent = await openLoop({
      rate,
      durationMs: seconds * 1000,
      maxInFlight: MAX_IN_FLIGHT,
      next: load.next,
      onResult,
      onNotSent: () => bucket(performance.now()).notSent++,
      stop: () => Boolean(api.server.exited()),
    });
    if (sent.notSent > 0) notes.push(`${sent.notSent} arrivals not sent: ${MAX_IN_FLIGHT} requests were outstanding`);
    stopping = true;
    await Promise.all([reconcileLoop, outageLoop]);
    const loadSeconds = (performance.now() - loadStart) / 1000;
    await sleep(Math.max(0, loadStart + Math.ceil(loadSeconds / 60) * 60_000 - performance.now()) + 50);
    sampling = false;
    await sampleLoop;

    // A last pass ingests what the console changed since the previous one; then every write has had
    // its chance to reach the receiver once its counts stand still.
    const lastPassAt = performance.now();
    const last = await ctx.local("POST", "/reconcile");
    if (last.status === 200) ctx.vendor.lastPassStartedAt = lastPassAt;
    else problems.push(`the last reconcile pass answered ${last.status}`);
    for (const c of ctx.vendor.created) if (c.at < ctx.vendor.lastPassStartedAt) ctx.expect({ type: "incident.created.v1", key: c.key });
    for (const c of ctx.vendor.closed) if (c.at < ctx.vendor.lastPassStartedAt) ctx.expect({ type: "incident.closed.v1", key: c.key });
    const settleStart = performance.now();
    let lastTotal = -1;
    let quietSince = performance.now();
    while (performance.now() - settleStart < SETTLE_MAX_MS && !api.server.exited()) {
      const counts = (await receiver.call({ op: "hookCounts" })).hooks;
      const total = HOOKS.reduce((n, h) => n + counts[h].received + counts[h].duplicates, 0);
      if (total !== lastTotal) {
        lastTotal = total;
        quietSince = performance.now();
      } else if (performance.now() - quietSince >= SETTLE_QUIET_MS) {
        break;
      }
      await sleep(1_000);
    }
    const settleS = (performance.now() - settleStart) / 1000;
    const heapEnd = await api.heapAfterGc();
    if (snapshotDir) await api.heapSnapshot(path.join(snapshotDir, `soak-${store}-end.heapsnapshot`));
    const exit = api.server.exited();
    if (exit) problems.push(`the API host exited during the run (${describeExit(exit)})\n${api.server.output()}`);

    const got = (await receiver.call({ op: "collectHooks" })).hooks;
    const tally = reconcileEvents(ctx.expected, got);
    const all = p50p99(results.map((r) => r.ms));
    const ok = results.filter((r) => r.status >= 200 && r.status < 300).length;
    const non2xx = results.length - ok;
    const byOp = {};
    for (const r of results) {
      const o = (byOp[r.op] ??= { n: 0, non2xx: 0, ms: [] });
      o.n++;
      o.ms.push(r.ms);
      if (r.status < 200 || r.status > 299) o.non2xx++;
    }
    const growth = heapEnd.heapUsedMb - heapStart.heapUsedMb;
    const heapSamples = samples.map((s) => s.heapMb).filter(Number.isFinite);
    log(`  load: ${results.length} requests in ${loadSeconds.toFixed(0)} s (${(results.length / loadSeconds).toFixed(1)}/s, ${sent.notSent} not sent), p50 ${fmt(all.p50, 1)} ms, p99 ${fmt(all.p99, 1)} ms, non-2xx ${non2xx}; ${reconciles.length} reconcile passes (p50 ${fmt(p50p99(reconciles.map((r) => r.ms)).p50, 0)} ms)`);
    log(`  by operation (n, p50/p99 ms, non-2xx): ${Object.entries(byOp).map(([k, o]) => { const l = p50p99(o.ms); return `${k} ${o.n} ${fmt(l.p50, 1)}/${fmt(l.p99, 1)} ${o.non2xx}`; }).join("; ")}`);
    log(`  heap after GC: start ${heapStart.heapUsedMb.toFixed(1)} MB, end ${heapEnd.heapUsedMb.toFixed(1)} MB (${growth >= 0 ? "+" : ""}${growth.toFixed(1)} MB), peak sample ${fmt(Math.max(...heapSamples), 1)} MB; RSS start ${rssStart.toFixed(0)} MB, end ${heapEnd.rssMb.toFixed(0)} MB`);
    log(`  events: ${tally.expected} expected from the writes, ${tally.distinctEvents} distinct events received; settled ${settleS.toFixed(0)} s after the load`);
    for (const name of HOOKS) {
      const h = tally.perHook[name];
      const missing = Object.entries(h.missingByType).map(([t, n]) => `${t} ${n}`).join(", ");
      log(`    webhook ${name}: received ${h.received}, lost ${h.lost} (expected not received ${h.missingExpected}${missing ? `: ${missing}` : ""}; received by another webhook only ${h.otherHooksGot}), duplicated ${h.duplicates}, refused during the outage ${h.refused}, failed verification ${h.failedVerification}`);
      if (h.failedVerification > 0) problems.push(`webhook ${name}: ${h.failedVerification} deliveries failed verification, e.g. ${JSON.stringify(got[name].failures.slice(0, 3))}`);
    }
    for (const note of notes) log(`  note: ${note}`);
    const lost = Math.max(...HOOKS.map((h) => tally.perHook[h].lost));
    const duplicated = Math.max(...HOOKS.map((h) => tally.perHook[h].duplicates));
    const servedRate = results.length / loadSeconds;
    return {
      store,
      seconds,
      rate,
      loadSeconds,
      requests: results.length,
      notSent: sent.notSent,
      latencyMs: all,
      non2xx,
      byOperation: Object.fromEntries(Object.entries(byOp).map(([k, o]) => [k, { n: o.n, non2xx: o.non2xx, ...p50p99(o.ms) }])),
      minutes: samples,
      heapStart,
      heapEnd,
      events: tally,
      settleSeconds: settleS,
      outage: { fromS: outage.from, seconds: outageS },
      reconciles: { passes: reconciles.length, notOk: reconciles.filter((r) => r.status !== 200).length },
      notes,
      problems,
      checks: [
        { name: `heap after GC, end - start (MB; ${seconds} s at ${rate} req/s)`, value: growth, target: `<= ${HEAP_GROWTH_TARGET_MB}`, pass: growth <= HEAP_GROWTH_TARGET_MB },
        { name: "events lost, most of any webhook", value: lost, target: "= 0", pass: lost === 0 },
        { name: "events duplicated, most of any webhook", value: duplicated, target: "= 0", pass: duplicated === 0 },
        { name: "requests answered per second / offered", value: servedRate / rate, target: ">= 0.95", pass: servedRate / rate >= 0.95 },
        { name: "answers not 2xx", value: non2xx, target: "= 0", pass: non2xx === 0 },
      ],
    };
  } finally {
    await load?.close();
    for (const s of started) await s.stop();
    if (tmpDir) await rm(tmpDir, { recursive: true, force: true });
  }
}

/** The receiver's outage: `seconds` long, centred in the run (starting at 0 when the run is shorter). */
function outageWindow(runSeconds, seconds) {
  return { from: Math.max(0, Math.floor(runSeconds / 2 - seconds / 2)) };
}

const fmt = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : "?");
