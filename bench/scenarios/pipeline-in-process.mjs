// The request pipeline alone, without a socket: runs bench/pipeline-inprocess.mjs in a child process,
// then once more under --cpu-prof.

import { mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { ROOT } from "../api-host.mjs";
import { childEnv, execFileAsync as run, median, numberFromEnv } from "../lib.mjs";
import { topSelfTime } from "../profile-top.mjs";

const PIPELINE_INPROCESS = path.join(ROOT, "bench/pipeline-inprocess.mjs");

/**
 * The request pipeline alone, no socket: CPU per authenticated GET /service-accounts/{id} through
 * createPipeline in processes of its own (bench/pipeline-inprocess.mjs), every thread's CPU counted
 * (the garbage collector's too). Several processes (BENCH_INPROCESS_PROCESSES, 3), each its median of
 * rounds printed: the figure is bimodal per process, by whether V8 decided early in the warm-up to
 * allocate some of the request path's objects in the old generation (allocation-site pretenuring),
 * and one process would show either mode as the build's. Target on the median of the processes:
 * <= 13 us. Then one more run under --cpu-prof, whose functions with the most self time are printed
 * (the profile is kept in bench/results/).
 */
export async function pipelineInProcess({ log }) {
  const TARGET_US = 13;
  const child = async (nodeArgs, args) => JSON.parse((await run(process.execPath, [...nodeArgs, PIPELINE_INPROCESS, ...args], { cwd: ROOT, env: childEnv({}), maxBuffer: 1 << 20 })).stdout.trim().split("\n").at(-1));
  const processes = numberFromEnv("BENCH_INPROCESS_PROCESSES", 3, { integer: true });
  const perProcess = [];
  const rounds = [];
  for (let i = 0; i < processes; i++) {
    const measured = await child([], ["--requests", "200000", "--rounds", "5"]);
    const cpu = measured.rounds.map((r) => r.cpuUs);
    const wall = measured.rounds.map((r) => r.wallUs);
    perProcess.push(median(cpu));
    rounds.push(...measured.rounds);
    log(`  process ${i + 1}/${processes}: ${measured.requests} requests per round, body ${measured.bodyBytes} bytes; CPU per request per round ${cpu.map((x) => x.toFixed(2)).join(", ")} us (median ${median(cpu).toFixed(2)}); wall ${wall.map((x) => x.toFixed(2)).join(", ")} us`);
  }
  const profileDir = path.join(ROOT, "bench/results");
  await mkdir(profileDir, { recursive: true });
  const profileName = "pipeline-inprocess.cpuprofile";
  await rm(path.join(profileDir, profileName), { force: true });
  await child(["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${profileName}`], ["--requests", "100000", "--rounds", "1"]);
  const top = topSelfTime(JSON.parse(await readFile(path.join(profileDir, profileName), "utf8")), 12);
  log(`  profile (self time, whole run incl. start-up), bench/results/${profileName}:`);
  for (const e of top) log(`    ${e.percent.toFixed(1).padStart(5)}%  ${e.name}  ${e.where}`);
  const value = median(perProcess);
  return {
    checks: [{ name: "pipeline CPU per authenticated GET, in-process (us, median of the processes' medians)", value, target: `<= ${TARGET_US}`, pass: value <= TARGET_US, perProcess }],
    problems: [],
    rounds,
    profileTop: top,
  };
}
