/**
 * A workspace's time-to-resolve targets as its record keeps them: minutes per incident severity;
 * null, or absent, is no target. (Its own module: the workspace record names it, and the rules on
 * it, in sla-policy.ts, use the vendors' model, which names the workspace record.)
 */
export interface SlaPolicy {
  timeToResolveMinutes: { Informational: number | null; Low: number | null; Medium: number | null; High: number | null };
}
