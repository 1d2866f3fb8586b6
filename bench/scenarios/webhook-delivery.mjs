// End-to-end webhook delivery: status changes through the API to a verified delivery at a local
// HTTPS receiver, against raw undici POSTs of the same signed body to the same receiver.

import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { rootCertificates } from "node:tls";
import { pathToFileURL } from "node:url";
import { Agent, request } from "undici";
import { apiJson, openIncidents, ROOT, startApiHost } from "../api-host.mjs";
import { childEnv, describeExit, inParallel, median, p50p99, processCpuMs, processMemoryMb, startIpcChild } from "../lib.mjs";

const HTTPS_RECEIVER = path.join(ROOT, "bench/https-receiver.mjs");
const SIGNER = path.join(ROOT, "dist/shared/platform/delivery/signer.js");

/** Wall-clock milliseconds with sub-millisecond precision; the receiver stamps arrivals the same way. */
const wallNow = () => performance.timeOrigin + performance.now();

/**
 * After the senders are done: waits until the receiver has seen `expected` requests (verified or
 * not), or until its count has not moved for `stallMs` (stragglers get that long), then collects.
 */
async function settleReceiver(receiver, expected, stallMs, hostExited) {
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const c = await receiver.call({ op: "count" });
    const seen = c.verified + c.failed;
    if (seen >= expected || hostExited()) break;
    if (seen !== last) {
      last = seen;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > stallMs) {
      break;
    }
    await sleep(20);
  }
}

/**
 * Issue requirement: events/s from a status change to a verified delivery at a local receiver, and
 * first-attempt p50/p99 latency, side by side with raw undici POSTs of the same signed body to the
 * same receiver in the same run. Targets: e2e events/s >= 0.35 x raw POSTs/s, and the API host's CPU
 * per delivered event <= 0.30 ms (its /proc CPU time over a round / the events of the round).
 *
 * - Receiver: bench/https-receiver.mjs in its own process (self-signed certificate made at start;
 *   it verifies both signature schemes of every request, answers 200, stamps each event's arrival).
 * - API host: WEBHOOK_ALLOW_PRIVATE_TARGETS=true so https://127.0.0.1:<port> is accepted, and
 *   NODE_EXTRA_CA_CERTS=<the receiver's certificate>, so the sender trusts it the standard way.
 * - e2e round: `settings.connections` PUT .../status calls in flight, each flipping one open
 *   incident New <-> Active (every incident has at most one PUT in flight, so every 204 is exactly
 *   one incident.status.changed.v1), until BENCH_WEBHOOK_EVENTS events; then waits for them all.
 *   events/s = verified deliveries / (last verified arrival - first PUT sent).
 *   Latency of an event = its verified arrival - when its PUT was sent ("issue -> verified"); the
 *   JSON also has arrival - 204 received, and arrival - the event's occurredAt.
 * - raw round: the same number of POSTs, same concurrency, from this process with undici (an Agent
 *   trusting the certificate, as the service's sender does), of a delivery body captured in the
 *   warm-up with a fresh event id each, signed per request with the service's own signer (both
 *   schemes, current timestamp), reading the response like the sender. Same two figures, same way.
 * Rounds alternate and flip order each round, like compareTargets (service-account-read.mjs). Every
 * delivery counted is a first attempt: a retry would come WEBHOOK_RETRY_BACKOFF_MS (30 s) later, long
 * after the 5 s straggler wait, and would show up as a missing event. After the rounds, both paths run
 * once more with one request in flight (not part of the check), which shows the latency without queueing.
 *
 * Broken run (problems): a PUT that is not 204, any request failing verification, an event missing
 * at the receiver (or one nobody sent), a child process exiting. Duplicates are only noted.
 */
