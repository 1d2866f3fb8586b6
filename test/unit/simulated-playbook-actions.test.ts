import { describe, expect, it } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import type { PlaybookStepRequest } from "../../shared/systems/playbook-automation/port";
import type { AutomationEntityType } from "../../shared/model/gamebooks/playbook-catalogue-record";
import { createSimulatedPlaybookActions } from "../../shared/systems/playbook-automation/simulated/simulated-playbook-actions";
import { factsAbout, simulateStep } from "../../shared/systems/playbook-automation/simulated/step-outcomes";

const seed = "automation-test";
const workspaceId = "8d2f0c4e-1b7a-4f5e-9c3d-2a6b8e0f1c4d";

let counter = 0;
function request(referenceId: string, type: AutomationEntityType, name: string, extra: Partial<PlaybookStepRequest> = {}): PlaybookStepRequest {
  counter++;
  return {
    workspaceId,
    incident: { source: "SourceA", id: "INC-1042", number: 1042, title: "Impossible travel activity for someone" },
    playbook: { id: `pb-${referenceId}`, referenceId, name: referenceId },
    entity: { id: `e-${name}`, type, name },
    parameters: {},
    runId: `run-${counter}`,
    stepId: `step-${counter}`,
    ...extra,
  };
}

const accounts = Array.from({ length: 200 }, (_, i) => `user${i}@fabrikam.example`);
const synced = accounts.filter((name) => factsAbout(seed, { workspaceId, entity: { id: "x", type: "User", name } }).onPremisesSynced);
const cloudOnly = accounts.filter((name) => !synced.includes(name));

describe("simulated automation outcomes", () => {
  it("synchronises about a third of the directory's accounts from on-premises", () => {
    expect(synced.length).toBeGreaterThan(40);
    expect(synced.length).toBeLessThan(100);
  });

  it("fails a password reset for an account synchronised from on-premises, with Microsoft Graph's words", () => {
    const result = simulateStep(seed, request("reset-password", "User", synced[0]!));
    expect(result.status).toBe("Failed");
    expect(result.errorMessage).toContain(`Resetting the password of ${synced[0]} failed: the account is synchronised from on-premises Active Directory`);
    expect(result.errorMessage).toContain("Unable to update the specified properties for on-premises mastered Directory Sync objects");
    expect(result.output).toEqual({});
  });

  it("resets the password of a cloud-only account, and disables it, but not a synchronised one", () => {
    expect(simulateStep(seed, request("reset-password", "User", cloudOnly[0]!))).toMatchObject({ status: "Succeeded", errorMessage: null, output: { forceChangePasswordNextSignIn: true } });
    expect(simulateStep(seed, request("disable-account", "User", cloudOnly[0]!))).toMatchObject({ status: "Succeeded", output: { accountEnabled: false } });
    expect(simulateStep(seed, request("disable-account", "User", synced[0]!)).status).toBe("Failed");
  });

  it("revokes sessions of any account", () => {
    for (const name of [...synced.slice(0, 5), ...cloudOnly.slice(0, 5)]) expect(simulateStep(seed, request("revoke-sessions", "User", name)).status).toBe("Succeeded");
  });

  it("refuses to isolate a domain controller, and to block a private address at the perimeter", () => {
    const dc = simulateStep(seed, request("isolate-host", "Host", "FAB-DC-0001"));
    expect(dc).toMatchObject({ status: "Failed" });
    expect(dc.errorMessage).toMatch(/domain controller/);
    for (const address of ["10.1.2.3", "172.20.0.9", "192.168.10.4"]) {
      expect(simulateStep(seed, request("block-ip", "Ip", address))).toMatchObject({ status: "Failed", errorMessage: expect.stringMatching(/private address/) });
    }
    expect(simulateStep(seed, request("block-ip", "Ip", "203.0.113.7"))).toMatchObject({
      status: "Succeeded",
      output: { firewall: "perimeter", ruleName: "SOC-Block-203.0.113.7" },
    });
  });

  it("fails some host actions because the device is offline, the same way for the same device", () => {
    const hosts = Array.from({ length: 100 }, (_, i) => `FAB-WS-${String(i).padStart(4, "0")}`);
    const offline = hosts.filter((h) => simulateStep(seed, request("collect-package", "Host", h)).status === "Failed");
    expect(offline.length).toBeGreaterThan(2);
    expect(offline.length).toBeLessThan(25);
    const again = simulateStep(seed, request("isolate-host", "Host", offline[0]!));
    expect(again.errorMessage).toMatch(/has not reported to the endpoint service for \d+ days/);
  });

  it("gives the same outcome and duration for the same seed and step, and realistic durations", () => {
    const step = request("isolate-host", "Host", "FAB-WS-0042");
    const first = simulateStep(seed, step);
    expect(simulateStep(seed, { ...step })).toEqual(first);
    expect(first.durationMs).toBeGreaterThanOrEqual(15_000);
    expect(first.durationMs).toBeLessThanOrEqual(90_000);
    const durations = new Set(Array.from({ length: 20 }, (_, i) => simulateStep(seed, { ...step, stepId: `s${i}` }).durationMs));
    expect(durations.size).toBeGreaterThan(10);
  });

  it("draws another tenant from another seed", () => {
    const other = accounts.filter((name) => factsAbout("another-seed", { workspaceId, entity: { id: "x", type: "User", name } }).onPremisesSynced);
    expect(other).not.toEqual(synced);
  });

  it("runs an action it has no particular knowledge of, failing rarely with a correlation id", () => {
    const results = Array.from({ length: 200 }, (_, i) => simulateStep(seed, request("custom-enrichment", "Ip", `198.51.100.${i}`)));
    const failures = results.filter((r) => r.status === "Failed");
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.length).toBeLessThan(30);
    expect(failures[0]!.errorMessage).toMatch(/reported an internal error \(correlation id [0-9a-f]{12}\)/);
  });
});

