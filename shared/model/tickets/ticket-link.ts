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
  /** A service account, or a person in the portal (`userId`; absent on links made before people could link). */
  linkedBy: { serviceAccountId: string | null; userId?: string | null; name: string };
}

/** Ids of comments that come from a ticket start with this: they live in the ITSM, not at the source. */
export const TICKET_COMMENT_PREFIX = "ticket-";
