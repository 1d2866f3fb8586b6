import { z } from "zod";
import { severities, type Severity } from "../../model/incidents/incident";
import type { SlaPolicy } from "../../model/incidents/sla-policy-record";

/*
 * A workspace's service-level targets: how long an incident of each severity may take to resolve,
 * counted by the incident's SLA clock (paused time left out). Kept on the workspace record, which
 * every incident read has in hand already, so that showing the target costs no store read. Set with
 * `setSlaPolicy` (sla-settings.ts).
 */

/** One minute to one year: a target beyond a year is no target. */
export const MAX_SLA_TARGET_MINUTES = 525_600;

const target = z
  .int()
  .min(1)
  .max(MAX_SLA_TARGET_MINUTES)
  .nullable()
  .optional()
  .describe(`Minutes the clock may run before the target is breached, 1 to ${MAX_SLA_TARGET_MINUTES}; null: no target; left out: as it is.`);

/** The policy as a settings page sends it: each severity's target, or none (null); a severity left out keeps its target. */
export const slaPolicyInput = z.strictObject({
  timeToResolveMinutes: z
    .strictObject(Object.fromEntries(severities.map((s) => [s, target])) as Record<Severity, typeof target>)
    .describe("Per severity of the incident (its severity now), the time-to-resolve target."),
});

/** The workspace's policy; a workspace without one has no target for any severity. */
export function slaPolicyOf(workspace: { slaPolicy?: SlaPolicy }): SlaPolicy {
  const stored = workspace.slaPolicy?.timeToResolveMinutes;
  const targets: Record<Severity, number | null> = { Informational: null, Low: null, Medium: null, High: null };
  for (const severity of severities) targets[severity] = stored?.[severity] ?? null;
  return { timeToResolveMinutes: targets };
}

/** The target of an incident of this severity in the workspace, in seconds; null: none. */
export function slaTargetSeconds(workspace: { slaPolicy?: SlaPolicy }, severity: Severity): number | null {
  const minutes = workspace.slaPolicy?.timeToResolveMinutes[severity] ?? null;
  return minutes === null ? null : minutes * 60;
}
