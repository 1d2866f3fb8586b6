/** Every event type the service emits (docs/contract.md §6.1). `webhook.test.v1` is not subscribable. */
export const eventTypes = [
  "incident.created.v1",
  "incident.closed.v1",
  "incident.status.changed.v1",
  "incident.assignee.changed.v1",
  "incident.comment.added.v1",
  "gamebook.run.v1",
  "agent.investigation.completed.v1",
  "webhook.test.v1",
] as const;
export type EventType = (typeof eventTypes)[number];

export const subscribableEventTypes = eventTypes.filter((t) => t !== "webhook.test.v1");

/**
 * docs/contract.md §6.6.4: these types get an id derived from their subject, so a republish has the same id;
 * the others a fresh id per transition or fire.
 */
export const subjectIdEventTypes: readonly EventType[] = ["incident.created.v1", "incident.closed.v1", "gamebook.run.v1", "incident.comment.added.v1", "agent.investigation.completed.v1"];

/** Who made a change an event reports (`changedBy` / `closedBy`). */
export interface ChangeOrigin {
  /** `api`: through this API; `upstream`: found by reconciliation of a vendor-console change. */
  origin: "api" | "upstream" | "agent" | "gamebook" | "portal";
  serviceAccountId: string | null;
  name: string | null;
}
