// The cross-workspace listing when some workspaces' vendor fails: 1,000 workspaces whose SourceA is a
// vendor bridge (bench/fault-bridge.mjs, in this process) with 200 ms latency, 1% of them failing —
// answering 500, answering 429 with Retry-After, or never answering.

import { apiJson, startApiHost } from "../api-host.mjs";
import { startFaultBridge } from "../fault-bridge.mjs";
import { describeExit, numberFromEnv, percentile } from "../lib.mjs";

const WORKSPACES = 1000;
const INCIDENTS_PER_WORKSPACE = 20;
const LATENCY_MS = 200;
/** Ten failing workspaces (1%), spread over the listing's order: 4 answer 500, 3 answer 429, 3 hang. */
const FAULT_PLAN = ["500", "429", "hang", "500", "429", "hang", "500", "429", "hang", "500"];
const FAULT_KINDS = ["500", "429", "hang"];
/** The product's requirements: every page within 3 s, a failing workspace called at most 3 times a minute. */
const PAGE_TARGET_MS = 3_000;
const CALLS_PER_MINUTE_TARGET = 3;
/** How long the bench waits for one page before it counts the page as unanswered. */
const CLIENT_TIMEOUT_MS = 120_000;
const QUERY = { sources: ["SourceA"] };

/**
 * Three phases against one host: two full listings back to back, then listings paged one after
 * another for BENCH_FAULTS_PHASE_S (default 120) seconds, over which the failing workspaces' calls per
 * minute are measured from the bridge's own count. Checked: each listing holds every incident of the
 * healthy workspaces exactly once and nothing else; every page answers within 3 s; each page's report
 * (`meta.unavailable`) names only failing workspaces, and each failing one on some page of each
 * listing; a failing workspace is called at most 3 times in any minute from when its fault is set
 * (the third phase's figures are reported beside).
 *
 * A page that is not a 200 ends its listing (there are no tokens to go on with) and is reported as a
 * problem with its status and detail; the scenario carries on with the next listing.
 */
