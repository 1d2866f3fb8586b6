import type { Source } from "../../model/sources";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { ApiError } from "../../platform/errors/api-error";
import type { Classification, EntityKind, Evidence, PublicStatus, Severity, VendorComment, VendorIncident, VendorOwner } from "../../model/incidents/incident";

/**
 * The port to one vendor system holding incidents (one per source). Adapters: the simulated vendor
 * (embedded default) and the generic HTTP vendor adapter. Every method fails with an ApiError whose
 * code follows docs/contract.md §7's mapping (NOT_FOUND, VALIDATION_ERROR, CONFLICT, RATE_LIMITED, TIMEOUT,
 * UPSTREAM_ERROR); nothing else escapes an adapter.
 */
export interface SourceGateway {
  readonly source: Source;
  /** One incident; NOT_FOUND when the vendor has none with this id in the workspace (or deleted it). */
  getIncident(workspaceId: string, incidentId: string, signal?: AbortSignal): Promise<VendorIncident>;
  /** One page of a workspace's incidents in a time window, newest first (see IncidentWindowQuery). */
  listIncidents(query: IncidentWindowQuery, signal?: AbortSignal): Promise<IncidentPage>;
  /** Writes a public status change to the vendor and returns the incident as it now stands. */
  setStatus(workspaceId: string, incidentId: string, change: VendorStatusChange, signal?: AbortSignal): Promise<VendorIncident>;
  /** Sets (or with null clears) the vendor-side owner and returns the incident as it now stands. */
  setOwner(workspaceId: string, incidentId: string, owner: VendorOwner | null, signal?: AbortSignal): Promise<VendorIncident>;
  /** The incident's comments, oldest first. NOT_FOUND when the incident does not exist. */
  listComments(workspaceId: string, incidentId: string, signal?: AbortSignal): Promise<VendorComment[]>;
  /** Adds a comment (agents and gamebooks add them through the service) and returns it. */
  addComment(workspaceId: string, incidentId: string, comment: NewVendorComment, signal?: AbortSignal): Promise<VendorComment>;
  /**
   * Replaces the text of one comment and returns it as it now stands (its author, time and owner
   * unchanged). NOT_FOUND when the incident or the comment does not exist.
   */
  updateComment(workspaceId: string, incidentId: string, commentId: string, change: VendorCommentChange, signal?: AbortSignal): Promise<VendorComment>;
  /** Deletes one comment. NOT_FOUND when the incident or the comment does not exist. */
  deleteComment(workspaceId: string, incidentId: string, commentId: string, signal?: AbortSignal): Promise<void>;
  /** The evidence table of an incident. NOT_FOUND when the incident does not exist. */
  getEvidence(workspaceId: string, incidentId: string, signal?: AbortSignal): Promise<Evidence>;
  /** Incidents of the workspace that share an entity with the query, newest first, at most `limit`. */
  relatedByEntity(query: EntityQuery, signal?: AbortSignal): Promise<VendorIncident[]>;
}

/** Every source's gateway as the deployment has it. A source may be disabled (no bridge configured in a deployment). */
export interface DeploymentSources {
  gateway(source: Source): SourceGateway;
  /** False when the deployment has no system behind the source: its endpoints answer EXTENSION_NOT_ENABLED. */
  isEnabled(source: Source): boolean;
}

/**
 * The sources as the service uses them: every call goes where the settings of the workspace it names
 * say (`WorkspaceRecord.sources`). A source switched off for the workspace answers
 * EXTENSION_NOT_ENABLED; a workspace with its own bridge for it is served by that bridge; otherwise
 * the deployment's system serves it; and the vendor's own identifier of the workspace, when set,
 * replaces the service's wherever the calls name the workspace. `isEnabled` stays the deployment's.
 */
