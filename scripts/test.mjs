// Runs the whole suite and ends with the line CI reads: "N passed, N failed".
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";

const out = ".test-results/vitest.json";
mkdirSync(".test-results", { recursive: true });
rmSync(out, { force: true });
const run = spawnSync(
  "npx",
  ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile=${out}`, ...process.argv.slice(2)],
  { stdio: "inherit" },
);

let passed = 0;
let failed = 0;
try {
  const report = JSON.parse(readFileSync(out, "utf8"));
  passed = report.numPassedTests;
  // Suites that fail to load count as failures too, so a broken file cannot pass silently.
  failed = report.numFailedTests + brokenFiles(report);
} catch {
  failed = Math.max(1, failed);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(run.status === 0 && failed === 0 && passed > 0 ? 0 : 1);

/** Test files that failed without a failing test: they did not load or a hook threw. */
function brokenFiles(report) {
  return report.testResults.filter(
    (r) => r.status === "failed" && !r.assertionResults.some((a) => a.status === "failed"),
  ).length;
}
