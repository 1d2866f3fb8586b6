// The service-account read scenario: an authenticated GET against the API, a Fastify server doing the
// same work and a bare node:http server, measured in alternating rounds.

import { baselineBuilt, baselineFolder } from "../baseline.mjs";
import path from "node:path";
import { ROOT, startApiHost } from "../api-host.mjs";
import { childEnv, describeExit, formatLoadTable, freePort, processCpuUs, runLoad, startServer, summarizeRounds, withoutKeys } from "../lib.mjs";

const BARE_SERVER = path.join(ROOT, "bench/bare-server.mjs");
const FASTIFY_REFERENCE = path.join(ROOT, "bench/fastify-reference.mjs");

/**
 * Warms up each target, then measures them in alternating rounds. Alternating (and flipping which
 * goes first each round) spreads slow drift on a shared machine, such as another job starting,
 * over both targets instead of pinning it on whichever happened to run second.
 *
 * Returns { rows, problems } where each row is summarizeRounds() of one target.
 */
async function compareTargets(targets, { log, settings }) {
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
      const cpu0 = await processCpuUs(target.server.child.pid);
      const r = await load(target, settings.durationS);
      r.cpuUs = ((await processCpuUs(target.server.child.pid)) - cpu0) / r.requests;
      rounds.get(target).push(r);
      log(
        `  round ${i + 1}/${settings.rounds}  ${target.label.padEnd(16)} ${r.rps.toFixed(0).padStart(7)} req/s  ${r.cpuUs.toFixed(1).padStart(6)} µs CPU/req  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms`,
      );
      check(target, `round ${i + 1}`, r);
    }
  }
  return { rows: targets.map((t) => summarizeRounds(t.label, rounds.get(t))), problems };
}

/**
 * An authenticated GET /api/v2/service-accounts/{id} against what a user would build instead: a
 * Fastify 5 server doing the same work (bench/fastify-reference.mjs), and a bare node:http server
 * returning the same bytes (the ceiling). Targets: API >= 0.95 x Fastify req/s (1.0 the goal), API
 * p99 <= 10 ms, and, when an older build runs beside it, this build >= 0.95 x the older one's req/s:
 * a slide of the warm request fails a check instead of waiting to be noticed in a log.
 */
export async function serviceAccountRead({ log, settings }) {
  const TARGET_RATIO = 0.95;
  const TARGET_P99_MS = 10;
  const TARGET_AGAINST_OLDER = 0.95;
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

    const fastifyPort = await freePort();
    const fastifyUrl = `http://127.0.0.1:${fastifyPort}/api/v2/service-accounts/${api.clientId}`;
    const fastify = await startServer({
      name: "fastify reference",
      script: FASTIFY_REFERENCE,
      cwd: ROOT,
      env: childEnv({ PORT: String(fastifyPort), REF_CLIENT_ID: api.clientId, REF_CLIENT_SECRET: api.clientSecret, REF_BODY_BASE64: captured.body.toString("base64") }),
      readyUrl: fastifyUrl,
      headers: api.authHeaders,
    });
    started.push(fastify);
    const fastifyBody = JSON.parse(fastify.ready.body.toString("utf8"));
    if (JSON.stringify(fastifyBody.data) !== JSON.stringify(JSON.parse(captured.body.toString("utf8")).data)) throw new Error("the Fastify reference does not serve the API's data");

    log(`  body: ${captured.body.length} bytes (API), ${fastify.ready.body.length} bytes (Fastify), ${contentType}`);
    // Same URL path and the same Authorization header for all, so request parsing costs the same.
    const targets = [
      { label: "bare node:http", url: bareUrl, headers: api.authHeaders, server: bare },
      { label: "Fastify + work", url: fastifyUrl, headers: api.authHeaders, server: fastify },
      { label: "API", url: api.accountUrl, headers: api.authHeaders, server: api.server },
    ];
    // An older build's host beside this one, in the same alternating rounds, with the same admin
    // account, so that a slide of this build shows as a ratio of the two: BENCH_BASELINE_ROOT, else
    // the pinned build when it has been made (`node bench/baseline.mjs`).
    const baselineRoot = process.env.BENCH_BASELINE_ROOT ?? (baselineBuilt() ? baselineFolder() : undefined);
    if (!baselineRoot) log("  (no older build beside this one: `node bench/baseline.mjs` makes the pinned one)");
    if (baselineRoot) {
      const baseline = await startApiHost({ root: path.resolve(baselineRoot), sameAccountAs: api });
      started.push(baseline.server);
      targets.push({ label: "API, older build", url: baseline.accountUrl, headers: api.authHeaders, server: baseline.server });
    }
    const { rows, problems } = await compareTargets(targets, { log, settings });
    if (rows.some((r) => r.rounds.length === 0)) return { rows, checks: [], notes, problems };
    const [bareRow, fastifyRow, apiRow, baselineRow] = rows;
    const ratio = apiRow.rps / fastifyRow.rps;
    const roundRatios = apiRow.rounds.map((r, i) => r.rps / fastifyRow.rounds[i]?.rps);

    log("");
    log(formatLoadTable(rows));
    log("");
    log(`  API / Fastify req/s = ${ratio.toFixed(3)} (medians); per round ${roundRatios.map((x) => x.toFixed(3)).join(", ")}`);
    log(`  Fastify CPU / API CPU per request = ${(fastifyRow.cpuUs / apiRow.cpuUs).toFixed(3)} (the same comparison by the servers' own CPU)`);
    log(`  API / bare = ${(apiRow.rps / bareRow.rps).toFixed(3)}; Fastify / bare = ${(fastifyRow.rps / bareRow.rps).toFixed(3)}`);
    if (baselineRow) {
      log(`  this build / older build: req/s ${(apiRow.rps / baselineRow.rps).toFixed(3)}, CPU per request ${(apiRow.cpuUs / baselineRow.cpuUs).toFixed(3)} (${baselineRoot})`);
    }
    return {
      rows,
      checks: [
        { name: "API / Fastify-with-the-work req/s", value: ratio, target: `>= ${TARGET_RATIO}`, pass: ratio >= TARGET_RATIO, perRound: roundRatios },
        { name: "API p99 latency (ms)", value: apiRow.p99, target: `<= ${TARGET_P99_MS}`, pass: apiRow.p99 <= TARGET_P99_MS },
        ...(baselineRow
          ? [
              {
                name: "this build / the older build req/s",
                value: apiRow.rps / baselineRow.rps,
                target: `>= ${TARGET_AGAINST_OLDER}`,
                pass: apiRow.rps / baselineRow.rps >= TARGET_AGAINST_OLDER,
                perRound: apiRow.rounds.map((r, i) => r.rps / baselineRow.rounds[i]?.rps),
              },
            ]
          : []),
      ],
      notes,
      problems,
      ceiling: { apiOverBare: apiRow.rps / bareRow.rps, fastifyOverBare: fastifyRow.rps / bareRow.rps },
      response: { bytes: captured.body.length, contentType, headers: withoutKeys(captured.headers, ["connection", "date", "keep-alive"]) },
    };
  } finally {
    await Promise.all(started.map((s) => s.stop()));
  }
}
