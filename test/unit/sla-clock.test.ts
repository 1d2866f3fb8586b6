import { describe, expect, it } from "vitest";
import { nextSla, slaView } from "../../shared/domain/incidents/incident-state";
import { slaPolicyInput, slaPolicyOf, slaTargetSeconds } from "../../shared/domain/incidents/sla-policy";
import type { SlaClockRecord } from "../../shared/model/incidents/incident-state-record";

/*
 * The SLA clock against a workspace's time-to-resolve target: paused time (OnHold,
 * WaitingOnCustomer) and closed time are not counted; a running clock has a due time, a paused or
 * stopped one does not; past the target it is breached, and a stopped clock keeps saying whether it was.
 */

const start = Date.parse("2026-11-20T08:00:00.000Z");
const at = (minutes: number) => new Date(start + minutes * 60_000);
const HOUR = 3600;
const fresh: SlaClockRecord = { startedAt: at(0).toISOString(), pausedAt: null, pausedMs: 0, stoppedAt: null };

/** The clock after these status changes, each at its minute. */
function clockAfter(changes: [number, "OnHold" | "WaitingOnCustomer" | "Active" | "New" | "Closed"][]): SlaClockRecord {
  return changes.reduce((sla, [minute, status]) => nextSla(sla, status, at(minute)), fresh);
}

describe("the SLA clock against its target", () => {
  it("running: counts from creation, falls due at start + target, remaining counts down", () => {
    expect(slaView(fresh, at(90), 4 * HOUR)).toEqual({
      state: "Running",
      elapsedSeconds: 90 * 60,
      startedAt: fresh.startedAt,
      pausedSince: null,
      stoppedAt: null,
      targetSeconds: 4 * HOUR,
      remainingSeconds: 150 * 60,
      dueAt: at(240).toISOString(),
      breached: false,
    });
  });

  it("without a target: no remaining time, no due time, never breached", () => {
    expect(slaView(fresh, at(10_000), null)).toMatchObject({ targetSeconds: null, remainingSeconds: null, dueAt: null, breached: false, elapsedSeconds: 600_000 });
    // The target is optional for callers that have none.
    expect(slaView(fresh, at(1)).targetSeconds).toBeNull();
  });

  it("paused: the clock and the remaining time stand still, and there is no due time while it is paused", () => {
    const held = clockAfter([[60, "OnHold"]]);
    for (const minute of [60, 61, 600]) {
      expect(slaView(held, at(minute), 4 * HOUR)).toMatchObject({ state: "Paused", elapsedSeconds: HOUR, remainingSeconds: 3 * HOUR, dueAt: null, breached: false, pausedSince: at(60).toISOString() });
    }
  });

  it("resumed: the paused time is left out, so the due time moves later by exactly the pause", () => {
    const resumed = clockAfter([
      [60, "WaitingOnCustomer"],
      [180, "Active"],
    ]);
    expect(slaView(resumed, at(200), 4 * HOUR)).toMatchObject({ state: "Running", elapsedSeconds: 80 * 60, remainingSeconds: 160 * 60, dueAt: at(360).toISOString() });
    // Two pauses add up; a second OnHold while paused changes nothing.
    const twice = clockAfter([
      [60, "OnHold"],
      [90, "OnHold"],
      [120, "Active"],
      [150, "WaitingOnCustomer"],
      [210, "New"],
    ]);
    expect(slaView(twice, at(240), 4 * HOUR)).toMatchObject({ elapsedSeconds: 120 * 60, dueAt: at(360).toISOString() });
  });

  it("breached: past the target the remaining time is negative and the due time in the past", () => {
    const view = slaView(fresh, at(4 * 60 + 1), 4 * HOUR);
    expect(view).toMatchObject({ state: "Running", breached: true, remainingSeconds: -60, dueAt: at(240).toISOString() });
    // At the target exactly it is due, not yet breached.
    expect(slaView(fresh, at(240), 4 * HOUR)).toMatchObject({ breached: false, remainingSeconds: 0 });
    // Half a second over reads -0 seconds as 0, and is breached.
    expect(slaView(fresh, new Date(at(240).getTime() + 500), 4 * HOUR)).toMatchObject({ breached: true, remainingSeconds: 0 });
  });

  it("stopped: resolved within the target or late, said for good; no due time; a reopen resumes without the closed time", () => {
    const inTime = clockAfter([[100, "Closed"]]);
    expect(slaView(inTime, at(10_000), 4 * HOUR)).toMatchObject({ state: "Stopped", elapsedSeconds: 100 * 60, breached: false, dueAt: null, remainingSeconds: 140 * 60 });
    const late = clockAfter([[300, "Closed"]]);
    expect(slaView(late, at(10_000), 4 * HOUR)).toMatchObject({ state: "Stopped", breached: true, remainingSeconds: -60 * 60 });
    const reopened = clockAfter([
      [100, "Closed"],
      [1000, "Active"],
    ]);
    expect(slaView(reopened, at(1010), 4 * HOUR)).toMatchObject({ state: "Running", elapsedSeconds: 110 * 60, dueAt: at(1140).toISOString() });
  });
});

describe("the workspace's SLA policy", () => {
  it("reads every severity, none set where the workspace has no policy; targets are minutes, the view's seconds", () => {
    expect(slaPolicyOf({})).toEqual({ timeToResolveMinutes: { Informational: null, Low: null, Medium: null, High: null } });
    const workspace = { slaPolicy: { timeToResolveMinutes: { Informational: null, Low: 4320, Medium: 1440, High: 240 } } };
    expect(slaTargetSeconds(workspace, "High")).toBe(4 * HOUR);
    expect(slaTargetSeconds(workspace, "Informational")).toBeNull();
    expect(slaTargetSeconds({}, "High")).toBeNull();
  });

  it("takes whole minutes from one to a year per severity, null for none, nothing else", () => {
    expect(slaPolicyInput.safeParse({ timeToResolveMinutes: { High: 240, Low: null } }).success).toBe(true);
    for (const bad of [{ High: 0 }, { High: 1.5 }, { High: 525_601 }, { Critical: 60 }]) {
      expect(slaPolicyInput.safeParse({ timeToResolveMinutes: bad }).success, JSON.stringify(bad)).toBe(false);
    }
  });
});
