import { readdirSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../api-host.mjs";
import { childEnv, execFileAsync as run, median } from "../lib.mjs";

const FUNCTIONS_DIR = path.join(ROOT, "dist/functions");

/**
 * A cold start as the Functions worker does it: a fresh Node process imports every module matched
 * by package.json main (dist/functions/*.js), ten times; the time is measured inside each process
 * around the imports. Target: median <= 150 ms. Also reports what the imports loaded.
 */
export async function coldStart({ log }) {
  const TARGET_MS = 150;
  const PROCESSES = 10;
  const files = readdirSync(FUNCTIONS_DIR).filter((f) => f.endsWith(".js")).map((f) => path.join(FUNCTIONS_DIR, f));
  const probe = `
    const t0 = performance.now();
    for (const file of ${JSON.stringify(files)}) require(file);
    const ms = performance.now() - t0;
    const loaded = Object.keys(require.cache);
    const has = (part) => loaded.some((f) => f.includes(part));
    console.log(JSON.stringify({ ms, modules: loaded.length, cosmos: has("/@azure/cosmos/"), serviceBus: has("/@azure/service-bus/"), identity: has("/@azure/identity/"), undici: has("/undici/"), zod: has("/zod/") }));`;
  const samples = [];
  for (let i = 0; i < PROCESSES; i++) {
    const { stdout } = await run(process.execPath, ["-e", probe], { cwd: ROOT, env: childEnv({}) });
    samples.push(JSON.parse(stdout.trim().split("\n").at(-1)));
  }
  const ms = samples.map((x) => x.ms);
  const { ms: _ms, ...loaded } = samples[0];
  log(`  ${files.length} function modules; import ms per process ${ms.map((x) => x.toFixed(1)).join(", ")}; loaded ${JSON.stringify(loaded)}`);
  // Not part of the check: with Application Insights configured, OpenTelemetry starts at import.
  const withTelemetry = [];
  for (let i = 0; i < 3; i++) {
    const env = childEnv({ APPLICATIONINSIGHTS_CONNECTION_STRING: "InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1:9/" });
    const { stdout } = await run(process.execPath, ["-e", probe], { cwd: ROOT, env });
    withTelemetry.push(JSON.parse(stdout.trim().split("\n").at(-1)));
  }
  log(`  with APPLICATIONINSIGHTS_CONNECTION_STRING set (OpenTelemetry at import, not checked): ${withTelemetry.map((x) => x.ms.toFixed(1)).join(", ")} ms, ${withTelemetry[0].modules} modules`);
  const value = median(ms);
  return {
    checks: [{ name: `importing every function module in a fresh process (ms, median of ${PROCESSES})`, value, target: `<= ${TARGET_MS}`, pass: value <= TARGET_MS, samples: ms }],
    problems: [],
    loaded,
    withTelemetryMs: withTelemetry.map((x) => x.ms),
  };
}
