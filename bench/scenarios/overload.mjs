// Overload: the API host on the Cosmos-protocol server offered twice what it can serve. Does it keep
// serving what it can (goodput), answer within its deadline, shed the rest at once, stay alive, never
// commit a write it answered 504, and lose no audit event?

import { Agent, request } from "undici";
import { setTimeout as sleep } from "node:timers/promises";
import { apiJson, startApiHost, startCosmosServer } from "../api-host.mjs";
import { describeExit, numberFromEnv, p50p99 } from "../lib.mjs";
import { closedLoop, createLoad, openLoop, prepareWorld } from "../mixed-load.mjs";

/** Write-heavy: per 100 requests, 75 writes (45 assignee changes with a unique address, 30 status flips) and 25 reads. */
const MIX = { changeAssignee: 45, changeStatus: 30, readIncident: 20, listPage: 5 };
/** Closed-loop steps of the capacity measure: workers (at most the in-flight bound), each step this long. */
const CAPACITY_WORKERS = [2, 4, 8, 16, 32, 64];
const CAPACITY_STEP_MS = 20_000;
/** The overload runs in segments this long, a capacity check (the best step again) before and after each. */
const SEGMENT_S = 30;
/** Targets. */
const GOODPUT_SHARE_TARGET = 0.8;
const AUDIT_LAG_TARGET_MS = 10_000;
/**
 * An answer counts as later than the deadline past this much beyond it: the client's time includes
 * sending, the loopback and the host reading the request, which the server's clock does not (a 504
 * sent at the deadline arrives a few ms after it).
 */
const LATE_TOLERANCE_MS = 250;
/** The client waits this long for an answer: well past the server's deadline, so a late answer is seen, not cut. */
const CLIENT_TIMEOUT_MS = 60_000;

/**
 * One host (STORE=cosmos on the Cosmos-protocol server in its own process) with a small per-request
 * budget and in-flight bound so the effects show on a small machine: REQUEST_DEADLINE_MS from
 * BENCH_OVERLOAD_DEADLINE_MS (default 5000), MAX_CONCURRENT_REQUESTS from BENCH_OVERLOAD_MAX_IN_FLIGHT
 * (default 16); the per-credential rate limit raised out of the way (startApiHost does), the reconciler's
 * timer off.
 *
 * 1. Capacity: the write-heavy mix (bench/mixed-load.mjs; per 100 requests 45 assignee changes, each
 *    to a unique address, 30 status flips, 20 incident reads, 5 cross-workspace pages) in closed loop
 *    with 2, 4, 8, ... workers (up to the in-flight bound; a worker refused 429 waits its Retry-After)
 *    for 20 s each, stopping once p99 passes half the deadline; capacity = the most 2xx a second of a
 *    step whose p99 stayed within half the deadline.
 * 2. Overload: BENCH_OVERLOAD_S (default 180) seconds in segments of 30 s, each offered twice the
 *    capacity last measured, open loop (arrivals on a fixed schedule, whatever the answers), and each
 *    followed by a capacity check (the best step again). Each segment's goodput is held against the
 *    mean of the checks before and after it, and the run's against those means weighted by the
 *    segments' length: the Cosmos-protocol server scans every item per query, so what the host can
 *    serve falls as the store fills during the run (by half in three minutes), and one capacity
 *    measured before would hold the late segments against a capacity they no longer have (the machine
 *    is shared, too).
 * Throughout: GET /api/v2/health every second (its own connection), and the audit export of every
 * workspace of the load polled every second from a resumable token (GET .../export/audit) by a
 * service account of its own, as a SIEM's connector would be (the instance keeps a share of its places
 * for callers below their fair share: shared/platform/http/admission.ts), noting when each event
 * first shows.
 *
 * Checks (overload phase): goodput (2xx answered within the deadline, a second) / capacity >= 0.8;
 * answers later than the deadline = 0 (client-side time, which includes the way there and back: more
 * than 250 ms past it; how many came past it at all is reported); writes answered 504 TIMEOUT whose
 * change landed anyway (an assignee change by its address in the audit trail; a status flip by the
 * count of its incident's status audit events beyond its 2xx flips), by what the answer's `commit`
 * said: landed though it said `none` = 0, committed after the answer (`in-progress`) = 0 (`committed`,
 * changed before the answer and saying so, is reported); shed answers without Retry-After = 0; health
 * answers not 200 = 0; 2xx writes without their audit event = 0; the slowest audit lag (write answered
 * -> event in the export) <= 10 s. Reported beside: p99 of admitted (not shed) requests, shed answers,
 * answers by status, the audit lag from each event's own time, the export polls that were shed.
 */