describe("simulated automation backend", () => {
  it("refuses a step id reused for another playbook or entity with CONFLICT", async () => {
    const { actions } = createSimulatedPlaybookActions({ seed, delayMs: 0 });
    const step = request("block-ip", "Ip", "203.0.113.9");
    await actions.execute(step);
    const error = await actions.execute({ ...step, entity: { ...step.entity, id: "other", name: "203.0.113.10" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "CONFLICT", target: "stepId" });
  });

  it("takes only the configured real time, while reporting the simulated duration", async () => {
    const { actions } = createSimulatedPlaybookActions({ seed, delayMs: 60 });
    const started = performance.now();
    const result = await actions.execute(request("collect-package", "Host", "FAB-WS-0100"));
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(50);
    expect(elapsed).toBeLessThan(1000);
    expect(result.durationMs).toBeGreaterThanOrEqual(40_000);
  });

  it("lets a console force a playbook's outcome, and restore the simulation", async () => {
    const { actions, console } = createSimulatedPlaybookActions({ seed, delayMs: 0 });
    console.setOutcome("revoke-sessions", { status: "Failed", errorMessage: "Token service unavailable." });
    const forced = await actions.execute(request("revoke-sessions", "User", cloudOnly[1]!));
    expect(forced).toMatchObject({ status: "Failed", errorMessage: "Token service unavailable.", output: {} });
    console.setOutcome("revoke-sessions", undefined);
    expect((await actions.execute(request("revoke-sessions", "User", cloudOnly[1]!))).status).toBe("Succeeded");
  });

  it("forgets the oldest steps past its memory", async () => {
    const { actions, console } = createSimulatedPlaybookActions({ seed, delayMs: 0, memory: 2 });
    const steps = [1, 2, 3].map((i) => request("block-url", "Url", `https://bad.example/${i}`));
    for (const step of steps) await actions.execute(step);
    await actions.execute(steps[2]!);
    expect(console.executions()).toHaveLength(3);
    await actions.execute(steps[0]!);
    expect(console.executions()).toHaveLength(4);
  });
});
