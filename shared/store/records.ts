import type { Classification, PublicStatus } from "../sources/gateway";
import type { Source } from "../sources/source";
import type { GamebookRunMessage, ApprovalMode, PartnerApprovalRecord } from "./gamebook-records";
import type { QueueName } from "../queue/queue-names";

/**
 * The documents the service keeps. Stores hold these; endpoint groups map them to API views.
 * Timestamps are ISO 8601 strings so that the same document goes to memory and to Cosmos.
 */
export const organizationalRoles = [
  "Admin",
  "UserAdmin",
  "WorkspaceAdmin",
  "AgentAdmin",
  "Member",
  "OrgContentOperator",
  "OrgContentAdmin",
] as const;
export type OrganizationalRole = (typeof organizationalRoles)[number];

export const workspaceRoles = ["Owner", "Analyst"] as const;
export type WorkspaceRole = (typeof workspaceRoles)[number];

/** A customer account or a service provider that manages customer accounts. */
export interface AccountRecord {
  id: string;
  name: string;
  kind: "ServiceProvider" | "Customer";
  /** The service provider managing this account, if any. */
  managedByAccountId: string | null;
  /** A service provider's approval setting for gamebook runs in the accounts it manages; absent: none. */
  partnerApproval?: PartnerApprovalRecord;
}

export interface WorkspaceRecord {
  id: string;
  name: string;
  tenantId: string;
  accountId: string;
  /** The workspace's own approval policy for gamebook runs; absent: `NoApproval`. */
  gamebookApproval?: ApprovalMode;
}

export interface CredentialRecord {
  id: string;
  /** HMAC-SHA256 of the secret under the server's key, hex. The secret itself is never stored. */
  secretHash: string;
  clientSecretPrefix: string;
  status: "Active" | "Revoked";
  expirationDate: string;
  lastUsedAt: string | null;
  createdAt: string;
  revokedAt: string | null;
  scopes: string[];
}

export interface ServiceAccountRecord {
  id: string;
  accountId: string;
  name: string;
  description: string;
  isActive: boolean;
  isPlatformManaged: boolean;
  organizationalRole: OrganizationalRole;
  workspaceAssignments: { workspaceId: string; role: WorkspaceRole }[];
  credentials: CredentialRecord[];
  lastUsedAt: string | null;
  createdAt: string;
  lastModifiedAt: string;
}

export interface UserRecord {
  id: string;
  accountId: string;
  displayName: string;
  email: string;
  tenantId: string;
  organizationalRole: OrganizationalRole;
  isActive: boolean;
  createdAt: string;
  lastModifiedAt: string;
}

/** Contract 2.12 audit event, plus the account it belongs to (its partition). */
export interface AuditEventRecord {
  id: string;
  accountId: string;
  timeGenerated: string;
  workspaceId: string | null;
  discriminator: string;
  activityType: string;
  activityAction: string;
  actorId: string;
  actorName: string;
  actorEmail: string;
  targetResourceType: string;
  targetResourceId: string;
  targetResourceName: string;
  metadata: string;
}

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

/** The delivery envelope (DESIGN §5): `{id, type, occurredAt, data}`, plus `isTest` on test events. */
export interface EventEnvelope {
  id: string;
  type: string;
  occurredAt: string;
  data: Record<string, unknown>;
  isTest?: true;
}

/** A message on the `events` queue: one domain event, to be fanned out to the webhooks that get it. */
export interface EventMessage {
  envelope: EventEnvelope;
  /** The account the event belongs to; its managing provider's webhooks may get it too. */
  accountId: string;
  /** The incident it is about, when it is about one (auto-disable counts incidents). */
  incident: IncidentRef | null;
  /** Manual trigger (contract 6.1): delivered whether or not a webhook subscribes to the type. */
  bypassSubscription?: boolean;
  /** Only these webhooks (a trigger aimed at one); account scope and `monitoredAccountIds` still apply. */
  onlyWebhookIds?: string[];
  /**
   * `agent.investigation.completed.v1` (contract 6.2.2): the webhooks the classification's card names.
   * Each gets it only if it also subscribes to the type; one that is bound but not subscribed has the
   * delivery recorded as Failed.
   */
  boundWebhookIds?: string[];
}

/**
 * Where an outbox record is committed: the partition of the write that caused it, so that the write
 * and its records are one transaction. `workspace:<id>` (incident state, gamebook runs and the
 * workspace's other documents), `service-account:<id>`, `users:<accountId>`, `webhook:<id>`.
 */
export type OutboxScope = `workspace:${string}` | `service-account:${string}` | `users:${string}` | `webhook:${string}`;

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

/**
 * A work message committed with the change that calls for it (a dispatched gamebook run and its
 * `gamebook-runs` message); sent to its queue after the commit, so a crash cannot lose it.
 */
export interface OutboxMessageRecord extends OutboxRecordBase {
  kind: "message";
  queue: Extract<QueueName, "gamebook-runs">;
  message: { messageId: string; body: GamebookRunMessage };
}

