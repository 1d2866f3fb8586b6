// 100 incidents assigned and closed in one bulk action from the portal's incident list, beside the
// same 100 assignments and closes made one request at a time, in alternating rounds.

import { apiJson, localControl, portalJson, signInPerson, startApiHost } from "../api-host.mjs";
import { describeExit, median, numberFromEnv } from "../lib.mjs";

/**
 * Target: a bulk action assigning and closing 100 incidents finishes in at most 5 s on the local host.
 *
 * - Host: the default demo (5 workspaces, simulated vendors answering at once unless
 *   BENCH_BULK_VENDOR_LATENCY_MS says otherwise), RECONCILE_INTERVAL_MS=0.
 * - Incidents: new open SourceA incidents made in the simulated consoles through /_local, spread
 *   evenly over the workspaces, fresh ones for every measured run (a closed incident would be
 *   refused, not closed again).
 * - Bulk: Jonas (signed in through the local identity provider, Owner of every demo workspace) sends
 *   one POST /portal/incidents/bulk assigning the 100 to himself and closing them, each with its
 *   classification and closing comment: per incident the assignment's commit, then the close's.
 *   Timed from sending it to the answer; every incident must come back Succeeded.
 * - Peer: the same 100 assignments and closes one request after the other, as the same person
 *   working them one by one from each incident's page: PUT …/incidents/SourceA/{incidentId}/assignee,
 *   then PUT …/status (the same domain operations, `changeAssignee` and `changeStatus`, one commit each).
 * - BENCH_ROUNDS rounds (default 3), the order flipped every round so that drift on a shared machine
 *   falls on both; one warm-up round of each first, not counted.
 *
 * Checks: the bulk action's median time against the 5 s target; the peer's time over the bulk's (how
 * much the bulk saves a person over working them one by one), which must be at least 1.
 * Broken run: an incident not assigned and closed, a non-2xx answer, or a host that exited.
 */
export async function incidentBulk({ log, settings }) {
  const INCIDENTS = 100;
  const TARGET_MS = 5_000;
  const latencyMs = numberFromEnv("BENCH_BULK_VENDOR_LATENCY_MS", 0, { integer: true, min: 0 });
  const problems = [];
  const started = [];
  try {
    const api = await startApiHost({ env: { RECONCILE_INTERVAL_MS: "0", SIMULATED_VENDOR_LATENCY_MS: String(latencyMs) } });
    started.push(api.server);
    const account = await apiJson(api, "GET", `/service-accounts/${api.clientId}`);
    const workspaces = account.data.workspaceAssignments.map((a) => a.workspaceId);
    const lead = await signInPerson(api, "jonas");
    const me = await portalJson(api, lead, "GET", "/portal/me");
    const assignee = { userId: me.data.userId, email: me.data.email };
    log(`  ${INCIDENTS} incidents over ${workspaces.length} workspaces assigned and closed; simulated vendor latency ${latencyMs} ms`);

    let made = 0;
    /** `count` new open incidents, round-robin over the workspaces. */
    const fresh = async (count) => {
      const refs = [];
      for (let i = 0; i < count; i++) {
        const workspaceId = workspaces[made++ % workspaces.length];
        const created = await localControl(api, "POST", `/sources/SourceA/workspaces/${workspaceId}/incidents`, { title: `Bench drill ${made}`, severity: "Low" }, 201);
        refs.push({ workspaceId, source: "SourceA", incidentId: created.data.id });
      }
      return refs;
    };
    const close = { classification: "FalsePositive", closingComment: "Closed in bulk by the bench." };

    const paths = {
      bulk: async (refs) => {
        const t0 = performance.now();
        const answer = await portalJson(api, lead, "POST", "/portal/incidents/bulk", { incidents: refs, changes: { assignee, status: "Closed", ...close } });
        const ms = performance.now() - t0;
        if (answer.data.succeeded !== refs.length) {
          const refused = answer.data.results.filter((r) => r.outcome !== "Succeeded").slice(0, 3);
          problems.push(`bulk assigned and closed ${answer.data.succeeded} of ${refs.length}: ${JSON.stringify(refused)}`);
        }
        return ms;
      },
      single: async (refs) => {
        const t0 = performance.now();
        for (const r of refs) {
          const incident = `/portal/workspaces/${r.workspaceId}/incidents/SourceA/${encodeURIComponent(r.incidentId)}`;
          await portalJson(api, lead, "PUT", `${incident}/assignee`, assignee);
          await portalJson(api, lead, "PUT", `${incident}/status`, { status: "Closed", ...close });
        }
        return performance.now() - t0;
      },
    };

    for (const path of ["bulk", "single"]) await paths[path](await fresh(INCIDENTS / 5));
    const times = { bulk: [], single: [] };
    for (let round = 0; round < settings.rounds && problems.length === 0; round++) {
      const order = round % 2 === 0 ? ["bulk", "single"] : ["single", "bulk"];
      for (const path of order) {
        const refs = await fresh(INCIDENTS);
        times[path].push(await paths[path](refs));
      }
      const [b, s] = [times.bulk.at(-1), times.single.at(-1)];
      log(`  round ${round + 1}/${settings.rounds}  bulk ${b.toFixed(0)} ms   200 single writes ${s.toFixed(0)} ms   single / bulk ${(s / b).toFixed(2)}`);
    }
    const exit = api.server.exited();
    if (exit) problems.push(`api host exited (${describeExit(exit)})\n${api.server.output()}`);
    if (problems.length > 0) return { checks: [], problems };

    const bulkMs = median(times.bulk);
    const singleMs = median(times.single);
    const ratio = singleMs / bulkMs;
    const perRound = times.bulk.map((b, i) => times.single[i] / b);
    log("");
    log(`  bulk assign and close of ${INCIDENTS}: median ${bulkMs.toFixed(0)} ms (target <= ${TARGET_MS}); ${2 * INCIDENTS} single writes: median ${singleMs.toFixed(0)} ms`);
    log(`  single / bulk = ${ratio.toFixed(2)} (medians); per round ${perRound.map((x) => x.toFixed(2)).join(", ")}`);
    return {
      checks: [
        { name: `bulk assign and close of ${INCIDENTS} incidents, median (ms)`, value: bulkMs, target: `<= ${TARGET_MS}`, pass: bulkMs <= TARGET_MS },
        { name: `${2 * INCIDENTS} sequential single writes / one bulk assign and close (time)`, value: ratio, target: ">= 1", pass: ratio >= 1, perRound },
      ],
      problems,
      times,
      vendorLatencyMs: latencyMs,
    };
  } finally {
    await Promise.all(started.map((s) => s.stop()));
  }
}
