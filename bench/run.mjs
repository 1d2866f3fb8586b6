// `npm run bench`: runs every scenario below in one go, prints a table per scenario and writes all
// results to bench/results/latest.json.
//
// Exit code: 0 when every scenario produced a trustworthy measurement, whether or not it met its
// target (a slow run on a noisy machine is information, not a crash); 1 when a run itself broke:
// a server that would not start or died, socket errors, or non-2xx responses.
//
// Knobs (env): BENCH_DURATION_S (default 8), BENCH_CONNECTIONS (10), BENCH_ROUNDS (3),
// BENCH_WARMUP_S (3), BENCH_PAGING_BUDGET_S (600: longest a full paging-through may take before it
// is cut short with a note). To add a benchmark, write a function like serviceAccountRead and
// append it to `scenarios`.

import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeExit, formatLoadTable, freePort, median, percentile, processMemoryMb, runLoad, startServer, summarizeRounds } from "./lib.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const API_HOST = path.join(ROOT, "dist/shared/local/main.js");
const BARE_SERVER = path.join(ROOT, "bench/bare-server.mjs");
const RESULTS_FILE = path.join(ROOT, "bench/results/latest.json");

/** Reads a numeric env override, refusing nonsense rather than silently benchmarking with it. */
function numberFromEnv(name, fallback, { integer = false, min = 1 } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    console.error(`${name}=${JSON.stringify(raw)} is not a valid ${integer ? "integer" : "number"} >= ${min}`);
    process.exit(1);
  }
  return value;
}

const settings = {
  durationS: numberFromEnv("BENCH_DURATION_S", 8),
  connections: numberFromEnv("BENCH_CONNECTIONS", 10, { integer: true }),
  rounds: numberFromEnv("BENCH_ROUNDS", 3, { integer: true }),
  warmupS: numberFromEnv("BENCH_WARMUP_S", 3, { min: 0 }),
  pagingBudgetS: numberFromEnv("BENCH_PAGING_BUDGET_S", 600),
  // One request in flight per connection, like real clients; pipelining would mostly measure
  // how well each server batches writes.
  pipelining: 1,
};

/**
 * The environment every server child gets. Deliberately not inherited from the shell: a developer's
 * STORE=cosmos, LOG_LEVEL=debug or short PRINCIPAL_CACHE_TTL_MS would silently change what is
 * measured. Only what a process needs to run at all is passed through.
 */
function childEnv(extra) {
  const env = {};
  for (const name of ["PATH", "HOME", "TMPDIR", "SystemRoot"]) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  return { ...env, ...extra };
}

const withoutKeys = (obj, keys) => Object.fromEntries(Object.entries(obj).filter(([k]) => !keys.includes(k)));

/**
 * Starts the local API host with a freshly generated admin service account and waits until that
 * account can be read with its own credentials, which proves the host is listening, seeded and
 * authenticating. Later scenarios can reuse this and then seed what they need through the API.
 *
 * `env` adds to (or overrides) the host's fixed environment, e.g. DEMO_WORKSPACES for a bigger
 * demo world; `readyTimeoutMs` leaves room for seeding such a world.
 */