export async function vendorFaults({ log, settings }) {
  const phaseS = numberFromEnv("BENCH_FAULTS_PHASE_S", 120);
  const problems = [];
  const notes = [];
  const bridge = await startFaultBridge({ latencyMs: LATENCY_MS, incidentsPerWorkspace: INCIDENTS_PER_WORKSPACE });
  let api;
  try {
    const t0 = performance.now();
    api = await startApiHost({
      env: {
        DEMO_WORKSPACES: String(WORKSPACES),
        SIMULATED_INCIDENTS_PER_WORKSPACE: String(INCIDENTS_PER_WORKSPACE),
        SOURCE_A_URL: bridge.baseUrl,
        RECONCILE_INTERVAL_MS: "0",
      },
      readyTimeoutMs: 600_000,
    });
    log(`  host: ${WORKSPACES} workspaces, SourceA through the fault bridge (${LATENCY_MS} ms latency), ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    // The workspaces the admin's listing covers, in the listing's order (by name, then id).
    const account = await apiJson(api, "GET", `/service-accounts/${api.clientId}`);
    const workspaces = (account?.data?.workspaceAssignments ?? [])
      .map((a) => ({ id: a.workspaceId.toLowerCase(), name: a.workspaceName }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (workspaces.length !== WORKSPACES) {
      problems.push(`the admin service account is mapped to ${workspaces.length} workspaces, expected ${WORKSPACES}`);
      return { checks: [], problems, notes };
    }
    const failing = new Map(FAULT_PLAN.map((mode, k) => [workspaces[Math.floor(((k + 0.5) * WORKSPACES) / FAULT_PLAN.length)].id, mode]));
    const healthy = workspaces.filter((w) => !failing.has(w.id));
    const expected = new Set(healthy.flatMap((w) => bridge.expectedIncidents(w.id).map((i) => `${w.id}/${i.id}`)));
    const nameOf = new Map(workspaces.map((w) => [w.id, w.name]));
    for (const [id, mode] of failing) bridge.setFault(id, mode);
    const faultsSetAt = Date.now();
    log(`  failing (${failing.size}): ${[...failing].map(([id, mode]) => `${nameOf.get(id)} ${mode}`).join(", ")}`);
    log(`  expected: ${expected.size} incidents of ${healthy.length} healthy workspaces per listing`);

    const context = { api, failing, expected, notes };
    const first = await listOnce(context, "listing 1");
    log(`  ${describeListing(first, expected.size)}`);
    const second = await listOnce(context, "listing 2");
    log(`  ${describeListing(second, expected.size)}`);

    // Third phase: listing after listing, the last one cut short when the time is up.
    const phaseStart = Date.now();
    const phaseEnd = phaseStart + phaseS * 1000;
    const later = [];
    while (Date.now() < phaseEnd && !api.server.exited()) {
      later.push(await listOnce(context, `phase 3 listing ${later.length + 1}`, phaseEnd));
    }
    const phaseStop = Date.now();
    const laterPages = later.reduce((n, l) => n + l.pages.length, 0);
    log(
      `  phase 3: ${((phaseStop - phaseStart) / 1000).toFixed(0)} s, ${later.length} listings (${later.filter((l) => l.complete).length} complete, ` +
        `${later.filter((l) => l.broken).length} ended by a failed page, ${later.filter((l) => l.cut).length} cut by the clock), ${laterPages} pages`,
    );
    if (later.length > 0) {
      log(`    each (pages / seconds / incidents / failing named${later.some((l) => l.broken) ? " / end" : ""}): ` +
        later.map((l) => `${l.pages.length}/${(l.totalMs / 1000).toFixed(1)}/${l.pages.reduce((n, p) => n + p.incidents, 0)}/${l.failingNamed.size}${l.broken ? `/HTTP ${l.pages.at(-1).status}` : l.cut ? "/cut" : ""}`).join(", "));
    }

    const exit = api.server.exited();
    if (exit) problems.push(`the API host exited during the scenario (${describeExit(exit)})\n${api.server.output()}`);

    // Calls to each failing workspace: the most in any 60 s of the third phase, its average rate there,
    // and the same since the faults were set.
    const calls = [...failing].map(([id, mode]) => {
      const inPhase = bridge.requestsBetween(id, phaseStart, phaseStop);
      const all = bridge.requestsBetween(id, faultsSetAt);
      return {
        workspaceId: id,
        workspaceName: nameOf.get(id),
        mode,
        phase3Calls: inPhase.length,
        phase3MaxPerMinute: maxInWindow(inPhase, 60_000),
        phase3MeanPerMinute: inPhase.length / ((phaseStop - phaseStart) / 60_000),
        totalCalls: all.length,
        maxPerMinuteSinceFaults: maxInWindow(all, 60_000),
      };
    });
    const perKind = Object.fromEntries(
      FAULT_KINDS.map((kind) => {
        const mine = calls.filter((c) => c.mode === kind);
        return [
          kind,
          {
            phase3MaxPerMinute: Math.max(...mine.map((c) => c.phase3MaxPerMinute)),
            phase3MeanPerMinute: Math.max(...mine.map((c) => c.phase3MeanPerMinute)),
            maxPerMinute: Math.max(...mine.map((c) => c.maxPerMinuteSinceFaults)),
            totalCalls: mine.reduce((n, c) => n + c.totalCalls, 0),
            // A workspace the listings never called measures nothing (e.g. every listing broke before it).
            notCalled: mine.filter((c) => c.totalCalls === 0).length,
          },
        ];
      }),
    );
    const healthyCalls = healthy.reduce((n, w) => n + bridge.requestsBetween(w.id, faultsSetAt).length, 0);
    const healthyCallsPhase3 = healthy.reduce((n, w) => n + bridge.requestsBetween(w.id, phaseStart, phaseStop).length, 0);
    log(`  calls to the healthy workspaces (the bridge's count): ${healthyCalls} since the faults were set, ${healthyCallsPhase3} in phase 3`);
    log("  calls to the failing workspaces:");
    for (const kind of FAULT_KINDS) {
      const k = perKind[kind];
      log(
        `    ${kind.padEnd(4)}: since the faults were set at most ${k.maxPerMinute} in any minute, ${k.totalCalls} in all; ` +
          `phase 3 at most ${k.phase3MaxPerMinute} in any minute, ${k.phase3MeanPerMinute.toFixed(1)} a minute on average (the most of them)`,
      );
      if (k.notCalled > 0) notes.push(`${k.notCalled} of the workspaces answering ${kind} were never called after their fault was set: the listings never reached them, so their calls a minute measure nothing`);
    }
    log(`    per workspace (most in any minute / calls since the faults were set): ${calls.map((c) => `${c.mode}:${c.maxPerMinuteSinceFaults}/${c.totalCalls}`).join(", ")}`);
    if (bridge.held() > 0) log(`    requests held open by "hang" at the end: ${bridge.held()}`);

    // Pages: time, status and what their reports name.
    const listings = [first, second, ...later];
    const allPages = listings.flatMap((l) => l.pages);
    const ms = allPages.map((p) => p.ms).sort((a, b) => a - b);
    const failed = allPages.filter((p) => p.status !== 200);
    const healthyNamed = new Set(listings.flatMap((l) => [...l.healthyNamed]));
    const withoutReport = allPages.filter((p) => p.status === 200 && p.unavailable === null).length;
    log(`  pages: ${allPages.length}, p50 ${fmt(percentile(ms, 50))} ms, p95 ${fmt(percentile(ms, 95))} ms, max ${fmt(ms.at(-1))} ms; over ${PAGE_TARGET_MS} ms: ${ms.filter((x) => x > PAGE_TARGET_MS).length}; not 200: ${failed.length}`);
    if (withoutReport > 0) notes.push(`${withoutReport} of the ${allPages.length - failed.length} answered pages carry no meta.unavailable array`);
    const codes = reportCodes(listings, failing);
    if (codes.length > 0) {
      log("  report entries, by the workspace's fault and the code given:");
      for (const line of codes) log(`    ${line}`);
    }
    if (healthyNamed.size > 0) log(`  healthy workspaces named in a report: ${[...healthyNamed].slice(0, 5).map((id) => nameOf.get(id) ?? id).join(", ")}${healthyNamed.size > 5 ? ", ..." : ""}`);

    // Non-2xx pages, one problem per kind of failure.
    const byKind = new Map();
    for (const l of listings) {
      for (const [i, p] of l.pages.entries()) {
        if (p.status === 200) continue;
        const key = `${p.status} ${p.code ?? ""}`;
        const entry = byKind.get(key) ?? { count: 0, first: `${l.label} page ${i + 1}: HTTP ${p.status}${p.code ? ` ${p.code}` : ""} after ${fmt(p.ms)} ms: ${p.detail}` };
        entry.count++;
        byKind.set(key, entry);
      }
    }
    for (const { count, first: what } of byKind.values()) problems.push(`${what}${count > 1 ? ` (${count} pages failed so)` : ""}`);

    for (const note of notes) log(`  note: ${note}`);

    const listingChecks = [first, second].flatMap((l) => [
      { name: `${l.label}: healthy incidents missing`, value: expected.size - l.distinctExpected, target: "= 0", pass: l.distinctExpected === expected.size },
      { name: `${l.label}: incidents listed more than once`, value: l.duplicates, target: "= 0", pass: l.duplicates === 0 },
      { name: `${l.label}: incidents listed that are not a healthy workspace's`, value: l.unexpected, target: "= 0", pass: l.unexpected === 0 },
      { name: `${l.label}: failing workspaces no page's report names`, value: failing.size - l.failingNamed.size, target: "= 0", pass: l.failingNamed.size === failing.size },
    ]);
    return {
      rows: listings.map((l) => summaryOf(l, expected.size)),
      setup: { workspaces: WORKSPACES, incidentsPerWorkspace: INCIDENTS_PER_WORKSPACE, latencyMs: LATENCY_MS, phase3Seconds: (phaseStop - phaseStart) / 1000 },
      failing: Object.fromEntries([...failing].map(([id, mode]) => [id, { mode, name: nameOf.get(id) }])),
      pages: { count: allPages.length, p50Ms: percentile(ms, 50), p95Ms: percentile(ms, 95), maxMs: ms.at(-1), notOk: failed.length, withoutReport },
      calls,
      callsPerKind: perKind,
      healthyCalls: { sinceFaults: healthyCalls, phase3: healthyCallsPhase3 },
      checks: [
        ...listingChecks,
        { name: "pages not answered 200", value: failed.length, target: "= 0", pass: failed.length === 0 },
        { name: "slowest page (ms)", value: ms.at(-1) ?? NaN, target: `<= ${PAGE_TARGET_MS}`, pass: ms.length > 0 && ms.at(-1) <= PAGE_TARGET_MS },
        { name: "healthy workspaces named in a page's report", value: healthyNamed.size, target: "= 0", pass: healthyNamed.size === 0 },
        ...FAULT_KINDS.map((kind) => ({
          name: `most calls in any minute to one workspace answering ${kind === "hang" ? "never" : kind}`,
          value: perKind[kind].maxPerMinute,
          target: `<= ${CALLS_PER_MINUTE_TARGET}, each called`,
          pass: perKind[kind].maxPerMinute <= CALLS_PER_MINUTE_TARGET && perKind[kind].notCalled === 0,
        })),
      ],
      problems,
      notes,
      settings: { phaseS, pagingBudgetS: settings.pagingBudgetS },
    };
  } finally {
    await api?.server.stop();
    await bridge.close();
  }
}

/**
 * Pages one listing from its first call until moreIncidentsAvailable is false, a page fails, or
 * `deadline` (epoch ms) passes before a next page. Keeps per page its time, status, incidents and
 * report, and over the listing which incidents came how often.
 */
async function listOnce({ api, failing, expected, notes }, label, deadline = Infinity) {
  const listing = { label, pages: [], complete: false, broken: false, cut: false, seen: new Map(), failingNamed: new Set(), healthyNamed: new Set(), unexpected: 0, duplicates: 0 };
  let body = { ...QUERY, isFirstCall: true, workspacePageTokens: [] };
  const started = performance.now();
  for (;;) {
    const page = await postPage(api, body);
    const record = { ms: page.ms, status: page.status, incidents: 0, unavailable: null, failingNamed: 0 };
    listing.pages.push(record);
    if (page.status !== 200) {
      record.code = page.json?.code;
      record.detail = page.json?.detail ?? page.json?.title ?? page.text.slice(0, 300);
      listing.broken = true;
      break;
    }
    const data = page.json?.data;
    const report = page.json?.meta?.unavailable ?? data?.unavailable;
    if (page.json?.meta?.unavailable === undefined && data?.unavailable !== undefined && !notes.includes("the report is data.unavailable, not meta.unavailable")) {
      notes.push("the report is data.unavailable, not meta.unavailable");
    }
    if (Array.isArray(report)) {
      record.unavailable = report.map((u) => ({ workspaceId: String(u.workspaceId).toLowerCase(), code: u.code, retryAfterSeconds: u.retryAfterSeconds, circuitOpen: u.circuitOpen, gaveUp: u.gaveUp }));
      const named = new Set(record.unavailable.map((u) => u.workspaceId));
      for (const id of named) {
        if (failing.has(id)) listing.failingNamed.add(id);
        else listing.healthyNamed.add(id);
      }
      record.failingNamed = [...named].filter((id) => failing.has(id)).length;
    }
    for (const item of data?.incidents ?? []) {
      const key = `${String(item.incident.workspaceId).toLowerCase()}/${item.incident.id}`;
      const times = (listing.seen.get(key) ?? 0) + 1;
      listing.seen.set(key, times);
      if (times > 1) listing.duplicates++;
      else if (item.source !== "SourceA" || !expected.has(key)) listing.unexpected++;
    }
    record.incidents = data?.incidents?.length ?? 0;
    if (!data?.moreIncidentsAvailable) {
      listing.complete = true;
      break;
    }
    if (!data.sourcePageTokens?.length) {
      record.status = -1;
      record.detail = "moreIncidentsAvailable is true but no sourcePageTokens came to continue with";
      listing.broken = true;
      break;
    }
    if (Date.now() >= deadline) {
      listing.cut = true;
      break;
    }
    body = { ...QUERY, isFirstCall: false, workspacePageTokens: data.sourcePageTokens };
  }
  listing.totalMs = performance.now() - started;
  listing.distinctExpected = [...listing.seen.keys()].filter((k) => expected.has(k)).length;
  return listing;
}

/** One listing call; never throws for the answer's status: a failed page is a measurement too. */
async function postPage(api, body) {
  const started = performance.now();
  try {
    const res = await fetch(`${api.baseUrl}/incidents/across-workspaces`, {
      method: "POST",
      headers: { ...api.authHeaders, "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // a non-JSON answer: the status and the text say what happened
    }
    return { ms, status: res.status, text, json };
  } catch (err) {
    const ms = performance.now() - started;
    const why = err?.name === "TimeoutError" ? `no answer within ${CLIENT_TIMEOUT_MS / 1000} s` : `${err?.message ?? err}${err?.cause ? ` (${err.cause.message ?? err.cause})` : ""}`;
    return { ms, status: 0, text: why, json: { detail: why } };
  }
}

/** The most timestamps (sorted) that fall in any window of `windowMs`. */
function maxInWindow(times, windowMs) {
  let best = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end] - times[start] >= windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

/** Which codes the reports give each fault kind (and healthy workspaces), with how many were circuitOpen and gaveUp. */
function reportCodes(listings, failing) {
  const groups = new Map();
  for (const l of listings) {
    for (const p of l.pages) {
      for (const u of p.unavailable ?? []) {
        const key = `${failing.get(u.workspaceId) ?? "healthy"} -> ${u.code}`;
        const g = groups.get(key) ?? { n: 0, circuitOpen: 0, gaveUp: 0, retryMin: Infinity, retryMax: -Infinity };
        g.n++;
        if (u.circuitOpen) g.circuitOpen++;
        if (u.gaveUp) g.gaveUp++;
        if (typeof u.retryAfterSeconds === "number") {
          g.retryMin = Math.min(g.retryMin, u.retryAfterSeconds);
          g.retryMax = Math.max(g.retryMax, u.retryAfterSeconds);
        }
        groups.set(key, g);
      }
    }
  }
  return [...groups]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, g]) => {
      const retry = g.retryMin === Infinity ? "" : `, retryAfterSeconds ${g.retryMin}-${g.retryMax}`;
      return `${key}: ${g.n} entries (${g.circuitOpen} circuitOpen, ${g.gaveUp} gaveUp${retry})`;
    });
}

function summaryOf(l, expectedCount) {
  const ms = l.pages.map((p) => p.ms).sort((a, b) => a - b);
  return {
    label: l.label,
    complete: l.complete,
    broken: l.broken,
    cut: l.cut,
    pages: l.pages.length,
    totalSeconds: l.totalMs / 1000,
    incidents: l.pages.reduce((n, p) => n + p.incidents, 0),
    expected: expectedCount,
    missing: expectedCount - l.distinctExpected,
    duplicates: l.duplicates,
    unexpected: l.unexpected,
    failingNamed: l.failingNamed.size,
    healthyNamed: l.healthyNamed.size,
    p50PageMs: percentile(ms, 50),
    p95PageMs: percentile(ms, 95),
    maxPageMs: ms.at(-1),
    perPage: l.pages.map((p) => ({ ms: Math.round(p.ms), status: p.status, incidents: p.incidents, failingNamed: p.failingNamed, ...(p.detail ? { code: p.code, detail: p.detail } : {}) })),
  };
}

function describeListing(l, expectedCount) {
  const s = summaryOf(l, expectedCount);
  const named = new Map();
  for (const p of l.pages) if (p.unavailable !== null) named.set(p.failingNamed, (named.get(p.failingNamed) ?? 0) + 1);
  const namedText = named.size === 0 ? "no page carried a report" : [...named].sort(([a], [b]) => a - b).map(([n, pages]) => `${n} on ${pages} pages`).join(", ");
  const end = l.complete ? "complete" : l.broken ? `ended by page ${s.pages}: HTTP ${l.pages.at(-1).status}${l.pages.at(-1).code ? ` ${l.pages.at(-1).code}` : ""}` : "cut by the clock";
  return (
    `${l.label}: ${s.pages} pages in ${s.totalSeconds.toFixed(1)} s (${end}); ${s.incidents} incidents listed, ${expectedCount} expected: ` +
    `${s.missing} missing, ${s.duplicates} duplicated, ${s.unexpected} not a healthy workspace's; page p50 ${fmt(s.p50PageMs)} ms, p95 ${fmt(s.p95PageMs)} ms, max ${fmt(s.maxPageMs)} ms; ` +
    `failing workspaces named: ${s.failingNamed} of ${FAULT_PLAN.length} over the listing; per page: ${namedText}`
  );
}

const fmt = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : "?");
