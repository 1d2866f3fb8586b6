// The incident queue (POST /portal/incidents/search) at a managed security provider's size: 1,000
// workspaces x 20 incidents, every vendor answering 200 ms late, paged to the end as a person who sees
// every workspace — newest first, severity first, and newest first again with ten workspaces' vendor
// failing.

import os from "node:os";
import path from "node:path";
import { inflateRawSync } from "node:zlib";
import { pageThrough, portalJson, ROOT, signInPerson, startApiHost } from "../api-host.mjs";
import { startFaultBridge } from "../fault-bridge.mjs";
import { describeExit, freePort, httpGet, median, percentile, processMemoryMb } from "../lib.mjs";

const VENDOR_CALL_PROBE = path.join(ROOT, "bench/vendor-call-probe.cjs");
const INCIDENTS_PER_WORKSPACE = 20;
const LATENCY_MS = 200;
const PAGE_SIZE = 50;
/** Amira Haddad, the provider's Admin: an organization-wide role, so every workspace of every customer. */
const PERSON = "amira";
/** Ten failing workspaces, spread over the workspaces by name: 4 answer 500, 3 answer 429 (Retry-After 30), 3 never answer. */
const FAULT_PLAN = ["500", "429", "hang", "500", "429", "hang", "500", "429", "hang", "500"];
/** The failing workspaces' vendor: their SourceA goes to a bridge of their own (the fault bridge); their other sources stay healthy. */
const FAILING_SOURCE = "SourceA";
/** The issue's targets. */
const FIRST_TARGET_MS = 1_500;
const LATER_MEDIAN_TARGET_MS = 1_500;
const FAULT_PAGE_TARGET_MS = 3_000;
/** Calls of the first answer the log line spells out one by one (all are in the results file). */
const FIRST_CALLS_SHOWN = 8;
/** How long the bench waits for one answer before it counts it as unanswered. */
const CLIENT_TIMEOUT_MS = 120_000;
const SEVERITY_RANK = { High: 0, Medium: 1, Low: 2, Informational: 3 };

/**
 * Per size (BENCH_QUEUE_WORKSPACES, default "1000"; a comma-separated list runs each, e.g. "100,1000";
 * BENCH_QUEUE_RUNS, default "newest,severity,failing", runs only those named of 2 to 4 below),
 * one host: DEMO_WORKSPACES of that size, SIMULATED_INCIDENTS_PER_WORKSPACE=20,
 * SIMULATED_VENDOR_LATENCY_MS=200, RECONCILE_INTERVAL_MS=0, and the host's own limits and page budget
 * (CROSS_WORKSPACE_BUDGET_MS 2.5 s, 32 calls in flight per source). bench/vendor-call-probe.cjs counts
 * the host's calls to its simulated vendors, page by page, and when each started: a gap of three
 * quarters of the latency in which none started is a round trip the page waited on a few streams.
 *
 * 1. The expected incidents, independently of the queue: the service account's contract listing
 *    (POST /incidents/across-workspaces) paged to the end; every one of workspaces x 20 exactly once.
 * 2. The queue newest first, as Amira (signed in through the local identity provider), each call
 *    sending the previous answer's nextPageToken until it is null. The first answer is the first call
 *    and every follow-up while `unreadStreams > 0` and the page holds fewer than 50: its calls, each
 *    call's time and their sum (the time to the first incidents). Then every later page's time, the
 *    request body (the token) and what the token holds, the vendor calls each page made, the total.
 *    Checked: every incident exactly once, and no two neighbours out of the queue's order (createdAt
 *    descending, then workspaceId, source, id ascending); with the same set, that is the expected
 *    sequence exactly.
 * 3. The same in severity order (High, Medium, Low, Informational, each newest first).
 * 4. Ten workspaces' SourceA switched to a bridge of their own (PATCH /portal/workspaces/{id}, as a
 *    WorkspaceAdmin sets one; WORKSPACE_BRIDGES_ALLOW_HTTP for the local bridge, a distinct
 *    Authorization each so that each is a bridge of its own), bench/fault-bridge.mjs answering them
 *    500, 429 or never; then the queue newest first again. Checked: every incident of a healthy stream
 *    once, in order, none of a failing one; every failing workspace named in some page's
 *    meta.unavailable; every call within 3 s.
 *
 * Targets: the first answer (all its calls) <= 1.5 s and the later pages' median <= 1.5 s (newest and
 * severity), every call <= 3 s with failures. A paging longer than BENCH_PAGING_BUDGET_S is cut short
 * with a note (its incidents then cannot all be there: the checks say so).
 */