async function startApiHost({ env = {}, readyTimeoutMs } = {}) {
  if (!existsSync(API_HOST)) {
    throw new Error(`${path.relative(ROOT, API_HOST)} does not exist; run \`npm run build\` (npm run bench does).`);
  }
  const port = await freePort();
  const clientId = randomUUID();
  const clientSecret = randomBytes(32).toString("base64url"); // 43 chars, no ':' to confuse Basic auth
  const baseUrl = `http://127.0.0.1:${port}/api/v2`;
  const authHeaders = { Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}` };
  const accountUrl = `${baseUrl}/service-accounts/${clientId}`;
  const server = await startServer({
    name: "api host",
    script: API_HOST,
    cwd: ROOT,
    env: childEnv({
      PORT: String(port),
      LOCAL_ADMIN_CLIENT_ID: clientId,
      LOCAL_ADMIN_CLIENT_SECRET: clientSecret,
      // Limits far above anything the bench can send: we measure the request path, not 429s.
      RATE_LIMIT_BURST: "100000000",
      RATE_LIMIT_PER_SECOND: "100000000",
      // Per-request info logs would turn the benchmark into a logging benchmark.
      LOG_LEVEL: "warn",
      ...env,
    }),
    readyUrl: accountUrl,
    headers: authHeaders,
    ...(readyTimeoutMs === undefined ? {} : { timeoutMs: readyTimeoutMs }),
  });
  return { server, baseUrl, authHeaders, clientId, accountUrl };
}

/**
 * Warms up each target, then measures them in alternating rounds. Alternating (and flipping which
 * goes first each round) spreads slow drift on a shared machine, such as another job starting,
 * over both targets instead of pinning it on whichever happened to run second.
 *
 * Returns { rows, problems } where each row is summarizeRounds() of one target.
 */
async function compareTargets(targets, log) {
  const problems = [];
  const check = (target, phase, r) => {
    if (r.errors || r.non2xx) {
      problems.push(`${target.label} ${phase}: ${r.errors} errors (${r.timeouts} timeouts), ${r.non2xx} non-2xx; status codes ${JSON.stringify(r.statusCodes)}`);
    }
    const exit = target.server.exited();
    if (exit) problems.push(`${target.label} exited during ${phase} (${describeExit(exit)})\n${target.server.output()}`);
  };
  const load = (target, durationS) =>
    runLoad({ url: target.url, headers: target.headers, connections: settings.connections, durationS, pipelining: settings.pipelining });

  if (settings.warmupS > 0) {
    for (const target of targets) {
      log(`  warm-up  ${target.label} (${settings.warmupS} s)`);
      check(target, "warm-up", await load(target, settings.warmupS));
    }
  }

  const rounds = new Map(targets.map((t) => [t, []]));
  for (let i = 0; i < settings.rounds && problems.length === 0; i++) {
    const order = i % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      const r = await load(target, settings.durationS);
      rounds.get(target).push(r);
      log(`  round ${i + 1}/${settings.rounds}  ${target.label.padEnd(16)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms`);
      check(target, `round ${i + 1}`, r);
    }
  }
  return { rows: targets.map((t) => summarizeRounds(t.label, rounds.get(t))), problems };
}

/**
 * Issue requirement: an authenticated GET /api/v2/service-accounts/{id} against a bare node:http
 * server returning the same JSON body; target API >= 0.6 x bare req/s.
 */
async function serviceAccountRead({ log }) {
  const TARGET_RATIO = 0.6;
  const started = [];
  try {
    const api = await startApiHost();
    started.push(api.server);

    // The bare server replays exactly what the API answered, so both send the same bytes and
    // the difference is the API's own work (routing, auth, store read, serialization, headers).
    const captured = api.server.ready;
    const contentType = captured.headers["content-type"];
    const notes = [];
    if (!/^application\/json\b/.test(contentType ?? "")) notes.push(`API Content-Type is ${JSON.stringify(contentType)}, expected application/json`);
    try {
      const parsed = JSON.parse(captured.body.toString("utf8"));
      if (!parsed || typeof parsed !== "object" || !("data" in parsed) || !("meta" in parsed)) notes.push("API body is not a {data, meta} envelope");
    } catch {
      notes.push("API body is not JSON");
    }
    if (!captured.headers["x-request-id"]) notes.push("API response has no X-Request-Id header");
    for (const note of notes) log(`  note: ${note}`);

    const barePort = await freePort();
    const bareUrl = `http://127.0.0.1:${barePort}/api/v2/service-accounts/${api.clientId}`;
    const bare = await startServer({
      name: "bare server",
      script: BARE_SERVER,
      cwd: ROOT,
      env: childEnv({ PORT: String(barePort), BARE_BODY_BASE64: captured.body.toString("base64"), BARE_CONTENT_TYPE: contentType ?? "application/json" }),
      readyUrl: bareUrl,
    });
    started.push(bare);
    if (!bare.ready.body.equals(captured.body)) throw new Error("bare server does not serve the captured API body byte for byte");

    log(`  body: ${captured.body.length} bytes, ${contentType}`);
    // Same URL path and the same Authorization header for both, so request parsing costs the same;
    // the bare server simply ignores the header.
    const targets = [
      { label: "bare node:http", url: bareUrl, headers: api.authHeaders, server: bare },
      { label: "API", url: api.accountUrl, headers: api.authHeaders, server: api.server },
    ];
    const { rows, problems } = await compareTargets(targets, log);
    // Broken before any measured round (e.g. errors in the warm-up): nothing meaningful to show.
    if (rows.some((r) => r.rounds.length === 0)) return { rows, checks: [], notes, problems };
    const [bareRow, apiRow] = rows;
    const ratio = apiRow.rps / bareRow.rps;
    // The target is judged on the ratio of the medians shown in the table. The per-round ratios
    // (each API round against the bare round next to it in time) are printed too: on a noisy
    // machine their spread shows how far to trust the headline number.
    const roundRatios = apiRow.rounds.map((r, i) => r.rps / bareRow.rounds[i]?.rps);

    log("");
    log(formatLoadTable(rows));
    log("");
    log(`  API / bare req/s = ${ratio.toFixed(3)} (medians); per round ${roundRatios.map((x) => x.toFixed(3)).join(", ")}, median ${median(roundRatios).toFixed(3)}`);
    return {
      rows,
      checks: [{ name: "API / bare req/s", value: ratio, target: `>= ${TARGET_RATIO}`, pass: ratio >= TARGET_RATIO, perRound: roundRatios, medianPerRound: median(roundRatios) }],
      notes,
      problems,
      // Without Connection/Date: the probe asked for Connection: close (the load runs keep-alive).
      response: { bytes: captured.body.length, contentType, headers: withoutKeys(captured.headers, ["connection", "date", "keep-alive"]) },
    };
  } finally {
    await Promise.all(started.map((s) => s.stop()));
  }
}

