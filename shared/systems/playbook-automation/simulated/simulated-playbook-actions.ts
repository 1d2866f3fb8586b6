import { setTimeout as sleep } from "node:timers/promises";
import { ApiError } from "../../../platform/errors/api-error";
import type { AutomationPlaybook, PlaybookActions, PlaybookStepRequest, PlaybookStepResult } from "../port";
import { simulatedAutomationCatalogue } from "./simulated-catalogue";
import { simulateStep } from "./step-outcomes";

export interface SimulatedPlaybookActionsOptions {
  /** The demo seed: the same seed gives the same outcomes and durations. */
  seed: string;
  /** Real time each step takes here (the reported duration is simulated): enough to watch a run move. */
  delayMs: number;
  /** Steps remembered for idempotency; the oldest are forgotten past this. Default 50,000. */
  memory?: number;
}

/** One execution the simulated backend actually carried out (a repeat of a step id is not one). */
export interface SimulatedExecution {
  stepId: string;
  runId: string;
  workspaceId: string;
  referenceId: string;
  entityName: string;
  result: PlaybookStepResult;
}

/** Acting "inside" the simulated automation backend, for local controls and tests. */
export interface SimulatedAutomationConsole {
  /** Every execution carried out, oldest first. */
  executions(): readonly SimulatedExecution[];
  /**
   * From now on, steps of this playbook (by reference id) end with `outcome` instead of the simulated
   * one; `undefined` restores the simulation.
   */
  setOutcome(referenceId: string, outcome: Pick<PlaybookStepResult, "status" | "errorMessage"> | undefined): void;
  /**
   * From now on, the backend offers this workspace these actions instead of its usual ones;
   * `undefined` restores them.
   */
  setPlaybooks(workspaceId: string, playbooks: readonly AutomationPlaybook[] | undefined): void;
}

export interface SimulatedPlaybookActions {
  actions: PlaybookActions;
  console: SimulatedAutomationConsole;
}

/**
 * The local host's automation backend. Idempotent on the step id as a real one must be: a repeat
 * (a redelivered executor message, a concurrent duplicate) gets the first execution's result and
 * runs nothing.
 */
export function createSimulatedPlaybookActions(options: SimulatedPlaybookActionsOptions): SimulatedPlaybookActions {
  const memory = options.memory ?? 50_000;
  const steps = new Map<string, { request: PlaybookStepRequest; result: Promise<PlaybookStepResult> }>();
  const executions: SimulatedExecution[] = [];
  const outcomes = new Map<string, Pick<PlaybookStepResult, "status" | "errorMessage">>();
  const offered = new Map<string, readonly AutomationPlaybook[]>();

  async function run(request: PlaybookStepRequest): Promise<PlaybookStepResult> {
    // The delay is not tied to the caller's signal: a step in flight finishes in the backend even
    // when the worker that asked for it has gone, as in a real one.
    if (options.delayMs > 0) await sleep(options.delayMs);
    const simulated = simulateStep(options.seed, request);
    const forced = outcomes.get(request.playbook.referenceId);
    const result: PlaybookStepResult = forced
      ? { ...simulated, ...forced, output: forced.status === "Succeeded" ? simulated.output : {} }
      : simulated;
    executions.push({
      stepId: request.stepId,
      runId: request.runId,
      workspaceId: request.workspaceId,
      referenceId: request.playbook.referenceId,
      entityName: request.entity.name,
      result,
    });
    return result;
  }

  const actions: PlaybookActions = {
    enabled: true,
    async execute(request, signal) {
      if (signal?.aborted) throw aborted(signal);
      const known = steps.get(request.stepId);
      if (known) {
        if (!sameStep(known.request, request)) {
          throw new ApiError("CONFLICT", `Step ${request.stepId} was already started for another playbook or entity.`, { target: "stepId" });
        }
        return await abortable(known.result, signal);
      }
      const result = run(request);
      steps.set(request.stepId, { request, result });
      if (steps.size > memory) steps.delete(steps.keys().next().value!);
      return await abortable(result, signal);
    },
    async listPlaybooks(workspaceId, signal) {
      if (signal?.aborted) throw aborted(signal);
      return structuredClone([...(offered.get(workspaceId) ?? simulatedAutomationCatalogue)]);
    },
  };

  return {
    actions,
    console: {
      executions: () => executions,
      setOutcome(referenceId, outcome) {
        if (outcome) outcomes.set(referenceId, outcome);
        else outcomes.delete(referenceId);
      },
      setPlaybooks(workspaceId, playbooks) {
        if (playbooks) offered.set(workspaceId, structuredClone(playbooks));
        else offered.delete(workspaceId);
      },
    },
  };
}

function sameStep(a: PlaybookStepRequest, b: PlaybookStepRequest): boolean {
  return (
    a.runId === b.runId &&
    a.workspaceId === b.workspaceId &&
    a.playbook.referenceId === b.playbook.referenceId &&
    a.entity.id === b.entity.id &&
    a.entity.name === b.entity.name
  );
}

/** The caller stops waiting when its signal aborts; the step itself goes on. */
async function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) throw aborted(signal);
  return await new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function aborted(signal: AbortSignal): ApiError {
  return new ApiError("UPSTREAM_ERROR", "Request aborted: the caller went away while waiting for the automation backend.", { cause: signal.reason });
}
