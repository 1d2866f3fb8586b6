import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { apiJson, openIncidents, portalJson, ROOT, signInPerson, startApiHost } from "../api-host.mjs";
import { describeExit, numberFromEnv, p50p99, processCpuMs } from "../lib.mjs";

/**
 * Issue requirement: 1,000 gamebook runs of 5 playbooks each, submitted 20 at a time, on the embedded
 * default: runs per second and p50/p99 submit-to-finished. Report only (no target yet).
 *
 * - Host: the default demo (5 workspaces), RECONCILE_INTERVAL_MS=0, and SIMULATED_PLAYBOOK_DELAY_MS
 *   from BENCH_PLAYBOOK_DELAY_MS (default 0): with 0 the figures are the service's own cost (the
 *   simulated automation answers at once); set it to see runs that wait on a slower backend.
 * - Runs: open SourceA/SourceB incidents of the workspaces that approve nothing (the clinics
 *   workspace approves every run and is left out), each run 5 playbooks that the simulated
 *   automation never fails, chosen by the incident's entities (revoke sessions on an account, block a
 *   URL, unblock an address, purge a mailbox, unblock a domain), completed with "add a comment" (the
 *   incident path: a vendor comment and its event). Playbook ids come from the demo seed.
 * - Load: closed loop, 20 workers: each submits a run (POST /gamebooks/run), polls its playbooks
 *   (GET history/{id}/playbooks every BENCH_GAMEBOOK_POLL_MS, default 5) until every one is final,
 *   then submits the next. Submit-to-finished is timed from sending the POST to the poll that sees
 *   it finished (so it includes up to one poll interval), and also from the run record's own times
 *   (creationDate to its last modificationDate), which a poll interval does not blur.
 * - BENCH_GAMEBOOK_RUNS (default 1000) sets the number of runs measured; a warm-up of 5% more (at least
 *   20) goes first and is not counted.
 *
 * Broken run (problems): a refused submission, a run not finished within 60 s, a run whose 5
 * playbooks did not all succeed, or a host that exited.
 */
