import { afterEach, describe, expect, it } from "vitest";
import type { AutomationPlaybook, PlaybookActions, PlaybookStepRequest, PlaybookStepResult } from "../../shared/systems/playbook-automation/port";
import { automationEntityTypes } from "../../shared/model/gamebooks/playbook-catalogue-record";
import {
  createSimulatedPlaybookActions,
  type SimulatedAutomationConsole,
  type SimulatedPlaybookActions,
} from "../../shared/systems/playbook-automation/simulated/simulated-playbook-actions";
import { apiErrorOf } from "../support/api-error-of";

/** The automation backend every fixture puts behind its adapter. `delayMs` is how long a step takes. */
export function simulatedAutomation(delayMs: number): SimulatedPlaybookActions {
  return createSimulatedPlaybookActions({ seed: "playbook-contract", delayMs });
}

export interface PlaybookActionsFixture {
  /** The adapter under test. */
  actions: PlaybookActions;
  /** Acting in the automation backend behind the adapter. */
  console: SimulatedAutomationConsole;
  teardown(): Promise<void>;
}

/**
 * The behaviour every PlaybookActions adapter of an enabled backend must have, pinned once and run
 * against each adapter. `setup` gives a fresh backend (simulatedAutomation) whose steps each take
 * `delayMs` behind the adapter.
 */
