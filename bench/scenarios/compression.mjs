// Compressed answers: the bytes on the wire and the host's CPU per answer, as they are (identity,
// what every answer was before compression) and in gzip and Brotli, for the two largest answers
// people and integrations page through: the cross-workspace listing's first page (a service
// account) and the portal's incident search (a person).

import { request } from "undici";
import { signInPerson, startApiHost } from "../api-host.mjs";
import { describeExit, median, processCpuMs } from "../lib.mjs";

/**
 * - Host: the default demo (simulated vendors answering at once), RECONCILE_INTERVAL_MS=0, so the
 *   host does nothing but answer.
 * - Answers: POST /incidents/across-workspaces `{isFirstCall: true}` as the service account, and
 *   POST /portal/incidents/search `{}` (the queue's first page: every workspace, newest first) as
 *   Jonas (signed in through the local identity provider).
 * - Codings: none asked for (identity), `gzip`, and a browser's `gzip, deflate, br, zstd` (Brotli).
 * - Each round sends REQUESTS answers of each answer in each coding, one after another, the codings'
 *   order turned every round so that drift on a shared machine falls on all; the host's CPU (user +
 *   system, from /proc, all its threads: zlib's pool included) over those requests, per answer.
 *   One warm-up pass of everything first, not counted. BENCH_ROUNDS rounds (default 3).
 *
 * Checks: Brotli's bytes at most a quarter of identity's for each answer; the CPU per answer in
 * each coding over identity's is reported (what the bytes saved cost the host).
 * Broken run: a non-200 answer, an answer not in the coding asked for, or a host that exited.
 */
export async function compression({ log, settings }) {
  const REQUESTS = 40;
  const codings = { identity: undefined, gzip: "gzip", br: "gzip, deflate, br, zstd" };
  const problems = [];
  const api = await startApiHost({ env: { RECONCILE_INTERVAL_MS: "0" } });
  try {
    const jonas = await signInPerson(api, "jonas");
    const answers = {
      "cross-workspace first page": { path: "/incidents/across-workspaces", headers: api.authHeaders, body: JSON.stringify({ isFirstCall: true, workspacePageTokens: [] }) },
      "portal incident search": { path: "/portal/incidents/search", headers: { cookie: jonas.cookie, "x-csrf-token": jonas.csrfToken }, body: JSON.stringify({}) },
    };
    /** One answer in one coding: its bytes as sent. */
    const send = async (answer, coding) => {
      const headers = { ...answer.headers, "content-type": "application/json", ...(codings[coding] ? { "accept-encoding": codings[coding] } : {}) };
      const res = await request(`${api.baseUrl}${answer.path}`, { method: "POST", headers, body: answer.body });
      const bytes = (await res.body.arrayBuffer()).byteLength;
      const sentIn = res.headers["content-encoding"] ?? "identity";
      if (res.statusCode !== 200) problems.push(`${answer.path} in ${coding}: HTTP ${res.statusCode}`);
      else if (sentIn !== coding) problems.push(`${answer.path}: asked for ${coding}, sent in ${sentIn}`);
      return bytes;
    };
    const measure = async (answer, coding) => {
      const cpuBefore = await processCpuMs(api.server.child.pid);
      const t0 = performance.now();
      let bytes = 0;
      for (let i = 0; i < REQUESTS; i++) bytes = await send(answer, coding);
      const wallMs = (performance.now() - t0) / REQUESTS;
      const cpuMs = ((await processCpuMs(api.server.child.pid)) - cpuBefore) / REQUESTS;
      return { bytes, wallMs, cpuMs };
    };

    for (const answer of Object.values(answers)) for (const coding of Object.keys(codings)) await measure(answer, coding);
    const samples = {};
    for (let round = 0; round < settings.rounds && problems.length === 0; round++) {
      const order = Object.keys(codings);
      for (let turn = 0; turn < round % order.length; turn++) order.push(order.shift());
      for (const [name, answer] of Object.entries(answers)) {
        for (const coding of order) {
          const sample = await measure(answer, coding);
          ((samples[name] ??= {})[coding] ??= []).push(sample);
        }
      }
      log(`  round ${round + 1}/${settings.rounds} done (codings in the order ${order.join(", ")})`);
    }
    const exit = api.server.exited();
    if (exit) problems.push(`api host exited (${describeExit(exit)})\n${api.server.output()}`);
    if (problems.length > 0) return { checks: [], problems };

    const rows = [];
    const checks = [];
    const figures = {};
    for (const [name, byCoding] of Object.entries(samples)) {
      const of = (coding) => ({
        bytes: byCoding[coding].at(-1).bytes,
        cpuMs: median(byCoding[coding].map((s) => s.cpuMs)),
        wallMs: median(byCoding[coding].map((s) => s.wallMs)),
      });
      const base = of("identity");
      figures[name] = {};
      for (const coding of Object.keys(codings)) {
        const f = of(coding);
        figures[name][coding] = f;
        rows.push({ answer: name, coding, bytes: f.bytes, "bytes / identity": (f.bytes / base.bytes).toFixed(3), "host CPU ms": f.cpuMs.toFixed(2), "CPU / identity": (f.cpuMs / base.cpuMs).toFixed(2), "wall ms": f.wallMs.toFixed(2) });
        log(`  ${name}, ${coding}: ${f.bytes} bytes (${((100 * f.bytes) / base.bytes).toFixed(1)} % of identity), host CPU ${f.cpuMs.toFixed(2)} ms per answer (${(f.cpuMs / base.cpuMs).toFixed(2)} x identity), ${f.wallMs.toFixed(2)} ms each`);
      }
      const br = figures[name].br;
      checks.push({ name: `${name}: Brotli bytes / identity bytes`, value: br.bytes / base.bytes, target: "<= 0.25", pass: br.bytes / base.bytes <= 0.25 });
      checks.push({ name: `${name}: host CPU per answer, Brotli / identity`, value: br.cpuMs / base.cpuMs, target: "report", pass: true });
    }
    return { rows, checks, problems, figures, requestsPerSample: REQUESTS };
  } finally {
    await api.server.stop();
  }
}
