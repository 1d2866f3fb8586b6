import { existsSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../api-host.mjs";
import { childEnv, execFileAsync as run } from "../lib.mjs";

const OPERATION_COUNTS = path.join(ROOT, "dist/scripts/operation-counts.js");

/**
 * Store operations and queue messages per request (dist/scripts/operation-counts.js; pinned by
 * test/unit/operation-counts.test.ts). Deterministic: no target here, the test holds them.
 */
export async function operationsPerRequest({ log }) {
  if (!existsSync(OPERATION_COUNTS)) throw new Error(`${path.relative(ROOT, OPERATION_COUNTS)} does not exist; run \`npm run build\`.`);
  const { stdout } = await run(process.execPath, [OPERATION_COUNTS], { cwd: ROOT, env: childEnv({}), maxBuffer: 1 << 20 });
  const counts = JSON.parse(stdout.trim().split("\n").at(-1));
  const rows = [
    ["authenticated GET, warm instance", counts.authenticatedGet],
    ["status change delivered to 1 webhook", counts.statusChangeDelivered],
    [`cross-workspace page (${counts.crossWorkspacePage.incidents} incidents, ${counts.crossWorkspacePage.workspaces} workspaces on it, 50 in all)`, counts.crossWorkspacePage],
    [`reconciler pass, nothing changed (${counts.reconcilerPassUnchanged.workspaces} workspaces)`, counts.reconcilerPassUnchanged],
    [`gamebook run of ${counts.gamebookRun.playbooks} playbooks`, counts.gamebookRun],
    [`bulk assignment of ${counts.bulkAssign.incidents} incidents (${counts.bulkAssign.workspaces} workspaces)`, counts.bulkAssign],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  log(`  ${"request".padEnd(width)}  store ops  messages  detail`);
  for (const [label, c] of rows) {
    log(`  ${label.padEnd(width)}  ${String(c.storeOperations).padStart(9)}  ${String(c.queueMessages).padStart(8)}  ${Object.entries(c.detail).map(([k, v]) => `${k} ${v}`).join(", ")}`);
  }
  return { checks: [], problems: [], counts };
}