export async function webhookDelivery({ log, settings }) {
  const TARGET_RATIO = 0.35;
  // API-host CPU per delivered event: the PUT, the commit, the relay, the fan-out, signing and sending.
  const TARGET_HOST_CPU_MS = 0.3;
  const EVENTS = settings.webhookEvents;
  const WARMUP_BATCH = Math.max(200, Math.round(EVENTS / 5));
  const CONCURRENCY = settings.connections;
  const STALL_MS = 5_000;
  const UNLOADED_EVENTS = 200;
  const POOL = 1_000;
  const problems = [];
  const notes = [];
  const started = [];
  let tmpDir;
  const agents = [];
  try {
    if (!existsSync(SIGNER)) throw new Error(`${path.relative(ROOT, SIGNER)} does not exist; run \`npm run build\`.`);
    const { signatureHeaders, signingKeyOf } = await import(pathToFileURL(SIGNER).href);

    const receiver = await startIpcChild({ name: "https receiver", script: HTTPS_RECEIVER, cwd: ROOT, env: childEnv({}) });
    started.push(receiver);
    const cert = receiver.ready.cert;
    tmpDir = await mkdtemp(path.join(os.tmpdir(), "bench-receiver-"));
    const certPath = path.join(tmpDir, "receiver-cert.pem");
    await writeFile(certPath, cert);
    const hookUrl = `https://127.0.0.1:${receiver.ready.port}/hook`;

    const api = await startApiHost({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", NODE_EXTRA_CA_CERTS: certPath } });
    started.push(api.server);

    const created = await apiJson(api, "POST", "/webhooks", {
      name: "bench receiver",
      url: hookUrl,
      eventTypes: ["incident.status.changed.v1"],
      authenticationType: "None",
    });
    const webhookId = created.data.id;
    const secret = created.data.signingSecret;
    if (typeof secret !== "string") throw new Error(`webhook creation returned no signingSecret: ${JSON.stringify(created).slice(0, 300)}`);
    await receiver.call({ op: "configure", secret });

    const pool = await openIncidents(api, POOL);
    if (pool.incidents.length < CONCURRENCY) throw new Error(`only ${pool.incidents.length} open SourceA/SourceB incidents found; need at least ${CONCURRENCY}`);
    log(`  receiver ${hookUrl} (own process); webhook ${webhookId}; ${pool.incidents.length} open SourceA/SourceB incidents in ${pool.workspaces} workspaces, flipped New <-> Active`);
    // Each worker owns every CONCURRENCY-th incident, so no incident ever has two PUTs in flight.
    const owned = Array.from({ length: CONCURRENCY }, (_, w) => pool.incidents.filter((_, j) => j % CONCURRENCY === w));
    const cursor = new Array(CONCURRENCY).fill(0);

    const apiAgent = new Agent();
    // As the service's sender does with an extra CA: Node's roots plus the receiver's certificate.
    const rawAgent = new Agent({ connect: { ca: [...rootCertificates, cert] } });
    agents.push(apiAgent, rawAgent);
    const putHeaders = { ...api.authHeaders, "Content-Type": "application/json" };
    const hostExited = () => Boolean(api.server.exited() || receiver.exited());

    const checkAlive = (phase) => {
      for (const s of [api.server, receiver]) {
        const exit = s.exited();
        if (exit) problems.push(`${s.name} exited during ${phase} (${describeExit(exit)})\n${s.output()}`);
      }
    };

    let template = null; // the captured delivery: body split around its event id, headers, type

    /** CPU ms used by the API host, the receiver and this process (the client) from here to stop(). */
    async function cpuMeter() {
      const read = async () => ({
        host: await processCpuMs(api.server.child.pid),
        receiver: await processCpuMs(receiver.child.pid),
        bench: ((u) => (u.user + u.system) / 1000)(process.cpuUsage()),
      });
      const before = await read();
      return async (events) => {
        const after = await read();
        const perEvent = {};
        for (const k of Object.keys(after)) perEvent[k] = after[k] === null || before[k] === null ? NaN : (after[k] - before[k]) / events;
        return perEvent;
      };
    }

    async function e2eRound(count, phase, concurrency = CONCURRENCY) {
      await receiver.call({ op: "reset" });
      const puts = [];
      const failures = [];
      const cpu = await cpuMeter();
      const t0 = wallNow();
      await inParallel(count, concurrency, async (_i, w) => {
        const inc = owned[w][cursor[w]++ % owned[w].length];
        const to = inc.status === "Active" ? "New" : "Active";
        const sent = wallNow();
        try {
          const res = await request(`${api.baseUrl}/workspaces/${inc.workspaceId}/incidents/${inc.source}/${inc.id}/status`, {
            dispatcher: apiAgent,
            method: "PUT",
            headers: putHeaders,
            body: JSON.stringify({ status: to }),
          });
          const text = await res.body.text();
          const done = wallNow();
          if (res.statusCode !== 204) {
            failures.push(`HTTP ${res.statusCode} ${text.slice(0, 200)}`);
            return;
          }
          puts.push({ key: inc.key, from: inc.status, to, sent, done });
          inc.status = to;
        } catch (err) {
          failures.push(err.message);
        }
      });
      const putsDone = wallNow();
      await settleReceiver(receiver, puts.length, STALL_MS, hostExited);
      const cpuMsPerEvent = await cpu(Math.max(1, puts.length));
      const got = await receiver.call({ op: "collect", withBodies: true });
      checkAlive(phase);

      // Pair each event with its PUT: per incident, the k-th PUT (from -> to) with the earliest
      // unclaimed event of the same transition. Statuses alternate, so the pairing is exact.
      const eventsByKey = new Map();
      for (const e of got.events) {
        if (!eventsByKey.has(e.key)) eventsByKey.set(e.key, []);
        eventsByKey.get(e.key).push(e);
      }
      for (const list of eventsByKey.values()) list.sort((a, b) => Date.parse(a.occurredAt) - Date.parse(b.occurredAt) || a.t - b.t);
      const fromIssue = [];
      const fromResponse = [];
      const fromOccurred = [];
      let unmatchedPuts = 0;
      for (const put of puts) {
        const list = eventsByKey.get(put.key) ?? [];
        const at = list.findIndex((e) => !e.claimed && e.previousStatus === put.from && e.status === put.to);
        if (at === -1) {
          unmatchedPuts++;
          continue;
        }
        const e = list[at];
        e.claimed = true;
        fromIssue.push(e.t - put.sent);
        fromResponse.push(e.t - put.done);
        fromOccurred.push(e.t - Date.parse(e.occurredAt));
      }
      const stray = got.events.filter((e) => !e.claimed).length;
      const wrong = got.events.filter((e) => e.type !== "incident.status.changed.v1" || e.bodyId !== e.id).length;
      const lastArrival = got.events.reduce((m, e) => Math.max(m, e.t), -Infinity);
      const issue = p50p99(fromIssue);
      const rtt = p50p99(puts.map((p) => p.done - p.sent));

      const roundProblems = [];
      if (failures.length) roundProblems.push(`${failures.length} status PUTs failed, e.g. ${failures.slice(0, 3).join(" | ")}`);
      if (got.failed) roundProblems.push(`${got.failed} deliveries failed verification, e.g. ${JSON.stringify(got.failures.slice(0, 3))}`);
      const missing = puts.length - (got.verified - stray);
      if (missing > 0 || unmatchedPuts > 0) {
        let detail;
        try {
          const logs = await apiJson(api, "GET", `/webhooks/${webhookId}/delivery-logs?pageSize=100`);
          const failed = logs.data.filter((l) => l.status !== "Succeeded");
          detail = `; delivery log (newest 100): ${failed.length} not Succeeded, e.g. ${JSON.stringify(failed.slice(0, 2).map((l) => ({ status: l.status, httpStatusCode: l.httpStatusCode, error: l.error })))}`;
        } catch (err) {
          detail = `; delivery log unreadable: ${err.message}`;
        }
        roundProblems.push(`${puts.length} events emitted (204s), ${got.verified} verified at the receiver, ${unmatchedPuts} status changes without their event after waiting ${STALL_MS / 1000} s for stragglers${detail}`);
      }
      if (stray) roundProblems.push(`${stray} verified events match no status change of this round`);
      if (wrong) roundProblems.push(`${wrong} events of the wrong type or with a body id differing from webhook-id`);
      if (got.parseErrors) roundProblems.push(`${got.parseErrors} delivered bodies are not JSON`);
      if (got.duplicates) notes.push(`${phase}: ${got.duplicates} duplicate deliveries (same event id again)`);
      for (const p of roundProblems) problems.push(`e2e ${phase}: ${p}`);

      if (!template && got.sample) {
        const body = got.sample.body;
        const id = JSON.parse(body).id;
        const at = body.indexOf(id);
        if (at === -1 || body.indexOf(id, at + 1) !== -1) throw new Error("cannot split the captured delivery body around its event id");
        const headerOf = (name) => Object.entries(got.sample.headers).find(([k]) => k.toLowerCase() === name)?.[1];
        template = {
          before: body.slice(0, at),
          after: body.slice(at + id.length),
          bytes: Buffer.byteLength(body),
          eventType: headerOf("x-svc-event-type"),
          userAgent: headerOf("user-agent"),
          contentType: headerOf("content-type"),
          headerNames: Object.keys(got.sample.headers).map((k) => k.toLowerCase()).sort(),
        };
      }

      const spanS = (lastArrival - t0) / 1000;
      return {
        rps: got.verified > 0 ? (got.verified - stray) / spanS : 0,
        p50: issue.p50,
        p99: issue.p99,
        clientP50: rtt.p50,
        clientP99: rtt.p99,
        events: puts.length,
        verified: got.verified,
        failedVerification: got.failed,
        duplicates: got.duplicates,
        spanS,
        putsPerS: puts.length / ((putsDone - t0) / 1000),
        drainMsAfterLastPut: lastArrival - putsDone,
        afterResponseMs: p50p99(fromResponse),
        afterOccurredAtMs: p50p99(fromOccurred),
        // Whether a backlog builds up over the round: the latency p50 of its first and last tenth.
        p50FirstTenth: p50p99(fromIssue.slice(0, Math.ceil(fromIssue.length / 10))).p50,
        p50LastTenth: p50p99(fromIssue.slice(-Math.ceil(fromIssue.length / 10))).p50,
        cpuMsPerEvent,
        problems: roundProblems.length,
      };
    }

    async function rawRound(count, phase, concurrency = CONCURRENCY) {
      await receiver.call({ op: "reset" });
      const key = signingKeyOf(secret);
      const sent = new Map();
      const failures = [];
      const cpu = await cpuMeter();
      const t0 = wallNow();
      await inParallel(count, concurrency, async () => {
        const start = wallNow();
        const id = randomUUID();
        const body = template.before + id + template.after;
        const headers = {
          "Content-Type": template.contentType,
          "User-Agent": template.userAgent,
          ...signatureHeaders({ eventId: id, eventType: template.eventType, timestamp: Math.floor(Date.now() / 1000), body, keys: [key] }),
        };
        try {
          const res = await request(hookUrl, { dispatcher: rawAgent, method: "POST", headers, body });
          // Read the response as the service's sender does.
          for await (const _chunk of res.body);
          const done = wallNow();
          if (res.statusCode !== 200) failures.push(`HTTP ${res.statusCode}`);
          sent.set(id, { start, done });
        } catch (err) {
          failures.push(err.message);
        }
      });
      const sendsDone = wallNow();
      await settleReceiver(receiver, count, STALL_MS, hostExited);
      const cpuMsPerEvent = await cpu(count);
      const got = await receiver.call({ op: "collect", withBodies: false });
      checkAlive(phase);
      const fromIssue = [];
      let stray = 0;
      let lastArrival = -Infinity;
      for (const e of got.events) {
        const s = sent.get(e.id);
        if (!s) {
          stray++;
          continue;
        }
        fromIssue.push(e.t - s.start);
        lastArrival = Math.max(lastArrival, e.t);
      }
      const issue = p50p99(fromIssue);
      const rtt = p50p99([...sent.values()].map((s) => s.done - s.start));
      const roundProblems = [];
      if (failures.length) roundProblems.push(`${failures.length} POSTs failed, e.g. ${failures.slice(0, 3).join(" | ")}`);
      if (got.failed) roundProblems.push(`${got.failed} POSTs failed verification, e.g. ${JSON.stringify(got.failures.slice(0, 3))}`);
      if (fromIssue.length < count) roundProblems.push(`${count} POSTs sent, ${fromIssue.length} verified at the receiver`);
      if (stray) roundProblems.push(`${stray} verified requests the raw client did not send`);
      for (const p of roundProblems) problems.push(`raw ${phase}: ${p}`);
      const spanS = (lastArrival - t0) / 1000;
      return {
        rps: fromIssue.length / spanS,
        p50: issue.p50,
        p99: issue.p99,
        clientP50: rtt.p50,
        clientP99: rtt.p99,
        events: count,
        verified: got.verified,
        failedVerification: got.failed,
        duplicates: got.duplicates,
        spanS,
        clientRps: sent.size / ((sendsDone - t0) / 1000),
        cpuMsPerEvent,
        problems: roundProblems.length,
      };
    }

    const targets = [
      { label: "raw undici POST", measure: rawRound },
      { label: "e2e PUT->verified", measure: e2eRound },
    ];
    const line = (label, r) =>
      `${label.padEnd(18)} ${r.rps.toFixed(0).padStart(6)} ev/s  issue->verified p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms` +
      `  (client round trip p50 ${r.clientP50.toFixed(2)} ms${r.drainMsAfterLastPut === undefined ? "" : `; drain after last PUT ${Math.round(r.drainMsAfterLastPut)} ms`})`;

    // Warm-up: batches of each path until BENCH_WARMUP_S has passed for it (a first measured round
    // after a single short batch still ran at half speed: JIT, TLS sessions, heap sizing). e2e goes
    // first: its first batch also captures the delivery body the raw POSTs replay. With
    // BENCH_WARMUP_S=0 only a small capture batch runs.
    const warmUp = async (label, measure) => {
      const until = performance.now() + settings.warmupS * 1000;
      let batches = 0;
      let events = 0;
      let last;
      do {
        last = await measure(WARMUP_BATCH, "warm-up");
        batches++;
        events += last.events;
      } while (performance.now() < until && problems.length === 0);
      log(`  warm-up  ${line(label, last)}  [${batches} batches, ${events} events; last batch shown]`);
      return events;
    };
    const warmupEvents = { e2e: 0, raw: 0 };
    if (settings.warmupS > 0) {
      warmupEvents.e2e = await warmUp("e2e", e2eRound);
    } else {
      log(`  capture  ${line("e2e", await e2eRound(Math.min(EVENTS, 50), "capture"))}`);
    }
    if (!template) throw new Error(`no verified delivery to capture in the warm-up${problems.length ? `: ${problems.join("; ")}` : ""}`);
    log(`  captured delivery: ${template.bytes} bytes, ${template.contentType}, ${template.eventType}, headers ${template.headerNames.join(" ")}`);
    if (settings.warmupS > 0 && problems.length === 0) warmupEvents.raw = await warmUp("raw", rawRound);

    const rounds = new Map(targets.map((t) => [t, []]));
    for (let i = 0; i < settings.rounds && problems.length === 0; i++) {
      const order = i % 2 === 0 ? targets : [...targets].reverse();
      for (const t of order) {
        const r = await t.measure(EVENTS, `round ${i + 1}`);
        rounds.get(t).push(r);
        log(`  round ${i + 1}/${settings.rounds}  ${line(t.label, r)}`);
      }
    }
    if (targets.some((t) => rounds.get(t).length === 0)) return { checks: [], notes, problems };

    // Not part of the check: the same two paths with one request in flight, where nothing queues,
    // to tell the pipeline's own latency from the queueing of the loaded rounds.
    const unloaded = {};
    if (problems.length === 0) {
      unloaded.raw = await rawRound(UNLOADED_EVENTS, "1 in flight", 1);
      unloaded.e2e = await e2eRound(UNLOADED_EVENTS, "1 in flight", 1);
      log(`  1 in flight ${line("raw undici POST", unloaded.raw)}`);
      log(`  1 in flight ${line("e2e PUT->verified", unloaded.e2e)}`);
    }

    const rows = targets.map((t) => {
      const rs = rounds.get(t);
      return {
        label: t.label,
        rps: median(rs.map((r) => r.rps)),
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
        clientP50: median(rs.map((r) => r.clientP50)),
        clientP99: median(rs.map((r) => r.clientP99)),
        rounds: rs,
      };
    });
    const [raw, e2e] = rows;
    const ratio = e2e.rps / raw.rps;
    const roundRatios = e2e.rounds.map((r, i) => r.rps / raw.rounds[i]?.rps);

    const header = ["target", "events/s", "p50 ms", "p99 ms", "client p50", "client p99", "events/s per round"];
    const body = rows.map((r) => [
      r.label,
      r.rps.toFixed(0),
      r.p50.toFixed(2),
      r.p99.toFixed(2),
      r.clientP50.toFixed(2),
      r.clientP99.toFixed(2),
      r.rounds.map((x) => x.rps.toFixed(0)).join(" / "),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
    const fmtRow = (cells) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ").trimEnd();
    const fmt = (x) => x.toFixed(2);
    const e2eMed = (f) => median(e2e.rounds.map(f));
    log("");
    log(`  ${fmtRow(header)}`);
    log(`  ${widths.map((w) => "-".repeat(w)).join("  ")}`);
    for (const row of body) log(`  ${fmtRow(row)}`);
    log("");
    log(`  ${EVENTS} events per round, ${CONCURRENCY} in flight. p50/p99: from sending the PUT (raw: the POST) to the receiver having verified it;`);
    log(`  client p50/p99: round trip of the PUT until its 204 (raw: of the POST until its 200).`);
    log(
      `  e2e breakdown (medians of rounds): arrival after the 204 p50 ${fmt(e2eMed((r) => r.afterResponseMs.p50))} ms p99 ${fmt(e2eMed((r) => r.afterResponseMs.p99))} ms; ` +
        `after occurredAt (ms clock) p50 ${fmt(e2eMed((r) => r.afterOccurredAtMs.p50))} ms p99 ${fmt(e2eMed((r) => r.afterOccurredAtMs.p99))} ms; ` +
        `PUTs ${e2eMed((r) => r.putsPerS).toFixed(0)}/s; last delivery ${e2eMed((r) => r.drainMsAfterLastPut).toFixed(0)} ms after the last 204; ` +
        `latency p50 of the first / last tenth of a round ${fmt(e2eMed((r) => r.p50FirstTenth))} / ${fmt(e2eMed((r) => r.p50LastTenth))} ms`,
    );
    for (const r of rows) {
      const c = (k) => median(r.rounds.map((x) => x.cpuMsPerEvent[k])).toFixed(3);
      log(`  CPU ms per event, ${r.label}: API host ${c("host")}, receiver ${c("receiver")}, bench client ${c("bench")} (medians of rounds; ${os.cpus().length} cpus)`);
    }
    if (unloaded.e2e) {
      const u = unloaded.e2e;
      log(
        `  1 in flight (${UNLOADED_EVENTS} each): raw issue->verified p50 ${fmt(unloaded.raw.p50)} ms p99 ${fmt(unloaded.raw.p99)} ms; ` +
          `e2e p50 ${fmt(u.p50)} ms p99 ${fmt(u.p99)} ms (PUT round trip p50 ${fmt(u.clientP50)} ms; arrival after the 204 p50 ${fmt(u.afterResponseMs.p50)} ms p99 ${fmt(u.afterResponseMs.p99)} ms)`,
      );
    }
    const hostCpuPerEvent = median(e2e.rounds.map((r) => r.cpuMsPerEvent.host));
    log(`  e2e / raw events/s = ${ratio.toFixed(3)} (medians); per round ${roundRatios.map((x) => x.toFixed(3)).join(", ")}, median ${median(roundRatios).toFixed(3)}`);
    const hostMemory = await processMemoryMb(api.server.child.pid);
    return {
      rows,
      checks: [
        { name: "e2e events/s / raw POSTs/s", value: ratio, target: `>= ${TARGET_RATIO}`, pass: ratio >= TARGET_RATIO, perRound: roundRatios, medianPerRound: median(roundRatios) },
        { name: "API-host CPU per delivered event (ms, median of rounds)", value: hostCpuPerEvent, target: `<= ${TARGET_HOST_CPU_MS}`, pass: hostCpuPerEvent <= TARGET_HOST_CPU_MS, perRound: e2e.rounds.map((r) => r.cpuMsPerEvent.host) },
      ],
      notes,
      problems,
      unloaded,
      setup: {
        eventsPerRound: EVENTS,
        warmupEvents,
        concurrency: CONCURRENCY,
        incidents: pool.incidents.length,
        workspaces: pool.workspaces,
        receiver: "own child process (bench/https-receiver.mjs), verifies X-Svc-Signature and webhook-signature",
        latency: "receiver's verified arrival minus the moment the PUT (raw: POST) was sent; cross-process wall clock",
        delivery: { bytes: template.bytes, contentType: template.contentType, eventType: template.eventType, headerNames: template.headerNames },
        hostMemory,
      },
    };
  } finally {
    await Promise.all(agents.map((a) => a.close().catch(() => {})));
    await Promise.all(started.map((s) => s.stop()));
    if (tmpDir) await rm(tmpDir, { recursive: true, force: true });
  }
}
