import type { AuditEventRecord } from "../../model/audit/audit-event";
import type { GamebookRunsMessage } from "../../model/gamebooks/gamebook-run";
import type { EventMessage } from "./event-message";
import type { QueueName } from "../queue/queue-names";
import type { DeliveryMessage } from "../delivery/delivery-message";

/**
 * Where an outbox record is committed: the partition of the write that caused it, so that the write
 * and its records are one transaction. `workspace:<id>` (incident state, gamebook runs and the
 * workspace's other documents), `service-account:<id>`, `users:<accountId>`, `webhook:<id>`,
 * `account:<id>` (an organization's account record) and `workspace-record:<id>` (the workspace's own
 * record, in the workspaces container).
 */
export type OutboxScope =
  | `workspace:${string}`
  | `service-account:${string}`
  | `users:${string}`
  | `webhook:${string}`
  | `account:${string}`
  | `workspace-record:${string}`;

interface OutboxRecordBase {
  /** `outbox-<event id or audit id>`: a record written again (a republished event) replaces itself. */
  id: string;
  docType: "outbox";
  scope: OutboxScope;
  createdAt: string;
  /** Null until carried out: the event queued, the audit event appended. */
  publishedAt: string | null;
}

/** An event committed with the change it reports; published to the `events` queue after commit. */
export interface OutboxEventRecord extends OutboxRecordBase {
  kind: "event";
  message: EventMessage;
}

/** An audit event committed with the write it records; appended to the audit trail after commit. */
export interface OutboxAuditRecord extends OutboxRecordBase {
  kind: "audit";
  audit: AuditEventRecord;
}

/** What each work queue an outbox record may name carries. */
export interface OutboxWorkMessages {
  "gamebook-runs": GamebookRunsMessage;
  deliveries: DeliveryMessage;
}

/**
 * A work message committed with the change that calls for it (a dispatched gamebook run and its
 * `gamebook-runs` message, a test delivery and its audit event); sent to its queue after the commit,
 * so a crash cannot lose it.
 */
export type OutboxMessageRecord = {
  [Q in Extract<QueueName, keyof OutboxWorkMessages>]: OutboxRecordBase & { kind: "message"; queue: Q; message: { messageId: string; body: OutboxWorkMessages[Q] } };
}[Extract<QueueName, keyof OutboxWorkMessages>];

/** An outbox message record for one queue. */
export type OutboxMessageRecordFor<Q extends keyof OutboxWorkMessages> = Extract<OutboxMessageRecord, { queue: Q }>;

/** What a write commits beside itself and the relay carries out after: nothing accepted is lost. */
export type OutboxRecord = OutboxEventRecord | OutboxAuditRecord | OutboxMessageRecord;
