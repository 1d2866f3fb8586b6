import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ApiError } from "../../shared/platform/errors/api-error";
import { createHttpPlaybookActions, type HttpPlaybookActionsOptions } from "../../shared/systems/playbook-automation/http/http-playbook-actions";
import type { PlaybookStepRequest } from "../../shared/systems/playbook-automation/port";
import { apiErrorOf } from "../support/api-error-of";
import { sendJson, startFakeHttpServer, type FakeHttpServer } from "../support/fake-http-server";

// A fake automation bridge on node:http that keeps to docs/playbook-bridge.md: steps by id, started
// once, advancing one state per read, with a few playbooks that behave in set ways.

const AUTH = "Bearer automation-bridge-s3cret";
const LEAK = "internal-xsoar-api-key-hunter2"; // in every error body the fake sends

interface FakeStep {
  stepId: string;
  body: string;
  status: "Queued" | "Running" | "Succeeded" | "Failed";
  reads: number;
  startedAt: string | null;
  finishedAt: string | null;
  errorMessage: string | null;
  output: Record<string, unknown>;
}

let fake: FakeHttpServer;
let base: string;
const steps = new Map<string, FakeStep>();
let executions = 0;
const seen: ApiError[] = [];


const view = (s: FakeStep) => ({ stepId: s.stepId, status: s.status, errorMessage: s.errorMessage, output: s.output, startedAt: s.startedAt, finishedAt: s.finishedAt, extra: "ignored" });

/** Moves a step one state on: Queued → Running → its end, by playbook reference. */
function progress(step: FakeStep) {
  const reference = (JSON.parse(step.body) as PlaybookStepRequest).playbook.referenceId;
  if (reference === "never-ends") return;
  if (step.status === "Queued") {
    step.status = "Running";
    step.startedAt = "2026-03-01T10:00:00.000Z";
  } else if (step.status === "Running") {
    step.finishedAt = "2026-03-01T10:00:42.500Z";
    if (reference === "reset-password") {
      step.status = "Failed";
      step.errorMessage = "  Password writeback is not enabled for this tenant.  ";
    } else {
      step.status = "Succeeded";
      step.output = { ruleName: "SOC-Block-203.0.113.7", devices: 3, blocked: true, note: null };
    }
  }
}

function route(req: IncomingMessage, res: ServerResponse, body: string) {
  if (req.headers.authorization !== AUTH) return sendJson(res, 401, { error: LEAK });
  const match = /^\/bridge\/steps\/([^/]+)$/.exec(new URL(req.url ?? "/", "http://fake").pathname);
  if (!match) return sendJson(res, 404, { error: LEAK });
  const stepId = decodeURIComponent(match[1]!);
  const existing = steps.get(stepId);
  if (req.method === "PUT") {
    if (existing) return existing.body === body ? sendJson(res, 200, view(existing)) : sendJson(res, 409, { error: LEAK });
    executions++;
    const reference = (JSON.parse(body) as PlaybookStepRequest).playbook.referenceId;
    const step: FakeStep = { stepId, body, status: "Queued", reads: 0, startedAt: null, finishedAt: null, errorMessage: null, output: {} };
    if (reference === "instant") Object.assign(step, { status: "Succeeded", startedAt: "2026-03-01T10:00:00.000Z", finishedAt: "2026-03-01T10:00:01.250Z", output: { done: true } });
    steps.set(stepId, step);
    return sendJson(res, 201, view(step));
  }
  if (req.method === "GET") {
    if (!existing) return sendJson(res, 404, { error: LEAK });
    existing.reads++;
    progress(existing);
    return sendJson(res, 200, view(existing));
  }
  return sendJson(res, 405, { error: LEAK });
}

let counter = 0;
function request(referenceId: string, extra: Partial<PlaybookStepRequest> = {}): PlaybookStepRequest {
  counter++;
  return {
    workspaceId: "8d2f0c4e-1b7a-4f5e-9c3d-2a6b8e0f1c4d",
    incident: { source: "SourceB", id: "INC-7", number: 7, title: "Brute force attack against ann@contoso.example" },
    playbook: { id: `pb-${referenceId}`, referenceId, name: `Playbook ${referenceId}` },
    entity: { id: "e2", type: "Ip", name: "203.0.113.7" },
    parameters: { expiresInHours: 24 },
    runId: "run-1",
    stepId: `step ${counter}/ü`,
    ...extra,
  };
}

