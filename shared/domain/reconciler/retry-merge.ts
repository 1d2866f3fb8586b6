import type { WorkspaceResult } from "./reconciler-port";

/** Counts a first attempt and its retry both made; the rest is the retry's, the workspace's last word. */
const ADDED = ["incidentsSeen", "created", "closed", "updated", "deleted", "baselined", "vendorCalls", "eventsPublished", "watermarkWrites"] as const;

/**
 * One workspace's share of a pass from a failed first attempt and its retry: what both did adds up
 * (the first may have applied one source's changes before the other failed), and the outcome and the
 * time covered are the retry's.
 */
export function mergeRetry(first: WorkspaceResult, retry: WorkspaceResult): WorkspaceResult {
  const merged = { ...retry };
  for (const key of ADDED) merged[key] = first[key] + retry[key];
  return merged;
}
