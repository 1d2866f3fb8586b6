// A multipart flood: an upload's body of 10 MiB of empty parts sent to the SOP upload route, again and
// again, while /health is asked every 5 ms. Is the body refused at once, and does the service go on
// answering meanwhile (D-210)?

import { Agent, request } from "undici";
import { setTimeout as sleep } from "node:timers/promises";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { apiJson, signInPerson, startApiHost } from "../api-host.mjs";
import { describeExit, numberFromEnv, percentile, processCpuMs } from "../lib.mjs";

/** The route's file limit (`SOP_MAX_BYTES`, 10 MiB by default); the route takes 64 KiB more for the form. */
const FLOOD_BYTES = 10 * 1024 * 1024;
const EMPTY_PART = '--b\r\nContent-Disposition: form-data; name="x"\r\n\r\n\r\n';
const HEALTH_EVERY_MS = 5;
const TARGET_HEALTH_MS = 50;
/** The bodies sent one at a time after the flood, each after a pause. */
const SINGLE_ATTACKS = 20;
const SINGLE_PAUSE_MS = 250;

/**
 * - Host: the default demo, RECONCILE_INTERVAL_MS=0, so the host does nothing but answer.
 * - Attacker: Amira (Admin of the provider, signed in through the local identity provider), who may
 *   upload to any of its workspaces, so the body reaches the parser: POST
 *   /portal/workspaces/{workspaceId}/sops with `multipart/form-data; boundary=b` and 10 MiB of empty
 *   parts (about 190,000), one attack after another for BENCH_FLOOD_S seconds (default 3; at least
 *   three attacks).
 * - /health: GET /api/v2/health every 5 ms on a connection of its own, over a quiet period of the
 *   same length just before the flood (the peer, in the same run) and during the flood.
 *
 * - Then one body at a time: 20 bodies, each after a 250 ms pause, /health judged by the polls sent
 *   while a body was in flight (one upload, as an administrator makes one, rather than a stream of them).
 *
 * Checks: /health's p99 and slowest answer during the flood, and its slowest while one body is sent,
 * under 50 ms. Reported beside: each
 * attack's status, answer size and time (sending the 10 MiB included), the quiet period's figures,
 * and the host's CPU over each period.
 * Broken run: an attack not answered 400 BAD_REQUEST saying the part limit, a /health answer not
 * 200, or a host that exited.
 */