function actions(extra: Partial<HttpPlaybookActionsOptions> = {}) {
  return createHttpPlaybookActions({ baseUrl: `${base}/bridge/`, authHeader: AUTH, timeoutMs: 2000, pollIntervalMs: 5, stepWaitMs: 2000, ...extra });
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await apiErrorOf(promise);
  seen.push(error);
  return error;
}

beforeAll(async () => {
  fake = await startFakeHttpServer(route);
  base = `${fake.origin}`;
});

afterAll(() => fake.close());

beforeEach(() => {
  fake.reset();
  executions = 0;
});

describe("HTTP playbook actions: running a step", () => {
  it("starts the step with PUT on its encoded id, sends the step without its id, and polls until it ends", async () => {
    const step = request("block-ip");
    const result = await actions().execute(step);
    expect(result).toEqual({
      status: "Succeeded",
      errorMessage: null,
      output: { ruleName: "SOC-Block-203.0.113.7", devices: 3, blocked: true, note: null },
      durationMs: 42_500,
    });
    const encoded = `/bridge/steps/${encodeURIComponent(step.stepId)}`;
    expect(fake.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`PUT ${encoded}`, `GET ${encoded}`, `GET ${encoded}`]);
    const { stepId: _id, ...sent } = step;
    expect(JSON.parse(fake.requests[0]!.body)).toEqual(sent);
    expect(fake.requests[0]!.headers["content-type"]).toBe("application/json");
    for (const r of fake.requests) expect(r.headers.authorization).toBe(AUTH);
  });

  it("never starts a step twice: the same step id again gets the finished step without a new execution", async () => {
    const step = request("block-ip");
    const first = await actions().execute(step);
    const again = await actions().execute({ ...step });
    expect(again).toEqual(first);
    expect(executions).toBe(1);
    expect(fake.requests.filter((r) => r.method === "PUT")).toHaveLength(2);
    expect(fake.requests.at(-1)!.method).toBe("PUT"); // already finished: no polling
  });

  it("does not poll a step that the bridge finished in its answer to the PUT", async () => {
    expect(await actions().execute(request("instant"))).toEqual({ status: "Succeeded", errorMessage: null, output: { done: true }, durationMs: 1250 });
    expect(fake.requests).toHaveLength(1);
  });

  it("returns a step that ran and failed as a Failed result with the bridge's reason, not as an error", async () => {
    expect(await actions().execute(request("reset-password"))).toEqual({
      status: "Failed",
      errorMessage: "Password writeback is not enabled for this tenant.",
      output: {},
      durationMs: 42_500,
    });
  });

  it("measures the duration itself when the bridge gives no times", async () => {
    fake.override((req, res) => sendJson(res, 200, { stepId: decodeURIComponent(req.url!.split("/").pop()!), status: "Succeeded", errorMessage: null, output: {}, startedAt: null, finishedAt: null }));
    const result = await actions().execute(request("anything"));
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(result.durationMs).toBeLessThan(2000);
  });

  it("gives up with TIMEOUT after the step wait, and a later call with the same id resumes without a second execution", async () => {
    const step = request("never-ends");
    const started = Date.now();
    const error = await failure(actions({ stepWaitMs: 100, pollIntervalMs: 20 }).execute(step));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error.code).toBe("TIMEOUT");
    expect(error.message).toBe(
      `Playbook automation did not finish step ${step.stepId} (never-ends on Ip 203.0.113.7) of run run-1 within 100 ms; it may still be running, and asking again with the same step id resumes waiting for it.`,
    );
    const fake = steps.get(step.stepId)!;
    fake.status = "Succeeded";
    fake.finishedAt = "2026-03-01T10:05:00.000Z";
    fake.startedAt = "2026-03-01T10:00:00.000Z";
    expect(await actions().execute(step)).toMatchObject({ status: "Succeeded", durationMs: 300_000 });
    expect(executions).toBe(1);
  });

  it("stops waiting when the caller aborts, with an ApiError", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(actions({ pollIntervalMs: 20 }).execute(request("never-ends"), controller.signal));
    expect(error.code).toBe("UPSTREAM_ERROR");
    // Between two reads or during one, depending on when the abort lands.
    expect(error.message).toMatch(/^Request aborted: the caller went away while (waiting for|reading) step .* at Playbook automation\.$/);
  });
});