export async function overload({ log }) {
  const deadlineMs = numberFromEnv("BENCH_OVERLOAD_DEADLINE_MS", 5_000, { integer: true, min: 1_000 });
  const maxInFlight = numberFromEnv("BENCH_OVERLOAD_MAX_IN_FLIGHT", 16, { integer: true });
  const seconds = numberFromEnv("BENCH_OVERLOAD_S", 180);
  const segments = Math.max(1, Math.round(seconds / SEGMENT_S));
  const problems = [];
  const notes = [];
  const started = [];
  let load;
  let poller;
  let health;
  try {
    const cosmos = await startCosmosServer();
    started.push(cosmos.server);
    const t0 = performance.now();
    const api = await startApiHost({
      env: {
        ...cosmos.hostEnv("overload"),
        REQUEST_DEADLINE_MS: String(deadlineMs),
        MAX_CONCURRENT_REQUESTS: String(maxInFlight),
        RECONCILE_INTERVAL_MS: "0",
      },
      readyTimeoutMs: 300_000,
    });
    started.unshift(api.server);
    log(`  host ready in ${((performance.now() - t0) / 1000).toFixed(1)} s (STORE=cosmos, REQUEST_DEADLINE_MS=${deadlineMs}, MAX_CONCURRENT_REQUESTS=${maxInFlight})`);

    const world = await prepareWorld(api, { incidents: 600 });
    log(`  ${world.incidents.length} open incidents in ${world.workspaces.length} workspaces`);
    load = createLoad({ api, world, mix: MIX, tag: "overload", clientTimeoutMs: CLIENT_TIMEOUT_MS, connections: 4096 });
    const { ctx } = load;

    health = pollHealth(api);
    // The audit consumer is an integration of its own (a SIEM's connector), with its own credential.
    const consumer = (await apiJson(api, "POST", "/service-accounts", {
      name: "Audit consumer",
      organizationalRole: "Member",
      workspaceAssignments: world.workspaces.map((workspaceId) => ({ workspaceId, role: "Analyst" })),
      scopes: ["audit:read"],
    })).data;
    poller = pollAudit(api, world.workspaces, { Authorization: `Basic ${Buffer.from(`${consumer.clientId}:${consumer.clientSecret}`).toString("base64")}` });

    // 1. Capacity.
    const step = async (workers, label) => {
      const results = [];
      const c = await closedLoop({ workers, durationMs: CAPACITY_STEP_MS, next: load.next, onResult: (r) => results.push(r) });
      const ok = results.filter((r) => r.status >= 200 && r.status < 300);
      const lat = p50p99(ok.map((r) => r.ms));
      const s = { workers, served: ok.length / c.seconds, p50: lat.p50, p99: lat.p99, shed: results.filter((r) => r.status === 429).length, other: results.length - ok.length };
      log(`  ${label}, ${String(workers).padStart(2)} workers: ${s.served.toFixed(1)} 2xx/s, p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms, shed ${s.shed}, other non-2xx ${s.other - s.shed}`);
      return s;
    };
    const steps = [];
    for (const workers of CAPACITY_WORKERS.filter((w) => w <= maxInFlight)) {
      const s = await step(workers, "capacity");
      steps.push(s);
      if (!(s.p99 <= deadlineMs / 2)) break;
    }
    const sane = steps.filter((s) => s.p99 <= deadlineMs / 2);
    const best = (sane.length > 0 ? sane : steps).reduce((a, b) => (b.served > a.served ? b : a));
    let capacity = best.served;
    if (sane.length === 0) notes.push(`no capacity step kept p99 within ${deadlineMs / 2} ms; capacity is the best step's anyway`);
    log(`  capacity ${capacity.toFixed(1)} 2xx/s (${best.workers} workers, p99 ${fmt(best.p99)} ms); overload at twice the capacity just measured, open loop, ${segments} segments of ${SEGMENT_S} s between capacity checks, ${seconds} s in all`);

    // 2. Overload, in segments, each held against the capacity measured just before and just after
    //    it. Only the writes from here on are checked against the audit trail.
    ctx.marks.length = 0;
    ctx.expected.length = 0;
    await sleep(2_000);
    const overloadStartIso = new Date().toISOString();
    const results = [];
    const checks = [];
    const segmentRuns = [];
    let phaseSeconds = 0;
    let notSent = 0;
    let previous = best;
    for (let i = 0; i < segments && !api.server.exited(); i++) {
      const rate = 2 * previous.served;
      const before = results.length;
      const segmentStart = performance.now();
      const sent = await openLoop({
        rate,
        durationMs: SEGMENT_S * 1000,
        maxInFlight: 100_000,
        next: load.next,
        onResult: (r) => results.push(r),
        stop: () => Boolean(api.server.exited()),
      });
      const segmentSeconds = (performance.now() - segmentStart) / 1000;
      phaseSeconds += segmentSeconds;
      notSent += sent.notSent;
      const mine = results.slice(before);
      const check = await step(best.workers, "capacity check");
      checks.push(check);
      const capacityAround = (previous.served + check.served) / 2;
      const good = mine.filter((r) => ok(r) && r.ms <= deadlineMs).length;
      segmentRuns.push({ offered: rate, seconds: segmentSeconds, good, capacity: capacityAround });
      log(`  overload segment ${i + 1}: offered ${rate.toFixed(1)} req/s, goodput ${(good / segmentSeconds).toFixed(1)} 2xx/s = ${(good / segmentSeconds / capacityAround).toFixed(2)} x the capacity around it (${previous.served.toFixed(1)}, ${check.served.toFixed(1)})`);
      previous = check;
    }
    const exit = api.server.exited();
    if (exit) problems.push(`the API host exited during the overload (${describeExit(exit)})\n${api.server.output()}`);
    const offered = segmentRuns.reduce((a, r) => a + r.offered * r.seconds, 0) / Math.max(phaseSeconds, 1e-9);

    // Let the audit trail catch up: until every 2xx write's event is there, or nothing new shows for 15 s (at most 60 s).
    const writes = ctx.marks.slice();
    const wanted = writes.filter((m) => m.kind === "assignee" && ok(m.res)).map((m) => m.marker);
    await poller.settle(wanted, 15_000, 60_000);
    const healthAnswers = await health.stop();
    const audit = await poller.stop();
    // Goodput against the capacity measured around each segment: the Cosmos-protocol server scans every
    // item per query, so what the host can serve falls as the store fills, during the run.
    capacity = segmentRuns.reduce((a, r) => a + r.capacity * r.seconds, 0) / Math.max(phaseSeconds, 1e-9);
    const capacityBefore = best.served;
    const again = checks.at(-1) ?? best;
    log(`  capacity: ${capacityBefore.toFixed(1)} at the start, ${again.served.toFixed(1)} at the end; ${capacity.toFixed(1)} 2xx/s around the segments, the goodput is held against`);

    // Answers.
    const byStatus = {};
    for (const r of results) {
      const k = `${r.status}${r.code ? ` ${r.code}` : ""}${r.error ? ` ${r.error}` : ""}`;
      byStatus[k] = (byStatus[k] ?? 0) + 1;
    }
    const good = results.filter((r) => ok(r) && r.ms <= deadlineMs);
    const goodput = good.length / phaseSeconds;
    const shed = results.filter((r) => r.status === 429);
    const shedWithRetryAfter = shed.filter((r) => r.retryAfter !== undefined).length;
    const admitted = results.filter((r) => r.status !== 429);
    const admittedLat = p50p99(admitted.map((r) => r.ms));
    const late = results.filter((r) => r.ms > deadlineMs + LATE_TOLERANCE_MS);
    const pastDeadline = results.filter((r) => r.ms > deadlineMs).length;
    const slowest = Math.max(0, ...results.map((r) => r.ms));
    const timeouts = results.filter((r) => r.status === 504);

    // Writes against the audit trail. Assignee changes: by their address. Status flips: per incident and
    // status, the audit events beyond the 2xx flips belong to flips not answered 2xx.
    const events = audit.events.filter((e) => e.timeGenerated >= overloadStartIso);
    const byMarker = new Map();
    for (const e of events) if (e.activityType === "IncidentAssignee" && e.assigneeEmail) byMarker.set(e.assigneeEmail, e);
    const assignees = writes.filter((m) => m.kind === "assignee");
    const lost = [];
    const lags = [];
    const landedAfter = { none: 0, committed: 0, "in-progress": 0, unsaid: 0 };
    const landedWithout2xx = {};
    for (const m of assignees) {
      const e = byMarker.get(m.marker);
      if (ok(m.res)) {
        if (!e) lost.push(m);
        else lags.push(e.seenAt - m.res.answeredAt);
        continue;
      }
      if (!e) continue;
      if (m.res.status === 504) {
        landedAfter[m.res.json?.commit ?? "unsaid"]++;
        continue;
      }
      const k = `${m.res.status}${m.res.code ? ` ${m.res.code}` : ""}${m.res.error ? ` ${m.res.error}` : ""}`;
      landedWithout2xx[k] = (landedWithout2xx[k] ?? 0) + 1;
    }
    const statusWrites = writes.filter((m) => m.kind === "status");
    const statusKey = (ws, target, status) => `${ws}|${target}|${status}`;
    const statusAudits = new Map();
    for (const e of events) {
      if (e.activityType !== "IncidentStatus") continue;
      const k = statusKey(e.workspaceId, e.targetResourceId, e.status);
      statusAudits.set(k, (statusAudits.get(k) ?? 0) + 1);
    }
    const perKey = new Map();
    for (const m of statusWrites) {
      const k = statusKey(m.workspaceId, m.targetResourceId, m.status);
      const p = perKey.get(k) ?? { ok: 0, timeouts: [], other: 0 };
      if (ok(m.res)) p.ok++;
      else if (m.res.status === 504) p.timeouts.push(m);
      else p.other++;
      perKey.set(k, p);
    }
    let statusLost = 0;
    let statusLandedOther = 0;
    // A flip's events carry no marker: the incident's status events beyond its 2xx flips are given to
    // its 504s, those that said their change was (being) committed first.
    const statusLandedAfter = { none: 0, committed: 0, "in-progress": 0, unsaid: 0 };
    const order = ["committed", "in-progress", "unsaid", "none"];
    for (const [k, p] of perKey) {
      const n = statusAudits.get(k) ?? 0;
      if (n < p.ok) statusLost += p.ok - n;
      let extra = Math.max(0, n - p.ok);
      const said = p.timeouts.map((m) => m.res.json?.commit ?? "unsaid").sort((a, b) => order.indexOf(a) - order.indexOf(b));
      for (const commit of said) {
        if (extra === 0) break;
        statusLandedAfter[commit]++;
        extra--;
      }
      statusLandedOther += extra;
    }
    const statusLandedAfterTimeout = Object.values(statusLandedAfter).reduce((a, b) => a + b, 0);
    // The answer said nothing was or would be changed, yet it was: the caller would send it again.
    const landedSaidNone = landedAfter.none + landedAfter.unsaid + statusLandedAfter.none + statusLandedAfter.unsaid;
    // The answer said the change was still under way: it committed after the caller was answered.
    const landedAfterAnswer = landedAfter["in-progress"] + statusLandedAfter["in-progress"];
    const landedSaidCommitted = landedAfter.committed + statusLandedAfter.committed;
    const lostAudit = lost.length + statusLost;
    const lag = p50p99(lags);
    // The same from the event's own time (the server's clock, this machine's): how much of the lag is
    // the trail's (sequencing, the export) rather than this poller's (a shed poll, the poll interval).
    const sinceGenerated = p50p99(events.filter((e) => e.activityType === "IncidentAssignee").map((e) => performance.timeOrigin + e.seenAt - Date.parse(e.timeGenerated)));
    const maxLag = lags.length > 0 ? Math.max(...lags) : NaN;
    const healthNot200 = healthAnswers.filter((h) => h.status !== 200);
    const healthLat = p50p99(healthAnswers.map((h) => h.ms));
    const healthStates = {};
    for (const h of healthAnswers) healthStates[h.state ?? `HTTP ${h.status}`] = (healthStates[h.state ?? `HTTP ${h.status}`] ?? 0) + 1;
    const timeoutCommits = {};
    for (const r of timeouts) timeoutCommits[r.json?.commit ?? "unsaid"] = (timeoutCommits[r.json?.commit ?? "unsaid"] ?? 0) + 1;

    log(`  overload: ${results.length} answers in ${phaseSeconds.toFixed(0)} s (${(results.length / phaseSeconds).toFixed(1)}/s, offered ${offered.toFixed(1)}/s on average, ${notSent} not sent)`);
    log(`    by status: ${Object.entries(byStatus).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} x${n}`).join(", ")}`);
    log(`    goodput ${goodput.toFixed(1)} 2xx/s within ${deadlineMs} ms = ${(goodput / capacity).toFixed(2)} x capacity; admitted (not shed) p50 ${fmt(admittedLat.p50)} ms, p99 ${fmt(admittedLat.p99)} ms; slowest answer ${fmt(slowest)} ms; past the deadline at all ${pastDeadline}, by more than ${LATE_TOLERANCE_MS} ms ${late.length}`);
    log(`    shed: ${shed.length} (429), ${shedWithRetryAfter} with Retry-After; answered 504 TIMEOUT: ${timeouts.length} (commit: ${Object.entries(timeoutCommits).map(([k, n]) => `${k} ${n}`).join(", ") || "-"})`);
    log(`    writes: ${assignees.length} assignee changes (${assignees.filter((m) => ok(m.res)).length} 2xx), ${statusWrites.length} status flips (${statusWrites.filter((m) => ok(m.res)).length} 2xx)`);
    log(`    504s whose change landed: ${landedSaidNone + landedAfterAnswer + landedSaidCommitted} (answer said commit none ${landedSaidNone}, in-progress ${landedAfterAnswer}, committed ${landedSaidCommitted}; assignee changes ${landedAfter.none + landedAfter.committed + landedAfter["in-progress"] + landedAfter.unsaid}, status flips ${statusLandedAfterTimeout}); other non-2xx whose change landed: ${JSON.stringify(landedWithout2xx)}${statusLandedOther ? `, status flips ${statusLandedOther}` : ""}`);
    log(`    audit: ${events.length} events in the export since the overload began; 2xx writes without their event: ${lostAudit} (assignee ${lost.length}, status ${statusLost}); lag (assignee writes) p50 ${fmt(lag.p50)} ms, p99 ${fmt(lag.p99)} ms, max ${fmt(maxLag)} ms (from the event's timeGenerated: p50 ${fmt(sinceGenerated.p50)} ms, p99 ${fmt(sinceGenerated.p99)} ms); export polls ${audit.polls}, not 200: ${audit.failed}`);
    log(`    health: ${healthAnswers.length} polls, not 200: ${healthNot200.length}; ${Object.entries(healthStates).map(([k, n]) => `${k} ${n}`).join(", ")}; p50 ${fmt(healthLat.p50)} ms, p99 ${fmt(healthLat.p99)} ms`);
    if (lost.length > 0) notes.push(`2xx assignee changes without an audit event, e.g. ${lost.slice(0, 3).map((m) => m.marker).join(", ")}`);
    for (const note of notes) log(`  note: ${note}`);

    return {
      setup: { deadlineMs, maxConcurrentRequests: maxInFlight, seconds, mix: MIX },
      capacity: { steps, before: capacityBefore, after: again, checks, capacity, workers: best.workers },
      overload: {
        offered,
        seconds: phaseSeconds,
        answers: results.length,
        notSent,
        segments: segmentRuns,
        byStatus,
        goodput,
        admittedLatencyMs: admittedLat,
        slowestMs: slowest,
        late: late.length,
        pastDeadline,
        shed: shed.length,
        shedWithRetryAfter,
        timeouts: timeouts.length,
        timeoutCommits,
        landedAfterTimeout: { assignee: landedAfter, status: statusLandedAfter },
        landedWithout2xx,
      },
      audit: { events: events.length, lost: lostAudit, lagMs: { ...lag, max: maxLag }, sinceGeneratedMs: sinceGenerated, polls: audit.polls, failedPolls: audit.failed },
      health: { polls: healthAnswers.length, not200: healthNot200.length, states: healthStates, latencyMs: healthLat },
      notes,
      problems,
      checks: [
        { name: "goodput (2xx within the deadline, per s) / capacity, offered 2x capacity", value: goodput / capacity, target: `>= ${GOODPUT_SHARE_TARGET}`, pass: goodput / capacity >= GOODPUT_SHARE_TARGET },
        { name: `answers later than the deadline (${deadlineMs} ms, client-side, ${LATE_TOLERANCE_MS} ms allowed for the way)`, value: late.length, target: "= 0", pass: late.length === 0 },
        { name: "writes answered 504 saying commit none whose change landed", value: landedSaidNone, target: "= 0", pass: landedSaidNone === 0 },
        { name: "writes answered 504 whose change committed after the answer (commit in-progress)", value: landedAfterAnswer, target: "= 0", pass: landedAfterAnswer === 0 },
        { name: "shed answers (429) without Retry-After", value: shed.length - shedWithRetryAfter, target: "= 0", pass: shed.length === shedWithRetryAfter },
        { name: "health polls not answered 200", value: healthNot200.length, target: "= 0", pass: healthNot200.length === 0 && healthAnswers.length > 0 },
        { name: "2xx writes without their audit event", value: lostAudit, target: "= 0", pass: lostAudit === 0 },
        { name: "slowest audit lag, write answered -> in the export (ms)", value: maxLag, target: `<= ${AUDIT_LAG_TARGET_MS}`, pass: maxLag <= AUDIT_LAG_TARGET_MS },
      ],
    };
  } finally {
    await health?.stop();
    await poller?.stop();
    await load?.close();
    for (const s of started) await s.stop();
  }
}

