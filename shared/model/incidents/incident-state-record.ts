import type { Source } from "../sources";
import type { Classification, PublicStatus, Severity } from "./incident";
import type { ChangeOrigin } from "../events/event-types";

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
  /**
   * The incident's title, severity and indicator keys (`indicators.ts`) as the vendor last showed
   * them to a write of this state, so that the incidents sharing an indicator across customers are
   * found and shown without a vendor call (its creation time is the SLA clock's `startedAt`). Absent
   * on states not written since they were kept: they are filled in at the incident's next change.
   */
  title?: string;
  severity?: Severity;
  indicators?: string[];
  /** When this document was first written (not the incident's creation: that is `sla.startedAt`). */
  createdAt: string;
  updatedAt: string;
}

/**
 * One open incident's indicators as the cross-customer comparison reads them
 * (`IncidentStateStore.openWithIndicators`): its state's fields, `createdAt` the incident's creation.
 */
export interface IncidentIndicators {
  workspaceId: string;
  accountId: string;
  source: Source;
  incidentId: string;
  title: string;
  severity: Severity;
  createdAt: string;
  indicators: string[];
}