/**
 * One POST /incidents/across-workspaces with plain fetch (Node's global fetch keeps connections
 * alive). The latency runs from sending the request to the last byte of the response, so it covers
 * the server's work and the transfer, not our JSON parsing.
 */
async function postListing(api, body) {
  const payload = JSON.stringify(body);
  const started = performance.now();
  const res = await fetch(`${api.baseUrl}/incidents/across-workspaces`, {
    method: "POST",
    headers: { ...api.authHeaders, "Content-Type": "application/json" },
    body: payload,
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`HTTP ${res.status} from the listing: ${bytes.toString("utf8").slice(0, 300)}`);
  return { ms, bytes: bytes.length, data: JSON.parse(bytes.toString("utf8")).data };
}

/**
 * Pages through the whole listing as the contract says (each call sends the previous response's
 * sourcePageTokens) and checks on the way that every incident comes exactly once. Stops early,
 * marked `complete: false`, when the paging budget runs out.
 */
async function pageThrough(api, budgetMs) {
  const seen = new Set();
  const workspaces = new Set();
  const pages = [];
  const problems = [];
  let duplicates = 0;
  let cutShort = false;
  let body = { isFirstCall: true, workspacePageTokens: [] };
  const started = performance.now();
  for (;;) {
    const page = await postListing(api, body);
    for (const item of page.data.incidents) {
      const key = `${item.incident.workspaceId}/${item.source}/${item.incident.id}`;
      if (seen.has(key)) duplicates++;
      else seen.add(key);
      workspaces.add(item.incident.workspaceId);
    }
    pages.push({ ms: page.ms, incidents: page.data.incidents.length, bytes: page.bytes });
    if (!page.data.moreIncidentsAvailable) break;
    if (page.data.sourcePageTokens.length === 0) {
      problems.push(`page ${pages.length} says more incidents are available but returns no tokens to continue with`);
      break;
    }
    if (performance.now() - started > budgetMs) {
      cutShort = true;
      break;
    }
    body = { isFirstCall: false, workspacePageTokens: page.data.sourcePageTokens };
  }
  const totalMs = performance.now() - started;
  const complete = problems.length === 0 && !cutShort;
  return { pages, totalMs, incidents: seen.size + duplicates, distinct: seen.size, duplicates, workspaces: workspaces.size, problems, complete };
}

/**
 * Issue requirement: POST /incidents/across-workspaces over 50 workspaces × 2,000 incidents, and the
 * same with 10× the incidents (50 × 20,000), on the embedded default. A page is built from a fixed
 * slice of every stream (workspace × source) still paging, so its cost should follow its size, not
 * the total behind it: targets are first-page latency and mean page latency at 10× both <= 2× the
 * 1× figures. Paging through everything also verifies the listing: each incident exactly once, and
 * 50 × incidentsPerWorkspace in all.
 *
 * Both hosts run at once and the first-page samples alternate between them (as in compareTargets),
 * so slow drift on the machine lands on both volumes; the full paging runs one volume after the other.
 */
async function crossWorkspaceListing({ log, settings }) {
  const WORKSPACES = 50;
  const FIRST_PAGE_SAMPLES = 5;
  const TARGET_RATIO = 2;
  const volumes = [
    { label: "1x", perWorkspace: 2_000 },
    { label: "10x", perWorkspace: 20_000 },
  ];
  const problems = [];
  const notes = [];
  const started = [];
  const failed = (v, phase, err) => {
    const exit = v.api?.server.exited();
    problems.push(`${v.label} ${phase}: ${err.message}${exit ? `\n${v.label} host exited (${describeExit(exit)})\n${v.api.server.output()}` : ""}`);
  };
  try {
    for (const v of volumes) {
      const t0 = performance.now();
      v.api = await startApiHost({
        env: { DEMO_WORKSPACES: String(WORKSPACES), SIMULATED_INCIDENTS_PER_WORKSPACE: String(v.perWorkspace) },
        readyTimeoutMs: 90_000,
      });
      started.push(v.api.server);
      v.readyMs = performance.now() - t0;
      v.expected = WORKSPACES * v.perWorkspace;
      v.memoryAtReady = await processMemoryMb(v.api.server.child.pid);
      log(`  ${v.label.padEnd(3)} host: ${WORKSPACES} workspaces x ${v.perWorkspace} incidents, ready in ${(v.readyMs / 1000).toFixed(1)} s, RSS ${v.memoryAtReady?.rssMb.toFixed(0) ?? "?"} MB`);
    }

    // First page: one warm-up call each, then fresh first calls alternating between the volumes.
    for (const v of volumes) {
      v.firstPage = [];
      try {
        const warm = await postListing(v.api, { isFirstCall: true, workspacePageTokens: [] });
        log(`  ${v.label.padEnd(3)} warm-up first page: ${warm.ms.toFixed(1)} ms, ${warm.data.incidents.length} incidents, ${(warm.bytes / 1024).toFixed(0)} KiB`);
        v.firstPageIncidents = warm.data.incidents.length;
        v.firstPageBytes = warm.bytes;
      } catch (err) {
        failed(v, "first-page warm-up", err);
      }
    }
    for (let i = 0; i < FIRST_PAGE_SAMPLES && problems.length === 0; i++) {
      for (const v of i % 2 === 0 ? volumes : [...volumes].reverse()) {
        try {
          v.firstPage.push((await postListing(v.api, { isFirstCall: true, workspacePageTokens: [] })).ms);
        } catch (err) {
          failed(v, `first-page sample ${i + 1}`, err);
        }
      }
    }
    if (problems.length > 0) return { checks: [], notes, problems };
    for (const v of volumes) log(`  ${v.label.padEnd(3)} first page samples: ${v.firstPage.map((ms) => ms.toFixed(1)).join(", ")} ms`);

    // Everything, one volume after the other (the idle host costs nothing meanwhile).
    for (const v of volumes) {
      try {
        v.paging = await pageThrough(v.api, settings.pagingBudgetS * 1000);
      } catch (err) {
        failed(v, "paging", err);
        continue;
      }
      const p = v.paging;
      v.memoryAfterPaging = await processMemoryMb(v.api.server.child.pid);
      log(`  ${v.label.padEnd(3)} paged ${p.incidents} incidents in ${p.pages.length} pages, ${(p.totalMs / 1000).toFixed(1)} s${p.complete ? "" : " (cut short)"}; host RSS ${v.memoryAfterPaging?.rssMb.toFixed(0) ?? "?"} MB, peak ${v.memoryAfterPaging?.peakRssMb.toFixed(0) ?? "?"} MB`);
      for (const problem of p.problems) problems.push(`${v.label}: ${problem}`);
      if (p.duplicates > 0) problems.push(`${v.label}: ${p.duplicates} incidents came more than once`);
      if (p.complete) {
        if (p.incidents !== v.expected) problems.push(`${v.label}: paging returned ${p.incidents} incidents (${p.distinct} distinct), expected ${WORKSPACES} x ${v.perWorkspace} = ${v.expected}`);
        if (p.workspaces !== WORKSPACES) problems.push(`${v.label}: incidents came from ${p.workspaces} workspaces, expected ${WORKSPACES}`);
      } else if (p.problems.length === 0) {
        notes.push(
          `${v.label}: full paging cut short after ${settings.pagingBudgetS} s (BENCH_PAGING_BUDGET_S) at page ${p.pages.length}, ` +
            `${p.incidents} of ${v.expected} incidents; page figures cover the pages fetched, the total is not verified`,
        );
      }
    }
    if (volumes.some((v) => !v.paging)) return { checks: [], notes, problems };

    const rows = volumes.map((v) => {
      const p = v.paging;
      const ms = p.pages.map((x) => x.ms).sort((a, b) => a - b);
      const sumMs = ms.reduce((a, b) => a + b, 0);
      const counts = p.pages.map((x) => x.incidents);
      return {
        label: v.label,
        workspaces: WORKSPACES,
        incidentsPerWorkspace: v.perWorkspace,
        expectedIncidents: v.expected,
        readySeconds: v.readyMs / 1000,
        memoryAtReady: v.memoryAtReady,
        memoryAfterPaging: v.memoryAfterPaging,
        firstPage: { medianMs: median(v.firstPage), samplesMs: v.firstPage, incidents: v.firstPageIncidents, bytes: v.firstPageBytes },
        paging: {
          complete: p.complete,
          pages: p.pages.length,
          incidents: p.incidents,
          duplicates: p.duplicates,
          totalSeconds: p.totalMs / 1000,
          meanPageMs: sumMs / ms.length,
          p50PageMs: percentile(ms, 50),
          p95PageMs: percentile(ms, 95),
          maxPageMs: ms.at(-1),
          incidentsPerPage: { mean: p.incidents / p.pages.length, min: Math.min(...counts), max: Math.max(...counts) },
          msPer1000Incidents: (sumMs / p.incidents) * 1000,
          meanPageKiB: p.pages.reduce((n, x) => n + x.bytes, 0) / p.pages.length / 1024,
        },
      };
    });

    const [one, ten] = rows;
    const ratio = (f) => f(ten) / f(one);
    const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : "?");
    const table = [
      ["", "1x", "10x", "10x / 1x"],
      ["incidents (50 workspaces x)", String(one.incidentsPerWorkspace), String(ten.incidentsPerWorkspace), "10"],
      ["host ready (seeding), s", fmt(one.readySeconds), fmt(ten.readySeconds), fmt(ratio((r) => r.readySeconds), 2)],
      ["host RSS after paging, MB", fmt(one.memoryAfterPaging?.rssMb, 0), fmt(ten.memoryAfterPaging?.rssMb, 0), ""],
      ["host peak RSS, MB", fmt(one.memoryAfterPaging?.peakRssMb, 0), fmt(ten.memoryAfterPaging?.peakRssMb, 0), ""],
      [`first page, ms (median of ${FIRST_PAGE_SAMPLES})`, fmt(one.firstPage.medianMs), fmt(ten.firstPage.medianMs), fmt(ratio((r) => r.firstPage.medianMs), 2)],
      ["first page, incidents", String(one.firstPage.incidents), String(ten.firstPage.incidents), ""],
      ["first page, KiB", fmt(one.firstPage.bytes / 1024, 0), fmt(ten.firstPage.bytes / 1024, 0), ""],
      ["pages", String(one.paging.pages), String(ten.paging.pages), fmt(ratio((r) => r.paging.pages), 2)],
      ["incidents paged", String(one.paging.incidents), String(ten.paging.incidents), ""],
      ["page through everything, s", fmt(one.paging.totalSeconds), fmt(ten.paging.totalSeconds) + (ten.paging.complete ? "" : " (cut)"), fmt(ratio((r) => r.paging.totalSeconds), 2)],
      ["page latency mean, ms", fmt(one.paging.meanPageMs), fmt(ten.paging.meanPageMs), fmt(ratio((r) => r.paging.meanPageMs), 2)],
      ["page latency p50, ms", fmt(one.paging.p50PageMs), fmt(ten.paging.p50PageMs), fmt(ratio((r) => r.paging.p50PageMs), 2)],
      ["page latency p95, ms", fmt(one.paging.p95PageMs), fmt(ten.paging.p95PageMs), fmt(ratio((r) => r.paging.p95PageMs), 2)],
      ["page latency max, ms", fmt(one.paging.maxPageMs), fmt(ten.paging.maxPageMs), ""],
      ["incidents per page mean (min-max)", `${fmt(one.paging.incidentsPerPage.mean, 0)} (${one.paging.incidentsPerPage.min}-${one.paging.incidentsPerPage.max})`, `${fmt(ten.paging.incidentsPerPage.mean, 0)} (${ten.paging.incidentsPerPage.min}-${ten.paging.incidentsPerPage.max})`, ""],
      ["ms per 1,000 incidents", fmt(one.paging.msPer1000Incidents, 2), fmt(ten.paging.msPer1000Incidents, 2), fmt(ratio((r) => r.paging.msPer1000Incidents), 2)],
    ];
    const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
    const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ").trimEnd();
    log("");
    for (const [i, row] of table.entries()) {
      log(`  ${line(row)}`);
      if (i === 0) log(`  ${widths.map((w) => "-".repeat(w)).join("  ")}`);
    }
    log("");
    for (const note of notes) log(`  note: ${note}`);

    const firstRatio = ratio((r) => r.firstPage.medianMs);
    const meanRatio = ratio((r) => r.paging.meanPageMs);
    return {
      rows,
      checks: [
        { name: "first-page latency ratio (10x / 1x)", value: firstRatio, target: `<= ${TARGET_RATIO}`, pass: firstRatio <= TARGET_RATIO },
        { name: "mean page latency ratio (10x / 1x)", value: meanRatio, target: `<= ${TARGET_RATIO}`, pass: meanRatio <= TARGET_RATIO },
      ],
      notes,
      problems,
    };
  } finally {
    await Promise.all(started.map((s) => s.stop()));
  }
}

// Each scenario: a name for the table and the JSON, and a function that returns
// { rows?, checks: [{ name, value, target, pass }], problems: [] , ...details }. Throwing counts
// as a broken run; so does a non-empty `problems`.
const scenarios = [
  { name: "service-account read vs bare node:http", run: serviceAccountRead },
  { name: "cross-workspace incident listing", run: crossWorkspaceListing },
  // Later: webhook delivery, reconciler.
];

const log = (line = "") => console.log(line);
const startedAt = new Date();
log(`bench: ${settings.rounds} rounds x ${settings.durationS} s, ${settings.connections} connections, pipelining ${settings.pipelining}, warm-up ${settings.warmupS} s`);
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