const ok = (r) => r.status >= 200 && r.status < 300;

/** GET /health once a second on a connection of its own until stopped; resolves with every answer. */
function pollHealth(api) {
  const agent = new Agent({ connections: 1 });
  const answers = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const sentAt = performance.now();
      try {
        const res = await request(`${api.baseUrl}/health`, { dispatcher: agent, headersTimeout: 30_000, bodyTimeout: 30_000 });
        const text = await res.body.text();
        let state;
        try {
          state = JSON.parse(text)?.data?.status;
        } catch {
          // not JSON: the status says it
        }
        answers.push({ status: res.statusCode, ms: performance.now() - sentAt, state });
      } catch (err) {
        answers.push({ status: 0, ms: performance.now() - sentAt, error: err?.code ?? err?.message });
      }
      await sleep(Math.max(0, 1_000 - (performance.now() - sentAt)));
    }
  })();
  let stopped;
  return {
    stop: () =>
      (stopped ??= (async () => {
        running = false;
        await loop;
        await agent.close().catch(() => {});
        return answers;
      })()),
  };
}

/**
 * The audit export of each workspace, polled once a second from its last token (as a consumer does),
 * every event noted with when it first showed. `settle(markers, quietMs, maxMs)` waits until every
 * marker's assignee event has shown, or nothing new has shown for `quietMs`.
 */
