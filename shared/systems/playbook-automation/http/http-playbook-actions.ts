import { setTimeout as sleep } from "node:timers/promises";
import { ApiError } from "../../../platform/errors/api-error";
import { createJsonHttpClient, queryString, type JsonCall } from "../../../platform/upstream/json-http-client";
import { AUTOMATION_SYSTEM, type PlaybookActions, type PlaybookStepRequest, type PlaybookStepResult } from "../port";
import { bridgePlaybookListSchema, bridgeStepSchema, type BridgeStep } from "./playbook-bridge-wire";

/**
 * The playbook-action port over the JSON contract of docs/playbook-bridge.md, which a bridge in
 * front of Logic Apps, Cortex XSOAR, StackStorm or another automation backend implements. A step is
 * started with `PUT /steps/{stepId}` (the step id is the idempotency key: a second PUT returns the
 * existing step and starts nothing) and followed with `GET /steps/{stepId}` until it has finished.
 *
 * @example
 * const actions = createHttpPlaybookActions({ baseUrl: "https://automation.example/bridge", authHeader: "Bearer …", timeoutMs: 10_000, pollIntervalMs: 2_000, stepWaitMs: 240_000 });
 * const result = await actions.execute(request);
 */
export interface HttpPlaybookActionsOptions {
  /** e.g. "https://automation.example.com/bridge" (a trailing slash is ignored). */
  baseUrl: string;
  /** Full value of the Authorization header sent to the bridge; never logged, never in errors. */
  authHeader?: string;
  /** Per request, covering the headers and the body. */
  timeoutMs: number;
  /** Pause between two reads of a step that has not finished. */
  pollIntervalMs: number;
  /**
   * How long one `execute` waits for a step to finish before it gives up with TIMEOUT. The step may
   * still be running in the backend; a later `execute` with the same step id resumes waiting on it.
   * Keep it below the function timeout, so that the executor records the TIMEOUT itself.
   */
  stepWaitMs: number;
  /** Injectable for tests; defaults to globalThis.fetch. */
  fetch?: typeof fetch;
}

export function createHttpPlaybookActions(options: HttpPlaybookActionsOptions): PlaybookActions {
  const { pollIntervalMs, stepWaitMs } = options;
  if (!Number.isInteger(pollIntervalMs) || pollIntervalMs <= 0) throw new Error("pollIntervalMs must be a positive integer.");
  if (!Number.isInteger(stepWaitMs) || stepWaitMs <= 0) throw new Error("stepWaitMs must be a positive integer.");
  const client = createJsonHttpClient({ system: AUTOMATION_SYSTEM, ...options });

  /** A step about another id is as wrong as a malformed one. */
  async function readStep(call: JsonCall, stepId: string, signal?: AbortSignal): Promise<BridgeStep> {
    const step = await client.read(call, bridgeStepSchema, signal);
    if (step.stepId !== stepId) throw client.invalid(call, "stepId does not match the request");
    return step;
  }

  return {
    enabled: true,

    async execute(request, signal) {
      const started = performance.now();
      const path = `/steps/${client.segment(request.stepId)}`;
      const about = `step ${request.stepId} (${request.playbook.referenceId} on ${request.entity.type} ${request.entity.name}) of run ${request.runId}`;
      let step = await readStep({ method: "PUT", path, body: startBody(request), what: `starting ${about}` }, request.stepId, signal);
      while (step.status === "Queued" || step.status === "Running") {
        const waited = performance.now() - started;
        if (waited + pollIntervalMs > stepWaitMs) {
          throw new ApiError(
            "TIMEOUT",
            `${AUTOMATION_SYSTEM} did not finish ${about} within ${stepWaitMs} ms; it may still be running, and asking again with the same step id resumes waiting for it.`,
          );
        }
        try {
          await sleep(pollIntervalMs, undefined, { signal });
        } catch (error) {
          throw new ApiError("UPSTREAM_ERROR", `Request aborted: the caller went away while waiting for ${about} at ${AUTOMATION_SYSTEM}.`, { cause: error });
        }
        step = await readStep({ method: "GET", path, what: `reading ${about}` }, request.stepId, signal);
      }
      return resultOf(step, performance.now() - started);
    },

    async listPlaybooks(workspaceId, signal) {
      const call: JsonCall = { method: "GET", path: `/playbooks${queryString([["workspaceId", workspaceId]])}`, what: `listing the playbooks of workspace ${workspaceId}` };
      const { playbooks } = await client.read(call, bridgePlaybookListSchema, signal);
      return playbooks;
    },
  };
}

/** The PUT body: everything but the step id, which is the path. */
function startBody(request: PlaybookStepRequest) {
  const { stepId: _stepId, ...body } = request;
  return body;
}

function resultOf(step: BridgeStep, measuredMs: number): PlaybookStepResult {
  // The backend's own times say how long the action ran; without them, how long we waited is the
  // closest we know (it includes queueing and polling).
  const durationMs =
    step.startedAt !== null && step.finishedAt !== null ? Date.parse(step.finishedAt) - Date.parse(step.startedAt) : Math.round(measuredMs);
  return step.status === "Succeeded"
    ? { status: "Succeeded", errorMessage: null, output: step.output, durationMs }
    : { status: "Failed", errorMessage: step.errorMessage!.trim(), output: step.output, durationMs };
}
