// The service-account read scenario: an authenticated GET against the API, a Fastify server doing the
// same work and a bare node:http server, measured in alternating rounds.

import { baselineBuilt, baselineFolder } from "../baseline.mjs";
import path from "node:path";
import { ROOT, startApiHost } from "../api-host.mjs";
import { childEnv, describeExit, formatLoadTable, freePort, processCpuUs, runLoad, startServer, summarizeRounds, withoutKeys } from "../lib.mjs";

const BARE_SERVER = path.join(ROOT, "bench/bare-server.mjs");
const FASTIFY_REFERENCE = path.join(ROOT, "bench/fastify-reference.mjs");

/**
 * Measures the targets in alternating rounds (flipping which goes first each round), each round in
 * processes started for it and warmed up for it. Alternating spreads slow drift on a shared machine,
 * such as another job starting, over every target instead of pinning it on whichever ran second.
 * Fresh processes keep a host's own drift out: under minutes of continuous load a host's young
 * generation shrinks (V8's memory reducer) and requests in flight start being promoted, and one host
 * falls into it sooner than another, which moved the ratio of two builds by a tenth between rounds
 * of one run. How a host holds up over minutes is the soak scenario's question, not this one's.
 *
 * `targets`: { label, headers, start() } where start() resolves with { server, url }.
 * Returns { rows, problems } where each row is summarizeRounds() of one target.
 */
async function compareTargets(targets, { log, settings }) {
  const problems = [];
  const check = (target, server, phase, r) => {
    if (r.errors || r.non2xx) {
      problems.push(`${target.label} ${phase}: ${r.errors} errors (${r.timeouts} timeouts), ${r.non2xx} non-2xx; status codes ${JSON.stringify(r.statusCodes)}`);
    }
    const exit = server.exited();
    if (exit) problems.push(`${target.label} exited during ${phase} (${describeExit(exit)})\n${server.output()}`);
  };
  const load = (target, url, durationS) => runLoad({ url, headers: target.headers, connections: settings.connections, durationS, pipelining: settings.pipelining });

  const rounds = new Map(targets.map((t) => [t, []]));
  for (let i = 0; i < settings.rounds && problems.length === 0; i++) {
    const order = i % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      const { server, url } = await target.start();
      try {
        if (settings.warmupS > 0) check(target, server, `round ${i + 1}'s warm-up`, await load(target, url, settings.warmupS));
        const cpu0 = await processCpuUs(server.child.pid);
        const r = await load(target, url, settings.durationS);
        r.cpuUs = ((await processCpuUs(server.child.pid)) - cpu0) / r.requests;
        rounds.get(target).push(r);
        log(
          `  round ${i + 1}/${settings.rounds}  ${target.label.padEnd(16)} ${r.rps.toFixed(0).padStart(7)} req/s  ${r.cpuUs.toFixed(1).padStart(6)} µs CPU/req  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms`,
        );
        check(target, server, `round ${i + 1}`, r);
      } finally {
        await server.stop();
      }
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
  // The API's first host answers once, for the bytes the bare server replays and the data the
  // Fastify reference must serve; the rounds start their own.
  const first = await startApiHost();
  const captured = first.server.ready;
  await first.server.stop();

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

  const pathname = `/api/v2/service-accounts/${first.clientId}`;
  // The bare server replays exactly what the API answered, so both send the same bytes and the
  // difference is the API's own work (routing, auth, store read, serialization, headers).
  const startBare = async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}${pathname}`;
    const server = await startServer({
      name: "bare server",
      script: BARE_SERVER,
      cwd: ROOT,
      env: childEnv({ PORT: String(port), BARE_BODY_BASE64: captured.body.toString("base64"), BARE_CONTENT_TYPE: contentType ?? "application/json" }),
      readyUrl: url,
    });
    if (!server.ready.body.equals(captured.body)) {
      await server.stop();
      throw new Error("bare server does not serve the captured API body byte for byte");
    }
    return { server, url };
  };
  const startFastify = async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}${pathname}`;
    const server = await startServer({
      name: "fastify reference",
      script: FASTIFY_REFERENCE,
      cwd: ROOT,
      env: childEnv({ PORT: String(port), REF_CLIENT_ID: first.clientId, REF_CLIENT_SECRET: first.clientSecret, REF_BODY_BASE64: captured.body.toString("base64") }),
      readyUrl: url,
      headers: first.authHeaders,
    });
    if (JSON.stringify(JSON.parse(server.ready.body.toString("utf8")).data) !== JSON.stringify(JSON.parse(captured.body.toString("utf8")).data)) {
      await server.stop();
      throw new Error("the Fastify reference does not serve the API's data");
    }
    return { server, url };
  };
  // Every API host gets the first one's admin account, so that one load's headers serve them all.
  const startApi = (root) => async () => {
    const api = await startApiHost({ root, sameAccountAs: first });
    return { server: api.server, url: api.accountUrl };
  };

  log(`  body: ${captured.body.length} bytes (API), ${contentType}`);
  // Same URL path and the same Authorization header for all, so request parsing costs the same.
  const targets = [
    { label: "bare node:http", headers: first.authHeaders, start: startBare },
    { label: "Fastify + work", headers: first.authHeaders, start: startFastify },
    { label: "API", headers: first.authHeaders, start: startApi(ROOT) },
  ];
  // An older build's host beside this one, in the same alternating rounds, so that a slide of this
  // build shows as a ratio of the two: BENCH_BASELINE_ROOT, else the pinned build when it has been
  // made (`node bench/baseline.mjs`).
  const baselineRoot = process.env.BENCH_BASELINE_ROOT ?? (baselineBuilt() ? baselineFolder() : undefined);
  if (!baselineRoot) log("  (no older build beside this one: `node bench/baseline.mjs` makes the pinned one)");
  if (baselineRoot) targets.push({ label: "API, older build", headers: first.authHeaders, start: startApi(path.resolve(baselineRoot)) });
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
}