function pollAudit(api, workspaceIds, authHeaders) {
  const agent = new Agent({ connections: workspaceIds.length });
  const tokens = new Map();
  const events = [];
  const markers = new Set();
  let polls = 0;
  let failed = 0;
  let lastNewAt = performance.now();
  let running = true;
  const readWorkspace = async (workspaceId) => {
    for (;;) {
      const token = tokens.get(workspaceId);
      const url = `${api.baseUrl}/workspaces/${workspaceId}/export/audit?pageSize=1000${token ? `&pageToken=${encodeURIComponent(token)}` : ""}`;
      polls++;
      let page;
      try {
        const res = await request(url, { dispatcher: agent, headers: authHeaders, headersTimeout: 30_000, bodyTimeout: 30_000 });
        const text = await res.body.text();
        if (res.statusCode !== 200) {
          failed++;
          return;
        }
        page = JSON.parse(text);
      } catch {
        failed++;
        return;
      }
      const seenAt = performance.now();
      for (const e of page.value) {
        let metadata = {};
        try {
          metadata = JSON.parse(e.metadata);
        } catch {
          // not JSON: nothing to match on
        }
        const event = { id: e.id, seenAt, timeGenerated: e.timeGenerated, workspaceId: e.workspaceId, activityType: e.activityType, targetResourceId: e.targetResourceId, status: metadata.status, assigneeEmail: metadata.assigneeEmail };
        events.push(event);
        if (event.assigneeEmail) markers.add(event.assigneeEmail);
        lastNewAt = seenAt;
      }
      tokens.set(workspaceId, page.nextPageToken);
      if (page.value.length < 1000) return;
    }
  };
  const loop = (async () => {
    while (running) {
      const began = performance.now();
      await Promise.all(workspaceIds.map(readWorkspace));
      await sleep(Math.max(0, 1_000 - (performance.now() - began)));
    }
  })();
  let stopped;
  return {
    async settle(wanted, quietMs, maxMs) {
      const began = performance.now();
      while (performance.now() - began < maxMs) {
        if (wanted.every((m) => markers.has(m))) return;
        if (performance.now() - lastNewAt > quietMs) return;
        await sleep(500);
      }
    },
    stop: () =>
      (stopped ??= (async () => {
        running = false;
        await loop;
        await agent.close().catch(() => {});
        return { events, polls, failed };
      })()),
  };
}

const fmt = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : "?");