export function describePlaybookAutomationContract(name: string, setup: (options: { delayMs: number }) => Promise<PlaybookActionsFixture>): void {
  describe(`${name} playbook actions`, () => {
    const open: PlaybookActionsFixture[] = [];
    async function backend(delayMs = 0): Promise<PlaybookActionsFixture> {
      const fixture = await setup({ delayMs });
      open.push(fixture);
      return fixture;
    }
    afterEach(async () => {
      for (const fixture of open.splice(0)) await fixture.teardown();
    });

    it("is enabled", async () => {
      expect((await backend()).actions.enabled).toBe(true);
    });

    it("runs the step asked for once, and resolves with the outcome the backend recorded", async () => {
      const { actions, console } = await backend();
      const step = request("revoke-sessions", "User", "ann@fabrikam.example");
      const result = await actions.execute(step);
      expectWellFormed(result);
      expect(console.executions()).toEqual([
        { stepId: step.stepId, runId: step.runId, workspaceId: step.workspaceId, referenceId: "revoke-sessions", entityName: "ann@fabrikam.example", result },
      ]);
    });

    it("reports a step that ran and failed as a Failed result with the backend's reason, not as an error", async () => {
      const { actions, console } = await backend();
      console.setOutcome("reset-password", { status: "Failed", errorMessage: "Password writeback is not enabled for this tenant." });
      const failed = await actions.execute(request("reset-password", "User", "ann@fabrikam.example"));
      expect(failed).toMatchObject({ status: "Failed", errorMessage: "Password writeback is not enabled for this tenant.", output: {} });
      expectWellFormed(failed);

      console.setOutcome("reset-password", { status: "Succeeded", errorMessage: null });
      const succeeded = await actions.execute(request("reset-password", "User", "bob@fabrikam.example"));
      expect(succeeded).toMatchObject({ status: "Succeeded", errorMessage: null });
      expectWellFormed(succeeded);
      expect(console.executions().map((e) => e.result)).toEqual([failed, succeeded]);
    });

    it("runs each step id once: a repeat of a finished step gets its result and runs nothing", async () => {
      const { actions, console } = await backend();
      const step = request("block-ip", "Ip", "203.0.113.7", { parameters: { expiresInHours: 24 } });
      const first = await actions.execute(step);
      expect(await actions.execute(structuredClone(step))).toEqual(first);
      expect(await actions.execute(structuredClone(step))).toEqual(first);
      expect(console.executions()).toHaveLength(1);
    });

    it("has a repeat of a step still running wait for the same execution", async () => {
      const { actions, console } = await backend(150);
      const step = request("isolate-host", "Host", "FAB-WS-0042", { parameters: { isolationType: "Selective" } });
      const first = actions.execute(step);
      await new Promise((resolve) => setTimeout(resolve, 40));
      const repeat = actions.execute(structuredClone(step));
      const [a, b] = await Promise.all([first, repeat]);
      expect(b).toEqual(a);
      expect(console.executions()).toHaveLength(1);
    });

    it("runs concurrent duplicates of a step once", async () => {
      const { actions, console } = await backend(50);
      const step = request("block-domain", "Domain", "login-contoso.example");
      const results = await Promise.all([actions.execute(step), actions.execute(structuredClone(step)), actions.execute(structuredClone(step))]);
      expect(results[1]).toEqual(results[0]);
      expect(results[2]).toEqual(results[0]);
      expect(console.executions()).toHaveLength(1);
    });

    it("runs distinct step ids of one run as distinct executions", async () => {
      const { actions, console } = await backend();
      const disable = request("disable-account", "User", "ann@fabrikam.example", { runId: "run-shared" });
      const revoke = request("revoke-sessions", "User", "ann@fabrikam.example", { runId: "run-shared" });
      const results = [await actions.execute(disable), await actions.execute(revoke)];
      expect(console.executions().map((e) => [e.stepId, e.referenceId, e.result])).toEqual([
        [disable.stepId, "disable-account", results[0]],
        [revoke.stepId, "revoke-sessions", results[1]],
      ]);
    });

    it("refuses a step id reused for another entity, playbook or run with CONFLICT, and keeps the first step", async () => {
      const { actions, console } = await backend();
      const step = request("block-ip", "Ip", "203.0.113.9");
      const first = await actions.execute(step);
      for (const reused of [
        { ...step, entity: { ...step.entity, id: "e-other", name: "203.0.113.10" } },
        { ...step, playbook: { id: "pb-block-domain", referenceId: "block-domain", name: "Block domain" } },
        { ...step, runId: "run-other" },
      ]) {
        expect((await apiErrorOf(actions.execute(reused))).code).toBe("CONFLICT");
      }
      expect(await actions.execute(step)).toEqual(first);
      expect(console.executions()).toHaveLength(1);
    });

    it("fails a call whose caller has already gone away with UPSTREAM_ERROR, starting nothing", async () => {
      const { actions, console } = await backend();
      const step = request("notify-owner", "Mailbox", "ann@fabrikam.example");
      const error = await apiErrorOf(actions.execute(step, AbortSignal.abort()));
      expect(error.code).toBe("UPSTREAM_ERROR");
      expect(error.message).toMatch(/^Request aborted: the caller went away/);
      expect(console.executions()).toHaveLength(0);
      const result = await actions.execute(step);
      expect(console.executions().map((e) => e.result)).toEqual([result]);
    });

    it("lists the actions the backend offers a workspace, each once and well-formed", async () => {
      const { actions } = await backend();
      const offered = await actions.listPlaybooks(WORKSPACE);
      expect(offered.length).toBeGreaterThan(0);
      expect(new Set(offered.map((p) => p.referenceId)).size).toBe(offered.length);
      for (const playbook of offered) {
        expect(playbook.referenceId.trim()).toBe(playbook.referenceId);
        expect(playbook.name.trim().length).toBeGreaterThan(0);
        expect(automationEntityTypes).toContain(playbook.entityType);
        expect(typeof playbook.isAdminRequired).toBe("boolean");
        for (const parameter of playbook.parameters) expect(["string", "enum", "boolean", "integer"]).toContain(parameter.kind);
      }
    });

    it("lists exactly what the backend offers the workspace, every field and parameter kind intact, and another workspace its own", async () => {
      const { actions, console } = await backend();
      const usual = await actions.listPlaybooks(OTHER_WORKSPACE);
      console.setPlaybooks(WORKSPACE, customPlaybooks);
      expect(await actions.listPlaybooks(WORKSPACE)).toEqual(customPlaybooks);
      expect(await actions.listPlaybooks(OTHER_WORKSPACE)).toEqual(usual);
      console.setPlaybooks(WORKSPACE, []);
      expect(await actions.listPlaybooks(WORKSPACE)).toEqual([]);
      console.setPlaybooks(WORKSPACE, undefined);
      expect(await actions.listPlaybooks(WORKSPACE)).toEqual(usual);
    });

    it("fails a listing whose caller has already gone away with UPSTREAM_ERROR", async () => {
      const { actions } = await backend();
      const error = await apiErrorOf(actions.listPlaybooks(WORKSPACE, AbortSignal.abort()));
      expect(error.code).toBe("UPSTREAM_ERROR");
      expect(error.message).toMatch(/^Request aborted/);
    });

    it("stops waiting with UPSTREAM_ERROR when the caller goes away, while the step finishes once in the backend", async () => {
      const { actions, console } = await backend(250);
      const step = request("collect-package", "Host", "FAB-WS-0100");
      const controller = new AbortController();
      const pending = apiErrorOf(actions.execute(step, controller.signal));
      setTimeout(() => controller.abort(), 60);
      const error = await pending;
      expect(error.code).toBe("UPSTREAM_ERROR");
      expect(error.message).toMatch(/^Request aborted: the caller went away/);
      expect(console.executions()).toHaveLength(0);
      await expect.poll(() => console.executions().length, { timeout: 2_000 }).toBe(1);
      // The worker that comes back gets the finished step, not a second execution.
      expect(await actions.execute(step)).toEqual(console.executions()[0]!.result);
      expect(console.executions()).toHaveLength(1);
    });
  });
}

