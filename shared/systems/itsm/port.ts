import { ApiError } from "../../platform/errors/api-error";

/**
 * The port to an ITSM system holding the tickets that SOC incidents are escalated to (ServiceNow,
 * Jira Service Management, …). Adapters: the simulated ITSM (local default) and the ticketing bridge
 * (docs/ticketing-bridge.md). Every method fails only with an ApiError: EXTENSION_NOT_ENABLED for a
 * workspace without ticketing, otherwise docs/contract.md §7's mapping of the upstream's answer.
 */
export interface TicketingSystem {
  /** False when the deployment has no ITSM for the workspace: every call answers EXTENSION_NOT_ENABLED. */
  isEnabled(workspaceId: string): boolean;
  /**
   * Tickets of the workspace matching every criterion given, most recently updated first, at most
   * `limit`. At least one of `groupingId` and `ticketNumber` is required (a search never lists the ITSM).
   */
  searchTickets(query: TicketSearch, signal?: AbortSignal): Promise<Ticket[]>;
  /** One ticket by the ITSM's id; NOT_FOUND when the workspace has none. */
  getTicket(workspaceId: string, ticketId: string, signal?: AbortSignal): Promise<Ticket>;
  /** Sets the priority and returns the ticket as it now stands. */
  setPriority(workspaceId: string, ticketId: string, priority: TicketPriority, signal?: AbortSignal): Promise<Ticket>;
  /** The ticket's notes, oldest first. NOT_FOUND when the ticket does not exist. */
  listNotes(workspaceId: string, ticketId: string, signal?: AbortSignal): Promise<TicketNote[]>;
  /** Adds a note (an incident comment mirrored to the ticket) and returns it as stored. */
  addNote(workspaceId: string, ticketId: string, note: NewTicketNote, signal?: AbortSignal): Promise<TicketNote>;
}

/**
 * Priorities P1 (most urgent) to P5, the scale PagerDuty uses: ServiceNow's 1 – Critical … 5 – Planning
 * and Jira's Highest … Lowest map onto it one to one, so no adapter has to guess.
 */
export const ticketPriorities = ["P1", "P2", "P3", "P4", "P5"] as const;
export type TicketPriority = (typeof ticketPriorities)[number];

/** Where a ticket stands, whatever the ITSM's own workflow calls its states (kept in `status`). */
export const ticketStates = ["Open", "InProgress", "OnHold", "Resolved", "Closed", "Cancelled"] as const;
export type TicketState = (typeof ticketStates)[number];

export interface TicketSearch {
  workspaceId: string;
  /**
   * The correlation key the ticket carries for the SOC (ServiceNow's `correlation_id`, a Jira label or
   * custom field): typically the incident id, or a case grouping several incidents. Exact match.
   */
  groupingId?: string;
  /** The human-facing number ("INC0012345", "SEC-1234"), case-insensitive exact match. */
  ticketNumber?: string;
  limit: number;
}

/** The identity of a ticket as a link shows it: which system, which number, where to open it. */
export interface TicketReference {
  /** The ITSM's display name: "ServiceNow", "Jira Service Management". */
  system: string;
  /** The ITSM's stable id (ServiceNow `sys_id`, Jira issue id). */
  ticketId: string;
  ticketNumber: string;
  /** Where an analyst opens the ticket. */
  url: string;
}

export interface Ticket extends TicketReference {
  title: string;
  /** The ITSM's own status text ("In Progress", "Awaiting Caller", "Waiting for support"). */
  status: string;
  state: TicketState;
  priority: TicketPriority;
  /** Correlation keys the ticket carries (see TicketSearch.groupingId). */
  groupingIds: string[];
  assignmentGroup: string | null;
  assignee: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * `WorkNote` is internal to the resolver teams (ServiceNow work notes, Jira internal comments);
 * `Comment` is visible to the requester. Both reach the incident as comments.
 */
export const ticketNoteKinds = ["WorkNote", "Comment"] as const;
export type TicketNoteKind = (typeof ticketNoteKinds)[number];

export interface TicketNote {
  id: string;
  ticketId: string;
  kind: TicketNoteKind;
  body: string;
  authorName: string;
  /** Null when the ITSM does not expose it (system-generated notes). */
  authorEmail: string | null;
  createdAt: string;
}

export interface NewTicketNote {
  kind: TicketNoteKind;
  body: string;
  authorName: string;
  authorEmail: string | null;
}

/** Ticketing with no ITSM configured: every call is 400 EXTENSION_NOT_ENABLED naming the integration. */
export function disabledTicketing(): TicketingSystem {
  const refuse = async (): Promise<never> => {
    throw ticketingNotEnabled();
  };
  return {
    isEnabled: () => false,
    searchTickets: refuse,
    getTicket: refuse,
    setPriority: refuse,
    listNotes: refuse,
    addNote: refuse,
  };
}

export function ticketingNotEnabled(workspaceId?: string): ApiError {
  const where = workspaceId === undefined ? "this deployment" : `workspace ${workspaceId}`;
  return new ApiError("EXTENSION_NOT_ENABLED", `The ticketing integration is not enabled for ${where}.`, { target: "ticketing" });
}

/** The rule every adapter applies before asking its ITSM: a search names at least one criterion. */
export function checkTicketSearch(query: TicketSearch): void {
  if (query.groupingId === undefined && query.ticketNumber === undefined) {
    const message = "Give groupingId, ticketNumber or both.";
    throw new ApiError("VALIDATION_ERROR", message, { errors: { "": [message] } });
  }
}
