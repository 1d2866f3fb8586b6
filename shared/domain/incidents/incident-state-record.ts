import type { Source } from "../sources";
import type { Classification, PublicStatus } from "../../systems/vendors/port";
import type { ChangeOrigin } from "../../platform/events/event-types";

/** Statuses that exist only inside the service: they pause the SLA clock and never reach a vendor. */
export const internalStatuses = ["OnHold", "WaitingOnCustomer"] as const;

export type InternalStatus = (typeof internalStatuses)[number];

export interface IncidentAssignee {
  userId: string | null;
  email: string | null;
  name: string | null;
  isAgent: boolean;
}

/** Time-to-resolve clock: runs from creation, paused while in an internal status, stopped at close. */
export interface SlaClockRecord {
  startedAt: string;
  /** Set while paused. */
  pausedAt: string | null;
  /** Paused time already accrued, before the current pause. */
  pausedMs: number;
  /** Set while closed; a reopen clears it and the time closed counts as paused. */
  stoppedAt: string | null;
}

/**
 * The service's own state of one vendor incident: what the service adds to the vendor's record
 * (assignee, internal status, SLA clock) and what it last knew of it. Lives in the workspace's
 * partition together with the outbox events written with it.
 */
export interface IncidentStateRecord {
  /** `state-<source>-<base64url(incidentId)>`: unique in the partition and safe as a Cosmos id. */
  id: string;
  docType: "incidentState";
  workspaceId: string;
  accountId: string;
  source: Source;
  incidentId: string;
  /** The public status as the service last wrote or saw it. */
  status: PublicStatus;
  internalStatus: InternalStatus | null;
  classification: Classification | null;
  assignee: IncidentAssignee | null;
  sla: SlaClockRecord;
  /**
   * Who made the close the service last recorded (its `incident.closed.v1`'s `closedBy`); null while
   * open, or when the incident was closed before the service knew it. Absent on states stored before
   * it was kept.
   */
  closedBy?: ChangeOrigin | null;
  /** Closings so far; a new closing of a reopened incident is a new `incident.closed.v1` subject. */
  closeCount: number;
  vendorLastModificationTime: string | null;
  /**
   * When the reconciler took the incident in (with its incident.created.v1, or as already there at
   * the baseline); null while only API writes have touched it, so its created event is still due.
   */
  ingestedAt: string | null;
  /** When the reconciler saw the vendor delete the incident; reads are 404 from then on. */
  deletedAt: string | null;
  createdAt: string;
  updatedAt: string;
}