const WORKSPACE = "8d2f0c4e-1b7a-4f5e-9c3d-2a6b8e0f1c4d";
const OTHER_WORKSPACE = "1c4d8d2f-0c4e-4b7a-8f5e-9c3d2a6b8e0f";

/** Every parameter kind, with and without its optional fields. */
const customPlaybooks: AutomationPlaybook[] = [
  {
    referenceId: "lock-device",
    name: "Lock device",
    description: "Locks the device's screen until the user signs in again.",
    entityType: "Host",
    isAdminRequired: true,
    parameters: [
      { name: "message", kind: "string", description: "Shown on the lock screen.", required: false, maxLength: 200, default: "Locked by the security team." },
      { name: "mode", kind: "enum", description: "How hard to lock.", required: true, values: ["Screen", "Full"] },
      { name: "notifyUser", kind: "boolean", description: "", required: false, default: true },
      { name: "minutes", kind: "integer", description: "For how long.", required: false, min: 1, max: 1440, default: 60 },
    ],
  },
  { referenceId: "ban-sender", name: "Ban sender", description: "", entityType: "Mailbox", isAdminRequired: false, parameters: [] },
];

let counter = 0;
function request(
  referenceId: string,
  type: PlaybookStepRequest["entity"]["type"],
  name: string,
  extra: Partial<PlaybookStepRequest> = {},
): PlaybookStepRequest {
  counter++;
  return {
    workspaceId: "8d2f0c4e-1b7a-4f5e-9c3d-2a6b8e0f1c4d",
    incident: { source: "SourceB", id: "INC-1042", number: 1042, title: "Impossible travel activity for ann@fabrikam.example" },
    playbook: { id: `pb-${referenceId}`, referenceId, name: `Playbook ${referenceId}` },
    entity: { id: `e-${counter}`, type, name },
    parameters: {},
    runId: `run-${counter}`,
    // Needs encoding as a path segment, so that an adapter over HTTP must carry it intact.
    stepId: `6f1c2a9e-3b7d-8e41-9c55-${String(counter).padStart(12, "0")} /+`,
    ...extra,
  };
}

/** Succeeded with no reason, or Failed with one; flat output; a finite duration. */
function expectWellFormed(result: PlaybookStepResult): void {
  if (result.status === "Succeeded") expect(result.errorMessage).toBeNull();
  else {
    expect(result.status).toBe("Failed");
    expect(result.errorMessage?.trim()).toBeTruthy();
  }
  for (const value of Object.values(result.output)) expect(["string", "number", "boolean", "object"]).toContain(typeof value);
  for (const value of Object.values(result.output)) if (typeof value === "object") expect(value).toBeNull();
  expect(Number.isFinite(result.durationMs)).toBe(true);
  expect(result.durationMs).toBeGreaterThanOrEqual(0);
}