describe("HTTP playbook actions: failures", () => {
  const answer = (status: number, headers: Record<string, string> = {}) => (_req: IncomingMessage, res: ServerResponse) =>
    sendJson(res, status, { error: LEAK }, headers);

  it.each([
    [409, "CONFLICT"],
    [400, "VALIDATION_ERROR"],
    [422, "VALIDATION_ERROR"],
    [404, "NOT_FOUND"],
    [504, "TIMEOUT"],
    [500, "UPSTREAM_ERROR"],
    [403, "UPSTREAM_ERROR"],
  ])("maps the bridge's %i on start to %s, naming the step and never the bridge's body", async (status, code) => {
    fake.override(answer(status));
    const step = request("block-ip");
    const error = await failure(actions().execute(step));
    expect(error.code).toBe(code);
    expect(error.message).toContain(`Playbook automation`);
    expect(error.message).toContain(`(status ${status}) while starting step ${step.stepId} (block-ip on Ip 203.0.113.7) of run run-1`);
    expect(error.message).not.toContain(LEAK);
  });

  it("relays RATE_LIMITED with the bridge's Retry-After", async () => {
    fake.override(answer(429, { "retry-after": "12" }));
    expect(await failure(actions().execute(request("block-ip")))).toMatchObject({ code: "RATE_LIMITED", headers: { "Retry-After": "12" } });
  });

  it("reports a missing credential as the service's own UPSTREAM_ERROR", async () => {
    const error = await failure(actions({ authHeader: undefined }).execute(request("block-ip")));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).toMatch(/^Playbook automation refused the service's credential \(status 401\)/);
  });

  it("fails a poll that the bridge answers with an error", async () => {
    const step = request("block-ip");
    fake.override((req, res, body) => (req.method === "GET" ? sendJson(res, 503, { error: LEAK }) : route(req, res, body)));
    const error = await failure(actions().execute(step));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).toContain(`while reading step ${step.stepId}`);
  });

  it.each([
    ["another step id", { stepId: "other" }, "(stepId does not match the request)"],
    ["an unknown status", { status: "Paused" }, "(at status)"],
    ["a failure without a reason", { status: "Failed", errorMessage: " " }, "(at errorMessage)"],
    ["an end before the start", { status: "Succeeded", startedAt: "2026-03-01T10:00:00Z", finishedAt: "2026-03-01T09:00:00Z" }, "(at finishedAt)"],
    ["a time with an offset", { status: "Succeeded", startedAt: "2026-03-01T10:00:00+02:00", finishedAt: null }, "(at startedAt)"],
    ["nested output", { status: "Succeeded", output: { nested: { secret: LEAK } } }, "(at output.nested)"],
  ])("rejects an answer with %s as UPSTREAM_ERROR", async (_what, fields, where) => {
    const step = request("block-ip");
    fake.override((_req, res) => sendJson(res, 200, { stepId: step.stepId, status: "Running", errorMessage: null, output: {}, startedAt: null, finishedAt: null, ...fields }));
    const error = await failure(actions().execute(step));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).toContain(where);
    expect(error.message).not.toContain(LEAK);
  });

  it("answers NOT_FOUND for a step id that cannot be a path segment, without calling the bridge", async () => {
    for (const stepId of ["", ".", ".."]) expect((await failure(actions().execute(request("block-ip", { stepId })))).code).toBe("NOT_FOUND");
    expect(fake.requests).toHaveLength(0);
  });

  it("refuses a configuration without a positive poll interval or step wait", () => {
    expect(() => actions({ pollIntervalMs: 0 })).toThrow(/pollIntervalMs/);
    expect(() => actions({ stepWaitMs: -1 })).toThrow(/stepWaitMs/);
  });

  it("never puts the Authorization value in any error it raised", () => {
    expect(seen.length).toBeGreaterThan(15);
    const token = AUTH.split(" ")[1]!;
    for (const error of seen) {
      const texts = [error.message, JSON.stringify(error.headers), JSON.stringify(error.errors ?? {})];
      for (let cause = error.cause; cause instanceof Error; cause = cause.cause) texts.push(cause.message, String(cause.stack));
      for (const text of texts) expect(text).not.toContain(token);
    }
  });
});
