import type { Source } from "../sources";

/*
 * The incident as the vendors hold it and the service speaks of it: its severities, statuses,
 * classifications, entities, alerts, evidence and comments. The domain's records and the event
 * catalogue use these words; the vendors' port carries them.
 */

export type Severity = "Informational" | "Low" | "Medium" | "High";
export const severities = ["Informational", "Low", "Medium", "High"] as const satisfies readonly Severity[];

/** The public statuses; the service's internal statuses (OnHold, WaitingOnCustomer) never reach a vendor. */
export type PublicStatus = "New" | "Active" | "Closed";
export const publicStatuses = ["New", "Active", "Closed"] as const satisfies readonly PublicStatus[];

/** The four canonical classifications (docs/contract.md §6.5); vendors' own spellings are normalised to these. */
export type Classification = "TruePositive" | "BenignPositive" | "FalsePositive" | "Undetermined";
export const classifications = ["TruePositive", "BenignPositive", "FalsePositive", "Undetermined"] as const satisfies readonly Classification[];

export type EntityKind = "Account" | "Host" | "Ip" | "File" | "Mailbox" | "Url" | "Process";
export const entityKinds = ["Account", "Host", "Ip", "File", "Mailbox", "Url", "Process"] as const satisfies readonly EntityKind[];

export interface Entity {
  id: string;
  kind: EntityKind;
  /** The entity's display name: UPN, host name, address, file name, mailbox address, URL. */
  name: string;
  /** Kind-specific properties (e.g. `sha256` for files, `domain` for hosts). */
  properties: Record<string, string | number | boolean | null>;
}

export interface Alert {
  id: string;
  title: string;
  severity: Severity;
  /** When the detection fired; the latest one is the incident's `lastActivityTime`. */
  timeGenerated: string;
  productName: string;
  tactics: string[];
  /** Ids of the incident's entities this alert involves. */
  entityIds: string[];
}

/** The evidence table: one row per piece of evidence. */
export interface Evidence {
  rows: EvidenceRow[];
}

export interface EvidenceRow {
  id: string;
  entityId: string | null;
  kind: string;
  verdict: "Malicious" | "Suspicious" | "Clean" | "Unknown";
  detail: string;
  collectedAt: string;
}

export interface VendorOwner {
  userId: string | null;
  email: string | null;
  name?: string | null;
}

/** An incident as the vendor holds it. The service merges its own state over this for the API. */
export interface VendorIncident {
  id: string;
  source: Source;
  workspaceId: string;
  /** The vendor's human-facing incident number. */
  number: number;
  title: string;
  description: string;
  severity: Severity;
  status: PublicStatus;
  /** Set when closed. */
  classification: Classification | null;
  closingComment: string | null;
  owner: VendorOwner | null;
  createdAt: string;
  /** Moves on every vendor-side change (status, owner, comments, alerts); not on service-only state. */
  lastModificationTime: string;
  /** Time of the latest alert; analyst edits do not move it. */
  lastActivityTime: string;
  entities: Entity[];
  alerts: Alert[];
  /** Playbooks the vendor suggests for this incident; element fields are vendor-defined. */
  gamebookCatalog: Record<string, unknown>;
  /**
   * Identifiers of every vendor system holding a record of the incident, one block per system
   * (e.g. `sourceA: {incidentId, incidentUrl}`). Every block and field is conditional: for a
   * SourceB incident the SourceA block may be absent right after creation.
   */
  vendorIdentifiers: Record<string, Record<string, string>>;
  /**
   * Set only on tombstones: a deleted incident listed with `includeDeleted`, at the position of its
   * deletion time (its `lastModificationTime`).
   */
  deletedAt?: string;
}

export interface VendorComment {
  id: string;
  message: string;
  createdTime: string;
  authorEmail: string;
  authorName: string;
  isActivityComment: boolean;
  isAgentComment: boolean;
  agentName: string | null;
  isClosingComment: boolean;
  ticketNoteId: string | null;
  ticketId: string | null;
  /** The integration that wrote the comment, if one did; only it may delete the comment. */
  extensionId: string | null;
}