export async function multipartFlood({ log }) {
  const seconds = numberFromEnv("BENCH_FLOOD_S", 3);
  const problems = [];
  const api = await startApiHost({ env: { RECONCILE_INTERVAL_MS: "0" } });
  const agent = new Agent({ connections: 1 });
  try {
    const account = await apiJson(api, "GET", `/service-accounts/${api.clientId}`);
    const workspaceId = account.data.workspaceAssignments[0].workspaceId;
    const amira = await signInPerson(api, "amira");
    const parts = Math.floor(FLOOD_BYTES / EMPTY_PART.length);
    const flood = Buffer.from(EMPTY_PART.repeat(parts) + "--b--\r\n");
    log(`  attack body: ${flood.length} bytes, ${parts} empty parts, to POST /portal/workspaces/${workspaceId}/sops as Amira (Admin)`);

    // The host's CPU over each phase (user + system, from /proc): how much of the flood's time is its work.
    const attackOnce = async () => {
      const sentAt = performance.now();
      const res = await request(`${api.baseUrl}/portal/workspaces/${workspaceId}/sops`, {
        method: "POST",
        dispatcher: agent,
        headers: { cookie: amira.cookie, "x-csrf-token": amira.csrfToken, "content-type": "multipart/form-data; boundary=b" },
        body: flood,
      });
      const text = await res.body.text();
      const ms = performance.now() - sentAt;
      return { status: res.statusCode, bytes: Buffer.byteLength(text), ms, from: performance.timeOrigin + sentAt, until: performance.timeOrigin + sentAt + ms, text };
    };
    const pid = api.server.child.pid;
    const cpu0 = await processCpuMs(pid);
    const quiet = await pollHealth(api, seconds * 1000, () => sleep(seconds * 1000));
    const cpu1 = await processCpuMs(pid);
    const attacks = [];
    const during = await pollHealth(api, seconds * 1000, async (until) => {
      while (attacks.length < 3 || performance.now() < until) {
        const attack = await attackOnce();
        attacks.push(attack);
        log(`  attack ${attacks.length}: HTTP ${attack.status}, ${attack.bytes} bytes, ${attack.ms.toFixed(0)} ms`);
      }
    });

    const cpu2 = await processCpuMs(pid);
    const hostCpuMs = { quiet: cpu1 - cpu0, flood: cpu2 - cpu1 };

    // One body at a time, as one upload is: each sent after a pause, /health judged by the polls
    // sent while it was in flight.
    const singles = [];
    const singlePolls = await pollHealth(api, 0, async () => {
      for (let i = 0; i < SINGLE_ATTACKS; i++) {
        await sleep(SINGLE_PAUSE_MS);
        singles.push(await attackOnce());
      }
    });
    const duringOne = singlePolls.filter((p) => singles.some((a) => p.at >= a.from && p.at < a.until));
    for (const a of [...attacks, ...singles]) {
      let code;
      try {
        code = JSON.parse(a.text).code;
      } catch {
        // not a problem document: the status says what it was
      }
      if (a.status !== 400 || code !== "BAD_REQUEST" || !a.text.includes("at most 8 parts")) problems.push(`an attack was answered ${a.status}: ${a.text.slice(0, 300)}`);
    }
    for (const [phase, polls] of [["quiet", quiet], ["flood", during], ["one body at a time", singlePolls]]) {
      const not200 = polls.filter((p) => p.status !== 200);
      if (not200.length > 0) problems.push(`${not200.length} /health polls (${phase}) not answered 200, e.g. ${not200[0].status} ${not200[0].error ?? ""}`);
    }
    const exit = api.server.exited();
    if (exit) problems.push(`api host exited (${describeExit(exit)})\n${api.server.output()}`);

    const quietStats = stats(quiet);
    const floodStats = stats(during);
    const attackMs = attacks.map((a) => a.ms).sort((a, b) => a - b);
    log(`  attacks: ${attacks.length}, status ${[...new Set(attacks.map((a) => a.status))].join(", ")}, answer ${attacks[0]?.bytes} bytes, time min ${attackMs[0]?.toFixed(0)} / median ${percentile(Float64Array.from(attackMs), 50).toFixed(0)} / max ${attackMs.at(-1)?.toFixed(0)} ms`);
    log(`  host CPU: ${hostCpuMs.quiet.toFixed(0)} ms over the quiet period, ${hostCpuMs.flood.toFixed(0)} ms over the flood (${(hostCpuMs.flood / Math.max(attacks.length, 1)).toFixed(1)} ms an attack, /health's share included)`);
    log(`  /health, quiet ${seconds} s before: ${format(quietStats)}`);
    log(`  /health, during the flood (${seconds} s): ${format(floodStats)}`);
    const oneStats = stats(duringOne);
    log(`  /health, while one body at a time was sent (${SINGLE_ATTACKS} bodies, ${SINGLE_PAUSE_MS} ms apart): ${format(oneStats)}`);
    return {
      setup: { seconds, floodBytes: flood.length, parts, healthEveryMs: HEALTH_EVERY_MS },
      attacks: attacks.map(({ status, bytes, ms }) => ({ status, bytes, ms })),
      oneAtATime: singles.map(({ status, bytes, ms }) => ({ status, bytes, ms })),
      health: { quiet: quietStats, flood: floodStats, oneAtATime: oneStats },
      hostCpuMs,
      problems,
      checks: [
        { name: "/health p99 during the flood (ms)", value: floodStats.p99, target: `< ${TARGET_HEALTH_MS}`, pass: floodStats.p99 < TARGET_HEALTH_MS },
        { name: "/health slowest during the flood (ms)", value: floodStats.max, target: `< ${TARGET_HEALTH_MS}`, pass: floodStats.max < TARGET_HEALTH_MS },
        { name: "/health slowest while one body is sent (ms)", value: oneStats.max, target: `< ${TARGET_HEALTH_MS}`, pass: oneStats.max < TARGET_HEALTH_MS },
      ],
    };
  } finally {
    await agent.close().catch(() => {});
    await api.server.stop();
  }
}

/**
 * GET /health every 5 ms (the next one 5 ms after the last was sent, or at once when it took longer)
 * on a connection of its own, for `ms` and as long as `work(until)` runs; resolves with every answer.
 * The polling runs in a worker thread of its own, so that sending the attack's 10 MiB in this thread
 * does not delay the polls' timers and count as the service's slowness.
 */
async function pollHealth(api, ms, work) {
  const until = performance.now() + ms;
  const worker = new Worker(new URL(import.meta.url), { workerData: { healthPoller: { url: `${api.baseUrl}/health`, ms } } });
  const answers = new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  try {
    await work(until);
  } finally {
    worker.postMessage("stop");
  }
  const result = await answers;
  await worker.terminate();
  return result;
}

/** The worker's side of pollHealth: polls until `ms` has passed and it was told to stop, then posts every answer. */
async function pollInWorker({ url, ms }) {
  const agent = new Agent({ connections: 1 });
  const answers = [];
  const until = performance.now() + ms;
  let running = true;
  parentPort.once("message", () => (running = false));
  while (running || performance.now() < until) {
    const sentAt = performance.now();
    try {
      const res = await request(url, { dispatcher: agent, headersTimeout: 30_000, bodyTimeout: 30_000 });
      await res.body.arrayBuffer();
      answers.push({ status: res.statusCode, at: performance.timeOrigin + sentAt, ms: performance.now() - sentAt });
    } catch (err) {
      answers.push({ status: 0, at: performance.timeOrigin + sentAt, ms: performance.now() - sentAt, error: err?.code ?? err?.message });
    }
    await sleep(Math.max(0, HEALTH_EVERY_MS - (performance.now() - sentAt)));
  }
  await agent.close().catch(() => {});
  parentPort.postMessage(answers);
}

if (!isMainThread && workerData?.healthPoller) await pollInWorker(workerData.healthPoller);

function stats(answers) {
  const sorted = Float64Array.from(answers.map((a) => a.ms)).sort();
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
}

const format = (s) => `${s.count} answers, p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, max ${s.max.toFixed(1)} ms`;
