import { ApiError } from "../../platform/errors/api-error";
import type { PlaybookStepResult } from "../../systems/playbook-automation/port";
import { gamebookRunStatuses, playbookStatuses, type GamebookRunStatus, type PlaybookStatus } from "../../model/gamebooks/gamebook-run";

/**
 * The life of a gamebook run and of its playbooks, as pure functions of the run (the transition
 * table is in docs/decisions.md, Gamebooks). The contract shows only `Pending`; the other values
 * follow StackStorm, Cortex XSOAR and Logic Apps.
 *
 * `Pending` is a run that has not started. With `isQueued` true it waits for approval (docs/contract.md §4.1
 * rule 3); with `isQueued` false it has been dispatched and waits for the executor. A failed
 * playbook stops the run: the playbooks after it are `Skipped`, and the run is `Failed` when nothing
 * had succeeded before, `PartiallySucceeded` when something had (some containment is in place, and
 * its recover playbooks may be needed).
 */
export const runStatuses = gamebookRunStatuses;
export type RunStatus = GamebookRunStatus;

export const finalRunStatuses: readonly RunStatus[] = ["Succeeded", "PartiallySucceeded", "Failed", "Denied", "Cancelled"];

export { playbookStatuses };
export type { PlaybookStatus };

/** The fields of a playbook entry (docs/contract.md §2.6) that running changes. Unset times are "". */
export interface PlaybookRunState {
  sequence: number;
  status: PlaybookStatus;
  startingDate: string;
  finishingDate: string;
  executionTime: string;
  errorMessage: string;
  modificationDate: string;
}

/** The fields of a run (docs/contract.md §2.6) that running changes; the functions keep every other field. */
export interface RunState {
  status: RunStatus;
  isQueued: boolean;
  modificationDate: string;
  playbooks: readonly PlaybookRunState[];
}

export function isFinal(status: RunStatus): boolean {
  return finalRunStatuses.includes(status);
}

/** A new run: `Pending`, waiting for approval or dispatched, every playbook `Pending`. */
export function initialRunState(sequences: readonly number[], awaitsApproval: boolean, at: string): RunState {
  return {
    status: "Pending",
    isQueued: awaitsApproval,
    modificationDate: at,
    playbooks: [...sequences]
      .sort((a, b) => a - b)
      .map((sequence) => ({ sequence, status: "Pending", startingDate: "", finishingDate: "", executionTime: "", errorMessage: "", modificationDate: at })),
  };
}

/** What the executor does with a run it is handed. */
export type NextStep =
  /** Begin (or, after a crash, resume) this playbook; a resumed one keeps its step id, so nothing runs twice. */
  | { kind: "execute"; sequence: number; resumed: boolean }
  /** Approval has not been given: the run must not execute. */
  | { kind: "awaiting-approval" }
  /** Nothing left to do. */
  | { kind: "finished" };

export function nextStep(run: RunState): NextStep {
  if (run.status === "Pending" && run.isQueued) return { kind: "awaiting-approval" };
  // A cancelled run's in-flight playbook is still awaited, so that its outcome is recorded.
  const running = run.playbooks.find((p) => p.status === "Running");
  if (running) return { kind: "execute", sequence: running.sequence, resumed: true };
  if (isFinal(run.status)) return { kind: "finished" };
  const pending = lowestPending(run);
  return pending ? { kind: "execute", sequence: pending.sequence, resumed: false } : { kind: "finished" };
}

/** The playbook starts (the run too, if it is its first): both `Running`. Resuming keeps the first start time. */
export function beginStep<R extends RunState>(run: R, sequence: number, at: string): R {
  const playbook = playbookOf(run, sequence);
  if (playbook.status === "Running") return run;
  const dispatched = (run.status === "Pending" && !run.isQueued) || run.status === "Running";
  if (!dispatched) throw conflict(run, "start a playbook");
  if (playbook.status !== "Pending" || lowestPending(run)?.sequence !== sequence) {
    throw new ApiError("CONFLICT", `Playbook ${sequence} is not the next to run.`, { target: "sequence" });
  }
  return {
    ...run,
    status: "Running",
    modificationDate: at,
    playbooks: run.playbooks.map((p) => (p.sequence === sequence ? { ...p, status: "Running", startingDate: at, modificationDate: at } : p)),
  };
}

/** The outcome of a step, as the executor records it: the port's result or the incident path's. */
export type StepResult = Pick<PlaybookStepResult, "status" | "errorMessage" | "durationMs">;

/**
 * The run after its running playbook finished. Success moves on (or ends the run `Succeeded` after
 * the last playbook); failure skips the rest and ends the run `Failed` or `PartiallySucceeded`. A
 * result for a playbook that has already finished changes nothing (a redelivered message).
 */
