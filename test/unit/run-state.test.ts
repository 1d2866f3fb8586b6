import { describe, expect, it } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import {
  advance,
  approveRun,
  beginStep,
  cancelRun,
  denyRun,
  formatExecutionTime,
  initialRunState,
  nextStep,
  type RunState,
  type StepResult,
} from "../../shared/domain/gamebooks/run-state";
import { playbookStepId, sequenceProblems } from "../../shared/domain/gamebooks/run-sequence";

const t0 = "2026-03-01T10:00:00.000Z";
const t1 = "2026-03-01T10:00:05.000Z";
const t2 = "2026-03-01T10:00:09.000Z";
const t3 = "2026-03-01T10:00:20.000Z";
const ok: StepResult = { status: "Succeeded", errorMessage: null, durationMs: 4_250 };
const failed = (message = "The account is synchronised from on-premises."): StepResult => ({ status: "Failed", errorMessage: message, durationMs: 1_000 });

const dispatched = (n = 3) => initialRunState(Array.from({ length: n }, (_, i) => i + 1), false, t0);
const statuses = (run: RunState) => run.playbooks.map((p) => p.status);

/** Runs the next step with `result`, as the executor would. */
function step(run: RunState, result: StepResult, at = t2): RunState {
  const next = nextStep(run);
  if (next.kind !== "execute") throw new Error(`nothing to execute: ${next.kind}`);
  return advance(beginStep(run, next.sequence, t1), next.sequence, result, at);
}

function conflict(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("CONFLICT");
    return error as ApiError;
  }
  throw new Error("expected a CONFLICT");
}

describe("a gamebook run's states", () => {
  it("starts Pending, queued for approval or dispatched, with every playbook Pending in sequence order", () => {
    const queued = initialRunState([2, 1], true, t0);
    expect(queued).toMatchObject({ status: "Pending", isQueued: true, modificationDate: t0 });
    expect(queued.playbooks.map((p) => [p.sequence, p.status, p.startingDate])).toEqual([[1, "Pending", ""], [2, "Pending", ""]]);
    expect(nextStep(queued)).toEqual({ kind: "awaiting-approval" });
    expect(nextStep(dispatched())).toEqual({ kind: "execute", sequence: 1, resumed: false });
  });

  it("runs the playbooks in sequence and ends Succeeded after the last", () => {
    let run = dispatched(2);
    const begun = beginStep(run, 1, t1);
    expect(begun.status).toBe("Running");
    expect(begun.playbooks[0]).toMatchObject({ status: "Running", startingDate: t1, finishingDate: "" });
    run = advance(begun, 1, ok, t2);
    expect(run.status).toBe("Running");
    expect(run.playbooks[0]).toMatchObject({ status: "Succeeded", finishingDate: t2, executionTime: "00:00:04.250", errorMessage: "" });
    expect(nextStep(run)).toEqual({ kind: "execute", sequence: 2, resumed: false });
    run = step(run, ok, t3);
    expect(run).toMatchObject({ status: "Succeeded", modificationDate: t3 });
    expect(statuses(run)).toEqual(["Succeeded", "Succeeded"]);
    expect(nextStep(run)).toEqual({ kind: "finished" });
  });

  it("ends Failed when the first playbook fails, and skips the rest", () => {
    const run = step(dispatched(3), failed("Unable to update on-premises mastered objects."));
    expect(run.status).toBe("Failed");
    expect(statuses(run)).toEqual(["Failed", "Skipped", "Skipped"]);
    expect(run.playbooks[0]!.errorMessage).toBe("Unable to update on-premises mastered objects.");
    expect(nextStep(run)).toEqual({ kind: "finished" });
  });

  it("ends PartiallySucceeded when a playbook fails after another succeeded", () => {
    const run = step(step(dispatched(3), ok), failed());
    expect(run.status).toBe("PartiallySucceeded");
    expect(statuses(run)).toEqual(["Succeeded", "Failed", "Skipped"]);
  });

  it("records a failure without a message as a failure that says so", () => {
    const run = step(dispatched(1), { status: "Failed", errorMessage: "  ", durationMs: 0 });
    expect(run.playbooks[0]!.errorMessage).toBe("The playbook failed without saying why.");
  });

  it("resumes a playbook left Running by a worker that died, keeping its start time", () => {
    const crashed = beginStep(dispatched(2), 1, t1);
    expect(nextStep(crashed)).toEqual({ kind: "execute", sequence: 1, resumed: true });
    const resumed = beginStep(crashed, 1, t3);
    expect(resumed).toBe(crashed);
    expect(resumed.playbooks[0]!.startingDate).toBe(t1);
  });

  it("ignores a second result for a playbook that has finished (a redelivered message)", () => {
    const once = step(dispatched(2), ok);
    expect(advance(once, 1, failed(), t3)).toBe(once);
  });

  it("refuses to start a playbook out of order, or a result for one that is not running", () => {
    expect(conflict(() => beginStep(dispatched(3), 2, t1)).message).toMatch(/not the next/);
    expect(conflict(() => advance(dispatched(3), 1, ok, t1)).message).toMatch(/Pending, not running/);
  });

  it("never starts a run that waits for approval", () => {
    expect(conflict(() => beginStep(initialRunState([1], true, t0), 1, t1)).message).toBe("The gamebook run is waiting for approval: it cannot start a playbook.");
  });

  it("dispatches on approval and ends Denied on denial, running nothing", () => {
    const queued = initialRunState([1, 2], true, t0);
    const approved = approveRun(queued, t1);
    expect(approved).toMatchObject({ status: "Pending", isQueued: false, modificationDate: t1 });
    expect(nextStep(approved)).toEqual({ kind: "execute", sequence: 1, resumed: false });

    const denied = denyRun(queued, t1);
    expect(denied.status).toBe("Denied");
    expect(statuses(denied)).toEqual(["Skipped", "Skipped"]);
    expect(nextStep(denied)).toEqual({ kind: "finished" });
  });

  it("approves or denies only a run that waits for approval", () => {
    expect(conflict(() => approveRun(dispatched(), t1)).message).toBe("The gamebook run is dispatched: it cannot be approved.");
    const done = step(dispatched(1), ok);
    expect(conflict(() => denyRun(done, t3)).message).toBe("The gamebook run is Succeeded: it cannot be denied.");
    expect(conflict(() => approveRun(denyRun(initialRunState([1], true, t0), t1), t2)).message).toMatch(/Denied/);
  });

  it("cancels a pending run, skipping every playbook", () => {
    const cancelled = cancelRun(initialRunState([1, 2], true, t0), t1);
    expect(cancelled.status).toBe("Cancelled");
    expect(statuses(cancelled)).toEqual(["Skipped", "Skipped"]);
    expect(nextStep(cancelled)).toEqual({ kind: "finished" });
  });

  it("cancels a running run, still awaiting and recording the playbook already in flight", () => {
    const inFlight = beginStep(step(dispatched(3), ok), 2, t1);
    const cancelled = cancelRun(inFlight, t2);
    expect(cancelled.status).toBe("Cancelled");
    expect(statuses(cancelled)).toEqual(["Succeeded", "Running", "Skipped"]);
    expect(nextStep(cancelled)).toEqual({ kind: "execute", sequence: 2, resumed: true });
    const recorded = advance(cancelled, 2, ok, t3);
    expect(recorded.status).toBe("Cancelled");
    expect(statuses(recorded)).toEqual(["Succeeded", "Succeeded", "Skipped"]);
    expect(nextStep(recorded)).toEqual({ kind: "finished" });
  });

  it("cannot cancel a run that has ended", () => {
    expect(conflict(() => cancelRun(step(dispatched(1), failed()), t3)).message).toBe("The gamebook run is Failed: it cannot be cancelled.");
  });

  it("keeps every other field of the record it is given", () => {
    const record = { ...dispatched(1), id: "run-1", title: "Contain a compromised account", playbooks: [{ ...dispatched(1).playbooks[0]!, name: "Reset user password" }] };
    const done = step(record, ok) as typeof record;
    expect(done).toMatchObject({ id: "run-1", title: "Contain a compromised account", status: "Succeeded" });
    expect(done.playbooks[0]).toMatchObject({ name: "Reset user password", status: "Succeeded" });
  });

  it("answers NOT_FOUND for a sequence the run does not have", () => {
    expect(() => beginStep(dispatched(2), 3, t1)).toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
  });
});