export async function incidentQueue({ log, settings }) {
  const sizes = (process.env.BENCH_QUEUE_WORKSPACES ?? "1000").split(",").map((s) => Number(s.trim()));
  if (sizes.some((n) => !Number.isInteger(n) || n < 5 || n > 1000)) throw new Error(`BENCH_QUEUE_WORKSPACES must be whole numbers from 5 to 1000 (DEMO_WORKSPACES), not ${process.env.BENCH_QUEUE_WORKSPACES}`);
  const checks = [];
  const problems = [];
  const notes = [];
  const results = [];
  for (const size of sizes) {
    const result = await queueAtSize(size, { log, settings });
    results.push(result);
    checks.push(...result.checks);
    problems.push(...result.problems.map((p) => `${size} workspaces: ${p}`));
    notes.push(...result.notes.map((n) => `${size} workspaces: ${n}`));
  }
  return { checks, problems, notes, sizes: results.map(({ checks: _c, problems: _p, notes: _n, ...rest }) => rest) };
}

async function queueAtSize(workspaceCount, { log, settings }) {
  const label = `${workspaceCount} ws`;
  const problems = [];
  const notes = [];
  const checks = [];
  const budgetMs = settings.pagingBudgetS * 1000;
  const sizeStarted = performance.now();
  const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");
  const loadAtStart = load();
  log(`  -- ${workspaceCount} workspaces x ${INCIDENTS_PER_WORKSPACE} incidents, vendor latency ${LATENCY_MS} ms; machine load average ${loadAtStart}`);
  const bridge = await startFaultBridge({ latencyMs: LATENCY_MS, incidentsPerWorkspace: INCIDENTS_PER_WORKSPACE });
  let api;
  try {
    const probePort = await freePort();
    const t0 = performance.now();
    api = await startApiHost({
      env: {
        DEMO_WORKSPACES: String(workspaceCount),
        SIMULATED_INCIDENTS_PER_WORKSPACE: String(INCIDENTS_PER_WORKSPACE),
        SIMULATED_VENDOR_LATENCY_MS: String(LATENCY_MS),
        RECONCILE_INTERVAL_MS: "0",
        WORKSPACE_BRIDGES_ALLOW_HTTP: "true",
        BENCH_VENDOR_PROBE_PORT: String(probePort),
      },
      nodeArgs: ["--require", VENDOR_CALL_PROBE],
      readyTimeoutMs: 900_000,
    });
    const readyS = (performance.now() - t0) / 1000;
    const probe = async (query = "") => JSON.parse((await httpGet(`http://127.0.0.1:${probePort}/calls${query}`)).body.toString("utf8"));
    const vendorCalls = async () => (await probe()).calls;
    const vendorStarts = async (from) => (await probe(`?from=${from}`)).starts;
    const person = await signInPerson(api, PERSON);
    // Every demo workspace, and the demo's retired one (every source off, so no stream of the queue's).
    const workspaces = (await portalJson(api, person, "GET", "/portal/workspaces")).data;
    log(`  host ready in ${readyS.toFixed(1)} s; ${PERSON} sees ${workspaces.length} workspaces`);

    // 1. What the queue must hand out, from the contract's listing.
    const reference = new Map();
    let referenceDuplicates = 0;
    const referenceCallsBefore = await vendorCalls();
    const listing = await pageThrough(api, budgetMs, {
      onItem: (item) => {
        const record = recordOf(item);
        if (reference.has(record.key)) referenceDuplicates++;
        reference.set(record.key, record);
      },
    });
    const referenceVendorCalls = (await vendorCalls()) - referenceCallsBefore;
    const expectedCount = workspaceCount * INCIDENTS_PER_WORKSPACE;
    log(
      `  reference (service account's POST /incidents/across-workspaces): ${listing.distinct} distinct incidents in ${listing.pages.length} pages, ` +
        `${(listing.totalMs / 1000).toFixed(1)} s, ${referenceVendorCalls} vendor calls${listing.complete ? "" : " (NOT complete)"}`,
    );
    for (const p of listing.problems) problems.push(`reference listing: ${p}`);
    if (!listing.complete) problems.push(`the reference listing did not complete (BENCH_PAGING_BUDGET_S ${settings.pagingBudgetS}): the expected order is unknown`);
    else if (reference.size !== expectedCount || listing.duplicates > 0) {
      problems.push(`the reference listing holds ${reference.size} distinct incidents (${listing.duplicates} repeated), expected ${expectedCount}`);
    }
    const all = [...reference.values()];
    const listed = new Set(all.map((r) => r.workspaceId));
    const visible = new Set(workspaces.map((w) => w.id.toLowerCase()));
    const unseen = [...listed].filter((id) => !visible.has(id)).length;
    if (listed.size !== workspaceCount || unseen > 0) problems.push(`the reference covers ${listed.size} workspaces (expected ${workspaceCount}), ${unseen} of them not among the ${visible.size} ${PERSON} sees`);
    const context = { api, person, vendorCalls, vendorStarts, bridge, budgetMs, log };

    // 2 and 3. Newest first, then severity first, everything healthy.
    const wanted = runsWanted();
    const newest = wanted.has("newest") ? await pageQueue(context, { name: "newest", order: "newest", expected: all.slice().sort(newestFirst) }) : null;
    const severity = wanted.has("severity") ? await pageQueue(context, { name: "severity", order: "severity", expected: all.slice().sort(severityFirst) }) : null;

    // 4. Ten workspaces' vendor failing.
    const byName = workspaces.filter((w) => listed.has(w.id.toLowerCase())).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));
    const failing = new Map(wanted.has("failing") ? FAULT_PLAN.map((mode, k) => [byName[Math.floor(((k + 0.5) * byName.length) / FAULT_PLAN.length)].id.toLowerCase(), mode]) : []);
    let k = 0;
    for (const [id, mode] of failing) {
      bridge.setFault(id, mode);
      await portalJson(api, person, "PATCH", `/portal/workspaces/${id}`, {
        sources: { [FAILING_SOURCE]: { bridge: { url: bridge.baseUrl, authorization: `Bearer bench-failing-${++k}` } } },
      });
    }
    const nameOf = new Map(workspaces.map((w) => [w.id.toLowerCase(), w.name]));
    const failingStream = (r) => failing.has(r.workspaceId) && r.source === FAILING_SOURCE;
    const healthy = all.filter((r) => !failingStream(r));
    let faults = null;
    if (wanted.has("failing")) {
      log(`  failing (${FAILING_SOURCE} through a bridge of their own): ${[...failing].map(([id, mode]) => `${nameOf.get(id)} ${mode}`).join(", ")}`);
      faults = await pageQueue(context, { name: "newest, 10 failing", order: "newest", expected: healthy.sort(newestFirst), failing });
    }

    const runs = [newest, severity, faults].filter(Boolean);
    const exit = api.server.exited();
    if (exit) problems.push(`the API host exited during the scenario (${describeExit(exit)})\n${api.server.output()}`);
    const memory = await processMemoryMb(api.server.child.pid);
    for (const run of runs) {
      for (const p of run.problems) problems.push(`${run.name}: ${p}`);
      if (run.cut) notes.push(`${run.name}: cut short after ${settings.pagingBudgetS} s (BENCH_PAGING_BUDGET_S) at ${run.received} of ${run.expectedCount} incidents: what came is held to the start of the expected sequence, as long as what came, and the check of every incident fails`);
    }

    printTable(log, runs, { failingCount: failing.size, expectedCount, healthyCount: healthy.length });
    if (faults) describeFaults(log, faults, failing, nameOf);
    const totalS = (performance.now() - sizeStarted) / 1000;
    log(`  this size took ${(totalS / 60).toFixed(1)} min in all (host start ${readyS.toFixed(0)} s, reference ${(listing.totalMs / 1000).toFixed(0)} s, queue ${runs.map((r) => `${r.name} ${r.totalS.toFixed(0)} s`).join(", ")}); host RSS ${memory?.rssMb.toFixed(0) ?? "?"} MB, peak ${memory?.peakRssMb.toFixed(0) ?? "?"} MB; machine load average now ${load()}`);
    for (const note of notes) log(`  note: ${note}`);

    for (const run of [newest, severity].filter(Boolean)) {
      checks.push(
        {
          name: `${label}, ${run.name}: time to the first incidents, ${run.first.calls.length} call(s)${run.first.complete ? "" : " and still streams unread when cut short"} (ms)`,
          value: run.first.ms,
          target: `<= ${FIRST_TARGET_MS}`,
          pass: run.first.complete && run.first.ms <= FIRST_TARGET_MS,
        },
        {
          name: `${label}, ${run.name}: later pages, median (ms)${run.later.pages === 0 ? ": none, the first answer never ended" : ""}`,
          value: run.later.p50,
          target: `<= ${LATER_MEDIAN_TARGET_MS}`,
          pass: run.later.p50 <= LATER_MEDIAN_TARGET_MS,
        },
      );
    }
    if (faults) {
      const slowest = Math.max(...faults.calls.map((c) => c.ms));
      checks.push({ name: `${label}, ${faults.name}: slowest call (ms)`, value: slowest, target: `<= ${FAULT_PAGE_TARGET_MS}`, pass: slowest <= FAULT_PAGE_TARGET_MS });
    }
    for (const run of runs) {
      const wrong = run.order.missing + run.order.duplicates + run.order.unexpected;
      const scope = run.cut ? ` (cut short: of the first ${run.order.of} expected)` : "";
      checks.push(
        { name: `${label}, ${run.name}: incidents missing, repeated or not expected${scope}`, value: wrong, target: "= 0", pass: wrong === 0 && !run.cut },
        { name: `${label}, ${run.name}: neighbours out of the queue's order`, value: run.order.inversions, target: "= 0", pass: run.order.inversions === 0 },
      );
    }
    if (faults) {
      const notNamed = [...failing.keys()].filter((id) => !faults.named.has(`${id}/${FAILING_SOURCE}`)).length;
      checks.push({ name: `${label}, ${faults.name}: failing workspaces no page's meta.unavailable names`, value: notNamed, target: "= 0", pass: notNamed === 0 });
    }

    return {
      workspaces: workspaceCount,
      incidentsPerWorkspace: INCIDENTS_PER_WORKSPACE,
      latencyMs: LATENCY_MS,
      readySeconds: readyS,
      loadAverage: { atStart: loadAtStart, atEnd: load() },
      totalSeconds: totalS,
      memory,
      reference: { pages: listing.pages.length, seconds: listing.totalMs / 1000, distinct: reference.size, duplicates: referenceDuplicates, vendorCalls: referenceVendorCalls, complete: listing.complete },
      failing: Object.fromEntries([...failing].map(([id, mode]) => [id, { mode, name: nameOf.get(id), source: FAILING_SOURCE }])),
      runs: runs.map(summaryOf),
      checks,
      problems,
      notes,
    };
  } finally {
    await api?.server.stop();
    await bridge.close();
  }
}