export function advance<R extends RunState>(run: R, sequence: number, result: StepResult, at: string): R {
  const playbook = playbookOf(run, sequence);
  if (playbook.status === "Succeeded" || playbook.status === "Failed") return run;
  if (playbook.status !== "Running") throw new ApiError("CONFLICT", `Playbook ${sequence} is ${playbook.status}, not running.`, { target: "sequence" });
  const failed = result.status === "Failed";
  const finished: PlaybookRunState = {
    ...playbook,
    status: result.status,
    finishingDate: at,
    executionTime: formatExecutionTime(result.durationMs),
    errorMessage: failed ? result.errorMessage?.trim() || "The playbook failed without saying why." : "",
    modificationDate: at,
  };
  let playbooks = run.playbooks.map((p) => (p.sequence === sequence ? { ...p, ...finished } : p));
  let status: RunStatus = run.status;
  if (run.status === "Running") {
    if (failed) {
      playbooks = playbooks.map((p) => (p.status === "Pending" ? { ...p, status: "Skipped", modificationDate: at } : p));
      status = playbooks.some((p) => p.status === "Succeeded") ? "PartiallySucceeded" : "Failed";
    } else if (!playbooks.some((p) => p.status === "Pending")) {
      status = "Succeeded";
    }
  }
  return { ...run, status, modificationDate: at, playbooks };
}

/** Approval (a person in the portal only): the waiting run is dispatched. */
export function approveRun<R extends RunState>(run: R, at: string): R {
  if (run.status !== "Pending" || !run.isQueued) throw conflict(run, "be approved");
  return { ...run, isQueued: false, modificationDate: at };
}

/**
 * An approval that is not yet enough (the first of two): the run keeps waiting, unchanged but for
 * its modification time.
 */
export function recordApproval<R extends RunState>(run: R, at: string): R {
  if (run.status !== "Pending" || !run.isQueued) throw conflict(run, "be approved");
  return { ...run, modificationDate: at };
}

/** Denial (portal only, or the approval's expiry): the waiting run ends `Denied`; none of its playbooks runs. */
export function denyRun<R extends RunState>(run: R, at: string): R {
  if (run.status !== "Pending" || !run.isQueued) throw conflict(run, "be denied");
  return { ...run, status: "Denied", modificationDate: at, playbooks: skipPending(run.playbooks, at) };
}

/**
 * Cancellation (portal only): a run that has not finished ends `Cancelled`. Playbooks not yet started
 * are skipped; one already running in the backend cannot be called back, and its outcome is still
 * recorded when it arrives.
 */
export function cancelRun<R extends RunState>(run: R, at: string): R {
  if (run.status !== "Pending" && run.status !== "Running") throw conflict(run, "be cancelled");
  return { ...run, status: "Cancelled", modificationDate: at, playbooks: skipPending(run.playbooks, at) };
}

/** docs/contract.md §2.6 `executionTime`: `hh:mm:ss`, with `.fff` when there are milliseconds (like .NET's TimeSpan). */
export function formatExecutionTime(durationMs: number): string {
  const total = Math.max(0, Math.round(Number.isFinite(durationMs) ? durationMs : 0));
  const ms = total % 1000;
  const seconds = Math.floor(total / 1000) % 60;
  const minutes = Math.floor(total / 60_000) % 60;
  const hours = Math.floor(total / 3_600_000);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(hours)}:${two(minutes)}:${two(seconds)}${ms === 0 ? "" : `.${String(ms).padStart(3, "0")}`}`;
}

function lowestPending(run: RunState): PlaybookRunState | undefined {
  let lowest: PlaybookRunState | undefined;
  for (const p of run.playbooks) if (p.status === "Pending" && (!lowest || p.sequence < lowest.sequence)) lowest = p;
  return lowest;
}

function playbookOf(run: RunState, sequence: number): PlaybookRunState {
  const playbook = run.playbooks.find((p) => p.sequence === sequence);
  if (!playbook) throw new ApiError("NOT_FOUND", `The run has no playbook ${sequence}.`, { target: "sequence" });
  return playbook;
}

function skipPending<P extends PlaybookRunState>(playbooks: readonly P[], at: string): P[] {
  return playbooks.map((p) => (p.status === "Pending" ? { ...p, status: "Skipped", modificationDate: at } : p));
}

function conflict(run: RunState, what: string): ApiError {
  const state = run.status === "Pending" ? (run.isQueued ? "waiting for approval" : "dispatched") : run.status;
  return new ApiError("CONFLICT", `The gamebook run is ${state}: it cannot ${what}.`, { target: "status" });
}