describe("formatExecutionTime", () => {
  it.each([
    [0, "00:00:00"],
    [60_000, "00:01:00"],
    [4_250, "00:00:04.250"],
    [3_723_004, "01:02:03.004"],
    [90_000_000, "25:00:00"],
    [-5, "00:00:00"],
    [Number.NaN, "00:00:00"],
  ])("%d ms → %s", (ms, text) => {
    expect(formatExecutionTime(ms)).toBe(text);
  });
});

describe("sequenceProblems", () => {
  it("accepts exactly 1..N in any order", () => {
    expect(sequenceProblems([3, 1, 2])).toEqual([]);
    expect(sequenceProblems([1])).toEqual([]);
  });

  it("names a repeated sequence and the number it left out", () => {
    expect(sequenceProblems([1, 2, 2])).toEqual([
      { path: "playbooks[2].sequence", message: "Sequence 2 is used more than once." },
      { path: "playbooks", message: "Sequences must be exactly 1..3; missing: 3." },
    ]);
  });

  it("names every sequence outside 1..N, gaps included", () => {
    expect(sequenceProblems([0, 1, 5])).toEqual([
      { path: "playbooks[0].sequence", message: "Must be between 1 and 3, the number of playbooks." },
      { path: "playbooks[2].sequence", message: "Must be between 1 and 3, the number of playbooks." },
      { path: "playbooks", message: "Sequences must be exactly 1..3; missing: 2, 3." },
    ]);
    expect(sequenceProblems([1, 1.5]).map((p) => p.path)).toEqual(["playbooks[1].sequence", "playbooks"]);
  });
});

describe("playbookStepId", () => {
  it("is the same for the same run and sequence, and differs otherwise", () => {
    expect(playbookStepId("run-1", 1)).toBe(playbookStepId("run-1", 1));
    expect(new Set([playbookStepId("run-1", 1), playbookStepId("run-1", 2), playbookStepId("run-2", 1)]).size).toBe(3);
    expect(playbookStepId("run-1", 1)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