/**
 * Pages the queue in `order` from the first call until nextPageToken is null (or a call fails, or the
 * paging budget runs out), recording every call, and compares what came with `expected`.
 */
async function pageQueue({ api, person, vendorCalls, vendorStarts, bridge, budgetMs, log }, { name, order, expected, failing }) {
  const calls = [];
  const problems = [];
  const sequence = [];
  const received = new Map();
  const counts = new Map();
  const named = new Set();
  /** Stream (workspaceId/source) -> the calls whose meta.unavailable named it. */
  const namedOn = new Map();
  /** Stream -> the call whose meta.unavailable said it was given up, and the code. */
  const gaveUp = new Map();
  let token;
  let cut = false;
  const started = performance.now();
  let lastProgress = started;
  const failingCalls = () => (failing ? [...failing.keys()].reduce((n, id) => n + bridge.requestsBetween(id).length, 0) : 0);
  for (;;) {
    const body = JSON.stringify({ order, ...(token === undefined ? {} : { pageToken: token }) });
    const vendorBefore = await vendorCalls();
    const failingBefore = failingCalls();
    const page = await postQueue(api, person, body);
    const starts = await vendorStarts(vendorBefore);
    const data = page.json?.data;
    const unavailable = page.json?.meta?.unavailable ?? [];
    const call = {
      ms: page.ms,
      status: page.status,
      requestBytes: Buffer.byteLength(body),
      tokenChars: token?.length ?? 0,
      responseBytes: page.bytes,
      incidents: data?.incidents?.length ?? 0,
      unreadStreams: data?.unreadStreams ?? null,
      vendorCalls: starts.length,
      waits: sequentialWaits(starts),
      failingCalls: failingCalls() - failingBefore,
      unavailable: unavailable.map((u) => ({ workspaceId: String(u.workspaceId).toLowerCase(), source: u.source, code: u.code, circuitOpen: u.circuitOpen, gaveUp: u.gaveUp, failedPages: u.failedPages })),
      next: data?.nextPageToken ? tokenContents(data.nextPageToken) : null,
    };
    calls.push(call);
    if (page.status !== 200) {
      problems.push(`call ${calls.length}: HTTP ${page.status} after ${page.ms.toFixed(0)} ms: ${page.json?.detail ?? page.text.slice(0, 300)}`);
      break;
    }
    for (const u of call.unavailable) {
      const stream = `${u.workspaceId}/${u.source}`;
      named.add(stream);
      namedOn.set(stream, [...(namedOn.get(stream) ?? []), calls.length]);
      if (u.gaveUp) gaveUp.set(stream, { call: calls.length, code: u.code });
    }
    for (const item of data.incidents) {
      const record = { ...recordOf(item), call: calls.length };
      sequence.push(record);
      received.set(record.key, record);
      counts.set(record.key, (counts.get(record.key) ?? 0) + 1);
    }
    if (data.moreIncidentsAvailable !== (data.nextPageToken !== null)) problems.push(`call ${calls.length}: moreIncidentsAvailable ${data.moreIncidentsAvailable} with nextPageToken ${data.nextPageToken === null ? "null" : "set"}`);
    if (data.nextPageToken === null) break;
    if (performance.now() - started > budgetMs) {
      cut = true;
      break;
    }
    token = data.nextPageToken;
    if (performance.now() - lastProgress > 60_000) {
      lastProgress = performance.now();
      log(`    ${name}: ${calls.length} calls, ${sequence.length} incidents, ${((lastProgress - started) / 1000).toFixed(0)} s so far`);
    }
  }
  const totalS = (performance.now() - started) / 1000;

  // The first answer: the first call and its follow-ups while streams are unread and the page is short.
  let end = calls.findIndex((c) => c.status !== 200 || c.unreadStreams === 0 || c.incidents >= PAGE_SIZE || c.next === null);
  // Cut short before it ended: every call so far, and it says so.
  const firstComplete = end !== -1;
  if (end === -1) end = calls.length - 1;
  const firstCalls = calls.slice(0, end + 1);
  const laterCalls = calls.slice(end + 1).filter((c) => c.status === 200);
  const firstNonEmpty = calls.findIndex((c) => c.incidents > 0);
  const laterMs = laterCalls.map((c) => c.ms).sort((a, b) => a - b);
  const first = {
    calls: firstCalls.map((c) => ({ ms: c.ms, incidents: c.incidents, unreadStreams: c.unreadStreams, vendorCalls: c.vendorCalls, waits: c.waits, unavailable: c.unavailable.length })),
    complete: firstComplete,
    ms: firstCalls.reduce((n, c) => n + c.ms, 0),
    incidents: firstCalls.reduce((n, c) => n + c.incidents, 0),
    vendorCalls: firstCalls.reduce((n, c) => n + c.vendorCalls, 0),
    firstNonEmptyCall: firstNonEmpty + 1,
    msToFirstNonEmpty: firstNonEmpty < 0 ? NaN : calls.slice(0, firstNonEmpty + 1).reduce((n, c) => n + c.ms, 0),
  };
  const later = {
    pages: laterCalls.length,
    short: laterCalls.filter((c) => c.incidents < PAGE_SIZE && c.next !== null).length,
    p50: percentile(laterMs, 50),
    p95: percentile(laterMs, 95),
    max: laterMs.at(-1) ?? NaN,
    over1500: laterMs.filter((ms) => ms > 1_500).length,
    over3000: laterMs.filter((ms) => ms > 3_000).length,
    vendorCalls: { p50: median(laterCalls.map((c) => c.vendorCalls)), max: Math.max(0, ...laterCalls.map((c) => c.vendorCalls)), total: laterCalls.reduce((n, c) => n + c.vendorCalls, 0) },
    waits: { p50: median(laterCalls.map((c) => c.waits)), max: Math.max(0, ...laterCalls.map((c) => c.waits)) },
    namingUnavailable: laterCalls.filter((c) => c.unavailable.length > 0).length,
    requestBytes: { p50: median(laterCalls.map((c) => c.requestBytes)), max: Math.max(0, ...laterCalls.map((c) => c.requestBytes)) },
  };
  const tokens = calls.map((c) => c.next).filter(Boolean);
  const checked = orderOf(sequence, counts, expected, order === "severity" ? severityFirst : newestFirst, cut);
  const run = {
    name,
    queueOrder: order,
    order: checked,
    calls,
    first,
    later,
    cut,
    totalS,
    received: sequence.length,
    expectedCount: expected.length,
    named,
    gaveUp: Object.fromEntries(gaveUp),
    handedOutWithUnread: calls.filter((c) => c.incidents > 0 && c.unreadStreams > 0).length,
    tokens: {
      largestStreams: Math.max(0, ...tokens.map((t) => t.streams)),
      largestChars: Math.max(0, ...tokens.map((t) => t.chars)),
      largestDeflated: Math.max(0, ...tokens.map((t) => t.deflatedBytes)),
      largestCursorJson: Math.max(0, ...tokens.map((t) => t.cursorJsonBytes)),
      firstCallStreams: calls[0]?.next?.streams ?? 0,
    },
    vendorCallsTotal: calls.reduce((n, c) => n + c.vendorCalls, 0),
    failingCallsTotal: calls.reduce((n, c) => n + c.failingCalls, 0),
    problems,
  };
  log(
    `  ${name}: ${calls.length} calls, ${sequence.length} incidents (${expected.length} expected), ${totalS.toFixed(1)} s; first incidents after ${firstCalls.length} call(s), ` +
      `${first.ms.toFixed(0)} ms [${firstCalls.slice(0, FIRST_CALLS_SHOWN).map((c) => `${c.ms.toFixed(0)} ms: ${c.incidents} incidents, ${c.unreadStreams} unread, ${c.vendorCalls} vendor calls (${c.waits} waits), ${c.unavailable.length} unavailable`).join(" | ")}` +
      `${firstCalls.length > FIRST_CALLS_SHOWN ? ` | ... ${firstCalls.length - FIRST_CALLS_SHOWN} more, the last: ${firstCalls.at(-1).incidents} incidents, ${firstCalls.at(-1).unreadStreams} unread` : ""}]; ` +
      `later pages p50 ${fmt(later.p50)} ms, p95 ${fmt(later.p95)} ms, max ${fmt(later.max)} ms; order: ${checked.missing} missing, ${checked.duplicates} repeated, ${checked.unexpected} unexpected, ${checked.inversions} neighbours out of order` +
      (checked.firstMismatch ? `; first difference at position ${checked.firstMismatch.index}: got ${checked.firstMismatch.got}, expected ${checked.firstMismatch.want}` : ""),
  );
  for (const r of checked.missingSamples) {
    const stream = `${r.workspaceId}/${r.source}`;
    const given = gaveUp.get(stream);
    log(
      `    missing: ${r.key} (${r.createdAt}, ${r.severity}); its stream ${namedOn.has(stream) ? `named unavailable on call(s) ${namedOn.get(stream).join(", ")}` : "never named unavailable"}` +
        `${given ? `, given up on call ${given.call} (${given.code})` : ""}`,
    );
  }
  for (const sample of checked.inversionSamples) {
    const streamOf = (r) => r.key.split("/").slice(0, 2).join("/");
    const namedText = (r) => (namedOn.has(streamOf(r)) ? `its stream named unavailable on call(s) ${namedOn.get(streamOf(r)).join(", ")}` : "its stream never named unavailable");
    sample.before.streamNamedOn = namedOn.get(streamOf(sample.before)) ?? [];
    sample.after.streamNamedOn = namedOn.get(streamOf(sample.after)) ?? [];
    log(
      `    out of order at position ${sample.index}: ${sample.before.key} (${sample.before.createdAt}, call ${sample.before.call}; ${namedText(sample.before)}) ` +
        `before ${sample.after.key} (${sample.after.createdAt}, call ${sample.after.call}; ${namedText(sample.after)})`,
    );
  }
  return run;
}