export async function gamebookRuns({ log }) {
  const RUNS = numberFromEnv("BENCH_GAMEBOOK_RUNS", 1000, { integer: true });
  const CONCURRENCY = 20;
  const PLAYBOOKS = 5;
  const DELAY_MS = numberFromEnv("BENCH_PLAYBOOK_DELAY_MS", 0, { integer: true, min: 0 });
  const POLL_MS = numberFromEnv("BENCH_GAMEBOOK_POLL_MS", 5, { integer: true });
  const WARMUP = Math.max(CONCURRENCY, Math.round(RUNS * 0.05));
  const RUN_TIMEOUT_MS = 60_000;
  const problems = [];
  const notes = [];
  const started = [];
  try {
    const { demoId } = await import(pathToFileURL(path.join(ROOT, "dist/shared/hosts/local/demo-data.js")).href);
    const api = await startApiHost({ env: { SIMULATED_PLAYBOOK_DELAY_MS: String(DELAY_MS), RECONCILE_INTERVAL_MS: "0" } });
    started.push(api.server);
    const seed = "secops-demo";

    // Workspaces whose runs are dispatched at once: no policy of their own (the partner setting only
    // asks for admin playbooks, which these runs do not use). The policy is the portal's: read by the
    // demo's SOC lead, who holds a role on every workspace.
    const account = await apiJson(api, "GET", `/service-accounts/${api.clientId}`);
    const mapped = account.data.workspaceAssignments.map((a) => a.workspaceId);
    const lead = await signInPerson(api, "jonas");
    const open = [];
    for (const workspaceId of mapped) {
      const policy = await portalJson(api, lead, "GET", `/portal/workspaces/${workspaceId}/approval-policy`);
      if (policy.data.mode === "NoApproval") open.push(workspaceId);
    }
    const pool = (await openIncidents(api, 400)).incidents.filter((i) => open.includes(i.workspaceId));
    const bodies = [];
    for (const incident of pool) {
      const detail = await apiJson(api, "GET", `/workspaces/${incident.workspaceId}/incidents/${incident.source}/${encodeURIComponent(incident.id)}`);
      const entities = detail.data.investigationDetails.entities;
      const id = (reference) => demoId(seed, `playbook/${incident.workspaceId}/${reference}`);
      const byKind = (kind) => entities.find((e) => e.kind === kind);
      const steps = [];
      for (const [kind, reference] of [["Account", "revoke-sessions"], ["Url", "block-url"], ["Ip", "unblock-ip"], ["Mailbox", "purge-email"], ["Url", "unblock-domain"]]) {
        const entity = byKind(kind);
        if (entity && steps.length < PLAYBOOKS - 1) steps.push({ id: id(reference), entityId: entity.id, parameters: {} });
      }
      while (steps.length < PLAYBOOKS) steps.push({ id: id("add-comment"), entityId: incident.id, parameters: { message: `Bench note ${steps.length + 1}.` } });
      bodies.push({
        workspaceId: incident.workspaceId,
        body: {
          incidentId: incident.id,
          incidentTitle: detail.data.incident.title,
          source: incident.source,
          playbooks: steps.map((step, i) => ({ ...step, sequence: i + 1 })),
        },
      });
    }
    if (bodies.length < CONCURRENCY) throw new Error(`only ${bodies.length} open incidents in workspaces without approval; need ${CONCURRENCY}`);
    const automationSteps = bodies.reduce((n, b) => n + b.body.playbooks.filter((p) => p.entityId !== b.body.incidentId).length, 0);
    log(`  ${bodies.length} open incidents in ${open.length} workspaces; ${PLAYBOOKS} playbooks a run (${(automationSteps / bodies.length).toFixed(1)} automation, the rest comments on average); simulated step delay ${DELAY_MS} ms`);

    const FINAL = new Set(["Succeeded", "Failed", "Skipped"]);
    const samples = [];
    let next = 0;
    let measuredFrom = 0;
    const cpuBefore = await processCpuMs(api.server.child.pid);
    let cpuAtWarmup = null;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < WARMUP + RUNS && problems.length === 0; i = next++) {
          if (i === WARMUP) {
            measuredFrom = performance.now();
            void processCpuMs(api.server.child.pid).then((ms) => (cpuAtWarmup = ms));
          }
          const { workspaceId, body } = bodies[i % bodies.length];
          const t0 = performance.now();
          let runId;
          try {
            runId = (await apiJson(api, "POST", `/workspaces/${workspaceId}/gamebooks/run`, body)).data.id;
          } catch (error) {
            problems.push(`run ${i}: ${error.message}`);
            return;
          }
          const submitMs = performance.now() - t0;
          let entries;
          for (;;) {
            entries = (await apiJson(api, "GET", `/workspaces/${workspaceId}/gamebooks/history/${runId}/playbooks`)).data;
            if (entries.every((e) => FINAL.has(e.status))) break;
            if (performance.now() - t0 > RUN_TIMEOUT_MS) {
              problems.push(`run ${runId} not finished within ${RUN_TIMEOUT_MS / 1000} s: ${entries.map((e) => e.status).join(", ")}`);
              return;
            }
            await sleep(POLL_MS);
          }
          const finishedMs = performance.now() - t0;
          if (!entries.every((e) => e.status === "Succeeded")) problems.push(`run ${runId} did not succeed: ${entries.map((e) => `${e.name} ${e.status} ${e.errorMessage}`).join("; ")}`);
          if (i >= WARMUP) samples.push({ i, runId, workspaceId, submitMs, finishedMs, at: performance.now() });
        }
      }),
    );
    const exit = api.server.exited();
    if (exit) problems.push(`api host exited (${describeExit(exit)})\n${api.server.output()}`);
    if (problems.length > 0) return { checks: [], notes, problems: problems.slice(0, 10) };

    const wallS = (Math.max(...samples.map((s) => s.at)) - measuredFrom) / 1000;
    const cpuAfter = await processCpuMs(api.server.child.pid);
    // The server's own view: from the run record's creation to its last change (the final playbook).
    const serverMs = [];
    for (const workspaceId of new Set(samples.map((s) => s.workspaceId))) {
      const wanted = new Set(samples.filter((s) => s.workspaceId === workspaceId).map((s) => s.runId));
      let token;
      do {
        const page = await apiJson(api, "GET", `/workspaces/${workspaceId}/gamebooks/history?pageSize=200${token ? `&pageToken=${encodeURIComponent(token)}` : ""}`);
        for (const run of page.data) if (wanted.has(run.id)) serverMs.push(Date.parse(run.modificationDate) - Date.parse(run.creationDate));
        token = page.pagination.continuationToken;
      } while (token);
    }
    const e2e = p50p99(samples.map((s) => s.finishedMs));
    const submit = p50p99(samples.map((s) => s.submitMs));
    const server = p50p99(serverMs);
    const runsPerSecond = samples.length / wallS;
    const hostCpuMsPerRun = cpuAtWarmup === null || cpuAfter === null ? NaN : (cpuAfter - cpuAtWarmup) / samples.length;
    log("");
    log(`  ${samples.length} runs measured (after ${WARMUP} warm-up runs), ${CONCURRENCY} in flight: ${runsPerSecond.toFixed(1)} runs/s, ${(runsPerSecond * PLAYBOOKS).toFixed(0)} playbooks/s over ${wallS.toFixed(1)} s`);
    log(`  submit-to-finished (client, poll every ${POLL_MS} ms): p50 ${e2e.p50.toFixed(1)} ms, p99 ${e2e.p99.toFixed(1)} ms`);
    log(`  creation-to-finished (run record's own times):     p50 ${server.p50.toFixed(1)} ms, p99 ${server.p99.toFixed(1)} ms (${server.n} runs)`);
    log(`  POST /gamebooks/run: p50 ${submit.p50.toFixed(1)} ms, p99 ${submit.p99.toFixed(1)} ms; host CPU ${hostCpuMsPerRun.toFixed(1)} ms per run`);
    if (serverMs.length !== samples.length) notes.push(`found ${serverMs.length} of ${samples.length} measured runs in the histories`);
    return {
      checks: [],
      notes,
      problems,
      runs: samples.length,
      warmupRuns: WARMUP,
      concurrency: CONCURRENCY,
      playbooksPerRun: PLAYBOOKS,
      simulatedStepDelayMs: DELAY_MS,
      pollMs: POLL_MS,
      runsPerSecond,
      playbooksPerSecond: runsPerSecond * PLAYBOOKS,
      wallSeconds: wallS,
      submitToFinishedMs: e2e,
      creationToFinishedMs: server,
      submitMs: submit,
      hostCpuMsPerRun,
      hostCpuMsTotal: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
    };
  } finally {
    await Promise.all(started.map((s) => s.stop()));
  }
}