/** What a write commits beside itself and the relay carries out after: nothing accepted is lost. */
export type OutboxRecord = OutboxEventRecord | OutboxAuditRecord | OutboxMessageRecord;

/** Gamebook documents (catalogue, runs) and the run message have their own file. */
export type {
  ApprovalMode,
  GamebookRunMessage,
  GamebookRunRecord,
  GamebookRunStatus,
  PartnerApprovalRecord,
  PlaybookCatalogueRecord,
  PlaybookEntryRecord,
  PlaybookStatus,
} from "./gamebook-records";

export const webhookStatuses = ["Active", "Paused", "Disabled"] as const;
export type WebhookStatus = (typeof webhookStatuses)[number];
export const webhookAuthenticationTypes = ["None", "Bearer", "Basic", "ApiKey"] as const;
export type WebhookAuthenticationType = (typeof webhookAuthenticationTypes)[number];

/** A signing key, sealed at rest. The newest is first; a rotated-out key is kept until `retiresAt`. */
export interface SealedSigningKey {
  sealed: string;
  createdAt: string;
  retiresAt: string | null;
}

/** Contract 2.8, plus what delivery needs (sealed secrets, the rolling failure record). */
export interface WebhookRecord {
  id: string;
  /** The owning account: its events (and, for a provider, its managed accounts') are delivered. */
  targetAccountId: string;
  targetAccountName: string;
  serviceProviderId: string;
  workspaceId: string | null;
  name: string;
  url: string;
  status: WebhookStatus;
  eventTypes: string[];
  monitoredAccountIds: string[];
  authenticationType: WebhookAuthenticationType;
  /** The endpoint credential (`token`), sealed; null with authenticationType None. */
  sealedToken: string | null;
  signingKeys: SealedSigningKey[];
  disableReason: string | null;
  disabledAt: string | null;
  /** Final delivery failures of the last 24 hours, per incident, for auto-disable (contract 6.6.5). */
  finalFailures: { incidentKey: string; at: string }[];
  createdAt: string;
  lastModifiedAt: string;
}

export const deliveryStatuses = ["Pending", "Succeeded", "Failed"] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/** The incident a delivery was about, so that opening the entry can show it as it stands now. */
export interface IncidentRef {
  workspaceId: string;
  source: Source;
  incidentId: string;
}

/**
 * One delivery attempt (contract 2.9): metadata, never a copy of the event. Partitioned by webhook and
 * UTC day of `createdAt` (DESIGN §3), expiring by `ttl`.
 */
export interface DeliveryLogRecord {
  id: string;
  /** `<webhookId>:<yyyy-mm-dd>` of createdAt. */
  partitionKey: string;
  webhookConfigurationId: string;
  eventId: string;
  eventType: string;
  eventOccurredAt: string;
  status: DeliveryStatus;
  /** 0 when no HTTP response was received (see `error`). */
  httpStatusCode: number;
  success: boolean;
  requestUrl: string;
  /** As sent, with credentials and signatures redacted. */
  requestHeaders: Record<string, string>;
  durationMs: number;
  createdAt: string;
  redelivered: boolean;
  attempt: number;
  isTest: boolean;
  incident: IncidentRef | null;
  /** What went wrong without a response (timeout, connection, blocked address), or why it stopped. */
  error: string | null;
  /** Seconds until the store may drop it. */
  ttl: number;
}

/** The reconciler's bookkeeping for one workspace. */
export interface ReconcilerStateRecord {
  /** The workspace id. */
  id: string;
  workspaceId: string;
  /**
   * When the reconciler first looked at the workspace: incidents created before it were there
   * already and are recorded without an `incident.created.v1`.
   */
  baselineAt: string;
  /**
   * Whether the incidents open at the baseline have been recorded, so that a later close of one of
   * them in the vendor console is recognised as a close.
   */
  baselineRecorded: boolean;
  /** Per source: the end of the last completed window; the next starts at it minus the overlap. */
  watermarks: Partial<Record<Source, string>>;
}

/** A workspace's agent configuration: per classification, the webhooks its card names as a custom action. */
export interface AgentConfigurationRecord {
  /** The workspace id. */
  id: string;
  workspaceId: string;
  agentName: string;
  cards: { classification: Classification; webhookIds: string[] }[];
  updatedAt: string;
}

/** The integrations a workspace may use; each is also subject to the deployment having the system. */
export const integrationNames = ["ticketing", "directoryLogs", "logAnalytics"] as const;
export type IntegrationName = (typeof integrationNames)[number];

/**
 * A workspace's own integration switches (one document per workspace, in its partition). No document
 * means every integration is on, as far as the deployment provides it.
 */
export interface WorkspaceIntegrationsRecord {
  /** Always `integrations`: one per workspace partition. */
  id: string;
  docType: "integrations";
  workspaceId: string;
  enabled: Record<IntegrationName, boolean>;
  updatedAt: string;
}

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

/** An audit event with its place in its partition's trail (the export's order). */
export interface SequencedAuditEvent {
  sequence: number;
  event: AuditEventRecord;
}