/**
 * Round trips a page waited on a few streams: gaps of at least three quarters of the vendor's latency
 * in which no vendor call started. Calls made together start back to back (each freed slot takes the
 * next), so each such gap is one more read of streams whose turn came only after the one before.
 */
function sequentialWaits(starts) {
  let waits = 0;
  for (let i = 1; i < starts.length; i++) if (starts[i] - starts[i - 1] >= LATENCY_MS * 0.75) waits++;
  return waits;
}

/** One queue call with plain fetch: from sending to the last byte; never throws for the answer's status. */
async function postQueue(api, person, body) {
  const started = performance.now();
  try {
    const res = await fetch(`${api.baseUrl}/portal/incidents/search`, {
      method: "POST",
      headers: { cookie: person.cookie, "X-CSRF-Token": person.csrfToken, "Content-Type": "application/json" },
      body,
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const ms = performance.now() - started;
    const text = bytes.toString("utf8");
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // the status and the text say what happened
    }
    return { ms, status: res.status, bytes: bytes.length, text, json };
  } catch (err) {
    const why = err?.name === "TimeoutError" ? `no answer within ${CLIENT_TIMEOUT_MS / 1000} s` : `${err?.message ?? err}`;
    return { ms: performance.now() - started, status: 0, bytes: 0, text: why, json: { detail: why } };
  }
}

/** An incident of an answer (the queue's or the contract listing's: the same summary) as the order sees it. */
function recordOf(item) {
  const workspaceId = String(item.incident.workspaceId).toLowerCase();
  const source = String(item.source);
  const id = String(item.incident.id);
  return { key: `${workspaceId}/${source}/${id}`, workspaceId, source, id, t: Date.parse(item.incident.createdAt), severity: item.incident.severity };
}

/** The queue's "newest": createdAt descending, then workspaceId, source and id ascending (code-unit order). */
function newestFirst(a, b) {
  if (a.t !== b.t) return b.t - a.t;
  if (a.workspaceId !== b.workspaceId) return a.workspaceId < b.workspaceId ? -1 : 1;
  if (a.source !== b.source) return a.source < b.source ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The runs BENCH_QUEUE_RUNS names (default all three): newest, severity, failing. */
function runsWanted() {
  const all = ["newest", "severity", "failing"];
  const wanted = (process.env.BENCH_QUEUE_RUNS ?? all.join(",")).split(",").map((s) => s.trim());
  const unknown = wanted.filter((w) => !all.includes(w));
  if (unknown.length > 0 || wanted.length === 0) throw new Error(`BENCH_QUEUE_RUNS names runs of ${all.join(", ")}, not ${unknown.join(", ")}`);
  return new Set(wanted);
}

/** The queue's "severity": High, Medium, Low, Informational, each newest first. */
function severityFirst(a, b) {
  return SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || newestFirst(a, b);
}

/**
 * What came against what was expected: incidents missing, repeated and not expected, neighbours out
 * of order, and the first position where the sequence and the expected one differ. With nothing
 * missing, repeated or unexpected, zero neighbours out of order is the expected sequence exactly.
 */
function orderOf(sequence, counts, expected, compare, cut) {
  const want = new Set(expected.map((r) => r.key));
  // A paging cut short can only be held to the start of the expected sequence, as long as what came.
  const due = cut ? expected.slice(0, sequence.length) : expected;
  let inversions = 0;
  const inversionSamples = [];
  const describe = (r) => ({ key: r.key, createdAt: new Date(r.t).toISOString(), severity: r.severity, call: r.call });
  for (let i = 1; i < sequence.length; i++) {
    if (compare(sequence[i - 1], sequence[i]) > 0) {
      inversions++;
      if (inversionSamples.length < 5) inversionSamples.push({ index: i, before: describe(sequence[i - 1]), after: describe(sequence[i]) });
    }
  }
  let firstMismatch = null;
  for (let i = 0; i < Math.max(sequence.length, due.length); i++) {
    if (sequence[i]?.key !== expected[i]?.key) {
      firstMismatch = { index: i, got: sequence[i]?.key ?? "(nothing)", want: expected[i]?.key ?? "(nothing)" };
      break;
    }
  }
  const missingRecords = due.filter((r) => !counts.has(r.key));
  return {
    of: due.length,
    missing: missingRecords.length,
    missingSamples: missingRecords.slice(0, 5).map((r) => ({ ...r, createdAt: new Date(r.t).toISOString() })),
    duplicates: [...counts.values()].reduce((n, c) => n + c - 1, 0),
    unexpected: [...counts.keys()].filter((k) => !want.has(k)).length,
    inversions,
    inversionSamples,
    firstMismatch,
    equal: firstMismatch === null,
  };
}

/**
 * What a page token holds, read as the service writes it (shared/domain/incidents/incident-queue.ts:
 * base64url(JSON of a string) "." MAC, the string the base64url of a deflated JSON cursor). For the
 * figures only; null when the layout is not that.
 */
function tokenContents(token) {
  try {
    const packed = JSON.parse(Buffer.from(token.split(".")[0], "base64url").toString("utf8"));
    const deflated = Buffer.from(packed, "base64url");
    const json = inflateRawSync(deflated).toString("utf8");
    const cursor = JSON.parse(json);
    let streams = 0;
    let knownNext = 0;
    let failing = 0;
    for (const [, positions] of cursor.w) {
      for (const p of positions) {
        if (p === 0) continue;
        streams++;
        if (p[3] !== "") knownNext++;
        if (p[4] > 0) failing++;
      }
    }
    return { chars: token.length, deflatedBytes: deflated.length, cursorJsonBytes: Buffer.byteLength(json), workspaces: cursor.w.length, streams, knownNext, failing };
  } catch {
    return { chars: token.length, deflatedBytes: NaN, cursorJsonBytes: NaN, workspaces: NaN, streams: NaN, knownNext: NaN, failing: NaN };
  }
}

function summaryOf(run) {
  const { calls, named, ...rest } = run;
  return {
    ...rest,
    named: [...named],
    perCall: calls.map((c) => ({
      ms: Math.round(c.ms),
      status: c.status,
      incidents: c.incidents,
      unreadStreams: c.unreadStreams,
      requestBytes: c.requestBytes,
      responseBytes: c.responseBytes,
      vendorCalls: c.vendorCalls,
      waits: c.waits,
      failingCalls: c.failingCalls,
      unavailable: c.unavailable.length,
      tokenStreams: c.next?.streams ?? null,
      tokenKnownNext: c.next?.knownNext ?? null,
    })),
  };
}

function printTable(log, runs, { failingCount, expectedCount, healthyCount }) {
  const kib = (bytes) => fmt(bytes / 1024, 1);
  const rows = [
    ["", ...runs.map((r) => r.name)],
    ["incidents expected", ...runs.map((r) => String(r.expectedCount))],
    ["incidents received (distinct)", ...runs.map((r) => `${r.received} (${r.received - r.order.duplicates})`)],
    ["missing / repeated / unexpected", ...runs.map((r) => `${r.order.missing} / ${r.order.duplicates} / ${r.order.unexpected}${r.cut ? ` (of the first ${r.order.of})` : ""}`)],
    ["neighbours out of order", ...runs.map((r) => String(r.order.inversions))],
    ["sequence = expected order", ...runs.map((r) => (r.order.equal ? "yes" : `no (from ${r.order.firstMismatch.index})`))],
    ["calls in all", ...runs.map((r) => String(r.calls.length))],
    ["first answer: calls", ...runs.map((r) => String(r.first.calls.length))],
    ["first answer: each call, ms", ...runs.map((r) => r.first.calls.slice(0, 4).map((c) => fmt(c.ms)).join(" + ") + (r.first.calls.length > 4 ? ` + ${r.first.calls.length - 4} more` : ""))],
    ["first answer: unreadStreams after each call", ...runs.map((r) => r.first.calls.slice(0, 4).map((c) => String(c.unreadStreams)).join(", ") + (r.first.calls.length > 4 ? `, ... ${r.first.calls.at(-1).unreadStreams}` : ""))],
    ["time to the first incidents, ms", ...runs.map((r) => fmt(r.first.ms) + (r.first.complete ? "" : " (not done)"))],
    ["first answer: incidents", ...runs.map((r) => String(r.first.incidents))],
    ["first answer: vendor calls", ...runs.map((r) => String(r.first.vendorCalls))],
    ["first non-empty call (ms to it)", ...runs.map((r) => `${r.first.firstNonEmptyCall} (${fmt(r.first.msToFirstNonEmpty)})`)],
    ["later pages", ...runs.map((r) => String(r.later.pages))],
    ["later pages short of 50 (not last)", ...runs.map((r) => String(r.later.short))],
    ["later page p50 / p95 / max, ms", ...runs.map((r) => `${fmt(r.later.p50)} / ${fmt(r.later.p95)} / ${fmt(r.later.max)}`)],
    ["later pages over 1.5 s / over 3 s", ...runs.map((r) => `${r.later.over1500} / ${r.later.over3000}`)],
    ["slowest call, ms", ...runs.map((r) => fmt(Math.max(...r.calls.map((c) => c.ms))))],
    ["vendor calls per later page p50 / max", ...runs.map((r) => `${fmt(r.later.vendorCalls.p50)} / ${r.later.vendorCalls.max}`)],
    ["round trips waited on a few streams per later page p50 / max", ...runs.map((r) => `${fmt(r.later.waits.p50)} / ${r.later.waits.max}`)],
    ["vendor calls in all", ...runs.map((r) => String(r.vendorCallsTotal))],
    ["request body per later page p50 / max, KiB", ...runs.map((r) => `${kib(r.later.requestBytes.p50)} / ${kib(r.later.requestBytes.max)}`)],
    ["largest token: streams, KiB", ...runs.map((r) => `${r.tokens.largestStreams}, ${kib(r.tokens.largestChars)}`)],
    ["largest token: deflated / cursor JSON, KiB", ...runs.map((r) => `${kib(r.tokens.largestDeflated)} / ${kib(r.tokens.largestCursorJson)}`)],
    ["calls naming a stream unavailable (of them later)", ...runs.map((r) => `${r.calls.filter((c) => c.unavailable.length > 0).length} (${r.later.namingUnavailable})`)],
    ["streams ever named unavailable / given up", ...runs.map((r) => `${r.named.size} / ${Object.keys(r.gaveUp).length}`)],
    ["calls handing out incidents with streams unread", ...runs.map((r) => String(r.handedOutWithUnread))],
    ["total, s", ...runs.map((r) => fmt(r.totalS, 1) + (r.cut ? " (cut)" : ""))],
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ").trimEnd();
  log("");
  log(`  ${expectedCount} incidents; with ${failingCount} failing workspaces, ${healthyCount} of healthy streams`);
  for (const [i, row] of rows.entries()) {
    log(`  ${line(row)}`);
    if (i === 0) log(`  ${widths.map((w) => "-".repeat(w)).join("  ")}`);
  }
  log("");
}

/** The failing run's reports: which codes each fault got, and healthy streams named. */
function describeFaults(log, run, failing, nameOf) {
  const groups = new Map();
  const healthyNamed = new Set();
  for (const call of run.calls) {
    for (const u of call.unavailable) {
      const mode = u.source === FAILING_SOURCE ? failing.get(u.workspaceId) : undefined;
      if (!mode) healthyNamed.add(`${nameOf.get(u.workspaceId) ?? u.workspaceId}/${u.source} ${u.code}`);
      const key = `${mode ?? "healthy"} -> ${u.code}${u.circuitOpen ? " (circuit open)" : ""}${u.gaveUp ? " gaveUp" : ""}`;
      groups.set(key, (groups.get(key) ?? 0) + 1);
    }
  }
  log(`  ${run.name}: meta.unavailable entries by fault and code: ${[...groups].sort().map(([k, n]) => `${k}: ${n}`).join("; ") || "none"}`);
  log(`  ${run.name}: calls to the failing bridges ${run.failingCallsTotal}; healthy streams named: ${healthyNamed.size === 0 ? "none" : [...healthyNamed].slice(0, 8).join(", ") + (healthyNamed.size > 8 ? `, ... (${healthyNamed.size})` : "")}`);
}

const fmt = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : "?");
