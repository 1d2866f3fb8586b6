import type { Source } from "../sources";

/** An incident linked to an ITSM ticket: stored in the workspace's partition, audited on link and unlink. */
export interface TicketLinkRecord {
  /** Derived from (source, incidentId, system, ticketId): linking the same pair twice is a taken id. */
  id: string;
  docType: "ticketLink";
  workspaceId: string;
  source: Source;
  incidentId: string;
  system: string;
  ticketId: string;
  ticketNumber: string;
  url: string;
  linkedAt: string;
  linkedBy: { serviceAccountId: string | null; name: string };
}
