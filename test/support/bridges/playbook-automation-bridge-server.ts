import { setImmediate } from "node:timers/promises";
import { z } from "zod";
import { notFound } from "../../../shared/platform/errors/api-error";
import type { PlaybookActions, PlaybookStepRequest, PlaybookStepResult } from "../../../shared/systems/playbook-automation/port";
import { automationEntityTypes } from "../../../shared/model/gamebooks/playbook-catalogue-record";
import { sources } from "../../../shared/model/sources";
import type { FakeHttpServer } from "../fake-http-server";
import { BadBridgeRequest, jsonBody, methodNotAllowed, noRoute, startBridgeServer, type BridgeAnswer, type BridgeRequest } from "./bridge-server";

/**
 * A playbook bridge (docs/playbook-bridge.md) in front of an automation backend given as the port
 * (the simulated automation): `PUT <base>/steps/{stepId}` starts a step and answers at once (201, or
 * 200 for a step id it knows), `GET <base>/steps/{stepId}` reads it, `GET <base>/playbooks?workspaceId=`
 * lists the actions the backend offers the workspace. The backend decides idempotency
 * and conflicts: every PUT is handed to it, and a step it refuses is answered with the doc's status.
 */
export interface PlaybookBridge {
  server: FakeHttpServer;
  /** `<origin>/bridge`. */
  baseUrl: string;
  close(): Promise<void>;
}

const stepRequestSchema = z.object({
  workspaceId: z.string(),
  runId: z.string(),
  incident: z.object({ source: z.enum(sources), id: z.string(), number: z.number().int().nullable(), title: z.string() }),
  playbook: z.object({ id: z.string(), referenceId: z.string(), name: z.string() }),
  entity: z.object({ id: z.string(), type: z.enum(automationEntityTypes), name: z.string() }),
  parameters: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
});

interface StepState {
  startedAt: string;
  result?: PlaybookStepResult;
  /** The backend lost the step (its promise rejected): reported as a failed step. */
  lost?: string;
}

type Settled<T> = { kind: "done"; value: T } | { kind: "error"; error: unknown } | { kind: "pending" };

/** How a promise stands once the work it started synchronously has had its turn. */
async function settledNow<T>(promise: Promise<T>): Promise<Settled<T>> {
  return Promise.race([
    promise.then(
      (value): Settled<T> => ({ kind: "done", value }),
      (error: unknown): Settled<T> => ({ kind: "error", error }),
    ),
    setImmediate<Settled<T>>({ kind: "pending" }),
  ]);
}

export async function startPlaybookBridge(actions: PlaybookActions, options: { authHeader?: string } = {}): Promise<PlaybookBridge> {
  const steps = new Map<string, StepState>();

  /** The Step record of section 3; a finished step's times span the duration the backend reported. */
  const view = (stepId: string, state: StepState) => {
    if (state.lost !== undefined) {
      return { stepId, status: "Failed", errorMessage: state.lost, output: {}, startedAt: state.startedAt, finishedAt: state.startedAt };
    }
    const result = state.result;
    if (!result) return { stepId, status: "Running", errorMessage: null, output: {}, startedAt: state.startedAt, finishedAt: null };
    const finishedAt = new Date(Date.parse(state.startedAt) + result.durationMs).toISOString();
    return { stepId, status: result.status, errorMessage: result.errorMessage, output: result.output, startedAt: state.startedAt, finishedAt };
  };

  async function route(request: BridgeRequest): Promise<BridgeAnswer> {
    const [base, kind, stepId, ...rest] = request.segments;
    if (base === "bridge" && kind === "playbooks" && stepId === undefined) {
      if (request.method !== "GET") methodNotAllowed();
      const workspaceId = request.query.get("workspaceId");
      if (!workspaceId) throw new BadBridgeRequest("workspaceId is required.");
      return { status: 200, body: { playbooks: await actions.listPlaybooks(workspaceId) } };
    }
    if (base !== "bridge" || kind !== "steps" || stepId === undefined || rest.length > 0) noRoute();

    if (request.method === "GET") {
      const state = steps.get(stepId);
      if (!state) throw notFound(`Step ${stepId}`, "stepId");
      return { status: 200, body: view(stepId, state) };
    }
    if (request.method !== "PUT") methodNotAllowed();

    const step: PlaybookStepRequest = { ...jsonBody(request.body, stepRequestSchema), stepId };
    // No caller's signal: the step runs on in the backend whoever stops waiting for it.
    const execution = actions.execute(step);
    const now = await settledNow(execution);
    if (now.kind === "error") throw now.error;

    let state = steps.get(stepId);
    const known = state !== undefined;
    if (!state) {
      const started: StepState = { startedAt: new Date().toISOString() };
      execution.then(
        (result) => (started.result = result),
        (error: unknown) => (started.lost = `The automation backend lost the step: ${error instanceof Error ? error.message : String(error)}`),
      );
      steps.set(stepId, started);
      state = started;
    }
    if (now.kind === "done") state.result = now.value;
    return { status: known ? 200 : 201, body: view(stepId, state) };
  }

  const server = await startBridgeServer(route, options);
  return { server, baseUrl: `${server.origin}/bridge`, close: () => server.close() };
}
