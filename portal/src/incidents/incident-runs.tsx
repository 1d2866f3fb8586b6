import { useEffect, useState } from "preact/hooks";
import { api, call } from "../api/client";
import { useMe } from "../session";
import { Empty, useInterval } from "../ui";
import { IncidentPath, Run } from "./run-types";
import { RunPlaybookForm } from "./run-playbook-form";
import { RunCard } from "./run-card";

/** How often runs that have not ended are read again, so that steps show their outcomes as they come. */
const FOLLOW_MS = 3000;
const FINAL = ["Succeeded", "PartiallySucceeded", "Failed", "Denied", "Cancelled"];

const newestActivityFirst = (a: Run, b: Run) => b.lastActivityAt.localeCompare(a.lastActivityAt) || b.createdAt.localeCompare(a.createdAt);

async function readRun(workspaceId: string, runId: string): Promise<Run> {
  return (await call(api.GET("/api/v2/portal/workspaces/{workspaceId}/gamebook-runs/{runId}", { params: { path: { workspaceId, runId } } }))).data;
}

/**
 * Every playbook run on an incident (newest activity first) with who asked, who decided and each
 * step's outcome; Retry, Cancel and Undo where the person may; and "Run a playbook", which shows
 * whether the run will wait for approval before it is submitted. Runs that have not ended are
 * followed until they do.
 */
export function IncidentRuns(props: { path: IncidentPath; runs: readonly Run[] }) {
  const me = useMe();
  const { workspaceId } = props.path;
  const mayAct = me.workspaceRoles.some((r) => r.workspaceId === workspaceId && (r.role === "Analyst" || r.role === "Owner"));
  const [runs, setRuns] = useState<Run[]>(() => [...props.runs]);
  const [running, setRunning] = useState(false);
  const [said, setSaid] = useState("");
  useEffect(() => setRuns([...props.runs]), [props.runs]);

  const put = (...updated: Run[]) =>
    setRuns((list) => {
      const byId = new Map(list.map((r) => [r.id, r]));
      for (const r of updated) byId.set(r.id, r);
      return [...byId.values()].sort(newestActivityFirst);
    });
  /** After a run is made from another (a retry, an undo), the other changes too: its links and what may be done with it. */
  const made = async (run: Run, from?: string) => {
    put(run, ...(from ? [await readRun(workspaceId, from)] : []));
    setSaid(`${run.title}: ${run.summary}`);
  };

  useInterval(() => {
    const open = runs.filter((r) => !FINAL.includes(r.status));
    if (open.length > 0) void Promise.all(open.map((r) => readRun(workspaceId, r.id).catch(() => r))).then((fresh) => put(...fresh));
  }, FOLLOW_MS);

  return (
    <section class="incident-runs" aria-labelledby="runs-heading">
      <div class="section-header">
        <h2 id="runs-heading">Playbook runs</h2>
        {mayAct && !running && (
          <button type="button" class="button" data-open-run-form onClick={() => setRunning(true)}>
            Run a playbook
          </button>
        )}
      </div>
      {!mayAct && <p class="muted">Running playbooks here needs the Analyst or Owner role on this workspace.</p>}
      <p class="visually-hidden" aria-live="polite">
        {said}
      </p>
      {running && (
        <RunPlaybookForm
          path={props.path}
          onDone={async (run) => {
            setRunning(false);
            if (run) await made(run);
          }}
        />
      )}
      {runs.length === 0 ? (
        <Empty>No playbook has run on this incident.</Empty>
      ) : (
        <ol class="cards" aria-label="Playbook runs, newest activity first">
          {runs.map((run) => (
            <li key={run.id}>
              <RunCard workspaceId={workspaceId} run={run} onChange={put} onMade={made} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

// "Run a playbook": choose, fill in, preview, submit.