export interface SourceRegistry extends DeploymentSources {
  /**
   * Whether the workspace's calls of this source reach a system: its own switch on, and its own
   * bridge or the deployment's system. Takes the workspace as the caller read it, and keeps its
   * settings for the calls that follow (a record just read is as fresh as any).
   */
  isEnabledFor(workspace: WorkspaceRecord, source: Source): boolean;
  /** Forgets this instance's copy of a workspace's settings, after a change, so that it applies at once here. */
  evict(workspaceId: string): void;
}

/** The refusal of a source switched off for one workspace. */
export function sourceNotEnabledFor(source: Source, workspaceId: string): ApiError {
  return new ApiError("EXTENSION_NOT_ENABLED", `The ${source} integration is not enabled for workspace ${workspaceId}.`, { target: "source" });
}

const disabled = new WeakSet<SourceGateway>();

/**
 * A source with no bridge configured: every call is 400 EXTENSION_NOT_ENABLED naming it, and the
 * reconciler passes it over.
 */
export function disabledSource(source: Source): SourceGateway {
  const refuse = async (): Promise<never> => {
    throw new ApiError("EXTENSION_NOT_ENABLED", `The ${source} integration is not enabled for this deployment.`, { target: "source" });
  };
  const gateway: SourceGateway = {
    source,
    getIncident: refuse,
    listIncidents: refuse,
    setStatus: refuse,
    setOwner: refuse,
    listComments: refuse,
    addComment: refuse,
    updateComment: refuse,
    deleteComment: refuse,
    getEvidence: refuse,
    relatedByEntity: refuse,
  };
  disabled.add(gateway);
  return gateway;
}

/** Whether a gateway is `disabledSource`'s. */
export function isDisabledSource(gateway: SourceGateway): boolean {
  return disabled.has(gateway);
}

export interface VendorStatusChange {
  status: PublicStatus;
  /** Required when closing. */
  classification?: Classification;
  closingComment?: string;
}

export interface IncidentWindowQuery {
  workspaceId: string;
  /** Which timestamp the window bounds and the page is ordered by (descending). */
  field: "createdAt" | "lastModificationTime";
  /** Inclusive lower bound. */
  from: string;
  /** Exclusive upper bound. */
  to: string;
  /** At most this many items in the page. */
  limit: number;
  /** Opaque to the service: the adapter's own resume point from the previous page. */
  cursor?: string;
  filters?: IncidentFilters;
  /** With field lastModificationTime: also list incidents deleted in the window, as tombstones. */
  includeDeleted?: boolean;
}

export interface IncidentFilters {
  severities?: readonly Severity[];
  statuses?: readonly PublicStatus[];
  /** Case-insensitive substring of the title, the number or an entity name. */
  query?: string;
  /** Owner e-mail addresses, case-insensitive. */
  assigneeEmails?: readonly string[];
  /** With assigneeEmails: also match incidents without an owner. Alone: only unowned incidents. */
  includeUnassigned?: boolean;
}

export interface IncidentPage {
  items: VendorIncident[];
  /** Present when more items match: pass it back as `cursor` for the next page. */
  cursor?: string;
}

export interface NewVendorComment {
  message: string;
  authorEmail: string;
  authorName: string;
  isAgentComment: boolean;
  agentName: string | null;
  isClosingComment: boolean;
  extensionId: string | null;
  /**
   * When present, the vendor adds the comment once: a repeat with the same key returns the comment
   * it added the first time (a gamebook step that resumes after a crash sends its step id).
   */
  idempotencyKey?: string;
}

/** What an edit of a comment changes: its text. */
export interface VendorCommentChange {
  message: string;
}

/** `GET .../incidents/{source}/by-entity`. Every field optional, as in the contract. */
export interface EntityQuery {
  workspaceId: string;
  /** Use this incident's entities as the query. */
  incidentId?: string;
  entityKind?: EntityKind;
  /** Case-insensitive substring of the entity name. */
  entityFilter?: string;
  /** Exact entity name, case-insensitive. */
  entityName?: string;
  /** Restrict to incidents created (or last modified) inside [startDate, endDate). */
  timeField?: "createdAt" | "lastModificationTime";
  startDate?: string;
  endDate?: string;
  limit: number;
}
