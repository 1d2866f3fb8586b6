import type { AccountRecord } from "../../model/organizations/account";
import type { AuditEventRecord, SequencedAuditEvent } from "../../model/audit/audit-event";
import type { GamebookRunRecord } from "../../model/gamebooks/gamebook-run";
import type { IncidentIndicators, IncidentStateRecord } from "../../model/incidents/incident-state-record";
import type { OrganizationalRole } from "../../model/organizations/roles";
import type { OutboxRecord, OutboxScope } from "../events/outbox-record";
import type { DeliveryLogFilter, DeliveryLogRecord, DeliveryOutcome } from "../../model/webhooks/delivery-log";
import type { ReconcilerStateRecord } from "../../model/reconciler/reconciler-state";
import type { AgentConfigurationRecord } from "../../model/incidents/agent-configuration";
import type { SopRecord } from "../../model/sops/sop";
import type { WebhookRecord } from "../../model/webhooks/webhook";
import type { ServiceAccountRecord } from "../../model/organizations/service-account";
import type { UserRecord } from "../../model/organizations/user";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import type { TicketLinkRecord } from "../../model/tickets/ticket-link";
import type { WorkspaceIntegrationsRecord } from "../../model/organizations/workspace-integrations";
import type { GamebookRunStatus } from "../../model/gamebooks/gamebook-run";
import type { PlaybookCatalogueRecord } from "../../model/gamebooks/playbook-catalogue-record";
import type { Source } from "../../model/sources";
import type { IdempotencyRecord } from "./idempotency-record";

/**
 * A document with its version tag, for optimistic concurrency (Cosmos `_etag`). Values read from a
 * store are snapshots that may be shared and frozen (the memory adapter hands out its own frozen
 * copy): to change one, copy it (`structuredClone`) and write the copy.
 */
export interface Versioned<T> {
  value: T;
  etag: string;
}

/**
 * Keyset page request: items sorted by id, starting after `after`. The same cursor works on every
 * adapter, so a page token never depends on which store issued it.
 */
export interface PageRequest {
  limit: number;
  after?: string;
}

export interface Page<T> {
  items: T[];
  /** Id to continue after; absent on the last page. */
  nextAfter?: string;
}

/**
 * Accounts (organizations). `create` and `replace` commit the account's outbox records (its audit
 * event) with it, scope `account:<id>`; `upsert` writes without a version or records (the seed and
 * the bootstrap).
 */
export interface AccountStore {
  get(id: string): Promise<AccountRecord | undefined>;
  /** The account with its version, for a change. */
  read(id: string): Promise<Versioned<AccountRecord> | undefined>;
  /** Accounts managed by a service provider. */
  listManagedBy(providerAccountId: string): Promise<AccountRecord[]>;
  /** CONFLICT when the id exists. */
  create(account: AccountRecord, outbox?: readonly OutboxRecord[]): Promise<Versioned<AccountRecord>>;
  /** CONFLICT when the account changed since it was read. */
  replace(account: AccountRecord, etag: string, outbox?: readonly OutboxRecord[]): Promise<Versioned<AccountRecord>>;
  upsert(account: AccountRecord): Promise<void>;
}

/**
 * Workspace records. An offboarded workspace (`offboarded` set) is left out of `get`, `getMany` and
 * the listings, so that it is gone for every route and worker; `read` and `listOffboarded` still
 * find it. `create` and `replace` commit the record's outbox records with it, scope
 * `workspace-record:<id>`; `upsert` writes without a version or records (the demo seed's own records).
 */
export interface WorkspaceStore {
  get(id: string): Promise<WorkspaceRecord | undefined>;
  /** The workspace with its version, offboarded or not, for a change. */
  read(id: string): Promise<Versioned<WorkspaceRecord> | undefined>;
  /** The workspaces among these ids that exist, in no particular order. */
  getMany(ids: readonly string[]): Promise<WorkspaceRecord[]>;
  listByAccounts(accountIds: readonly string[]): Promise<WorkspaceRecord[]>;
  /** Every workspace, by id (the reconciler's round). */
  listAll(): Promise<WorkspaceRecord[]>;
  /** The offboarded workspaces of these accounts, by id. */
  listOffboarded(accountIds: readonly string[]): Promise<WorkspaceRecord[]>;
  /** CONFLICT when the id exists. */
  create(workspace: WorkspaceRecord, outbox?: readonly OutboxRecord[]): Promise<Versioned<WorkspaceRecord>>;
  /** CONFLICT when the workspace changed since it was read. */
  replace(workspace: WorkspaceRecord, etag: string, outbox?: readonly OutboxRecord[]): Promise<Versioned<WorkspaceRecord>>;
  upsert(workspace: WorkspaceRecord): Promise<void>;
}

/**
 * Writes that carry an etag fail with ApiError CONFLICT when the document changed since it was read;
 * create fails with CONFLICT when the id exists. A write's `outbox` records (its audit event, its
 * domain events) commit with it, all or nothing, in the document's own scope (`outboxScope`).
 */
export interface ServiceAccountStore {
  get(id: string): Promise<Versioned<ServiceAccountRecord> | undefined>;
  list(accountIds: readonly string[], page: PageRequest): Promise<Page<ServiceAccountRecord>>;
  create(record: ServiceAccountRecord, outbox?: readonly OutboxRecord[]): Promise<Versioned<ServiceAccountRecord>>;
  replace(record: ServiceAccountRecord, etag: string, outbox?: readonly OutboxRecord[]): Promise<Versioned<ServiceAccountRecord>>;
  delete(id: string, etag: string, outbox?: readonly OutboxRecord[]): Promise<void>;
}

export interface UserFilter {
  /** Exact match, case-insensitive. */
  email?: string;
  role?: OrganizationalRole;
  /** Holds a role (any) on this workspace (its id as stored: lower-case). */
  workspaceId?: string;
}

export interface UserStore {
  /** The user with this id in any of the accounts, if any. */
  find(accountIds: readonly string[], id: string): Promise<Versioned<UserRecord> | undefined>;
  findByEmail(accountId: string, email: string): Promise<UserRecord | undefined>;
  /**
   * Every registration of a person as their directory knows them (tenant and object id), in any
   * account: how a signed-in person is matched to the service's users. Ordered by account id.
   */
  findByDirectoryIdentity(tenantId: string, id: string): Promise<UserRecord[]>;
  list(accountIds: readonly string[], filter: UserFilter, page: PageRequest): Promise<Page<UserRecord>>;
  create(record: UserRecord, outbox?: readonly OutboxRecord[]): Promise<Versioned<UserRecord>>;
  replace(record: UserRecord, etag: string, outbox?: readonly OutboxRecord[]): Promise<Versioned<UserRecord>>;
  delete(accountId: string, id: string, etag: string, outbox?: readonly OutboxRecord[]): Promise<void>;
}

/** Which audit events a search keeps: those of these trails generated in [from, to), and each filter given. */
export interface AuditSearchFilter {
  /** The trails searched (`auditTrailOf`): `account:<id>` and `workspace:<id>`. Empty: none. */
  trails: readonly string[];
  /** Only events generated at or after this instant (ISO 8601 UTC). */
  from?: string;
  /** Only events generated strictly before this instant (ISO 8601 UTC). */
  to?: string;
  /** Exact. */
  actorId?: string;
  /** Lower-case text that the actor's name or e-mail address contains. */
  actorText?: string;
  /** Exact. */
  activityType?: string;
  /** Exact. */
  activityAction?: string;
}

/** An audit-search cursor: events strictly older than (timeGenerated, id), newest first. */
export interface AuditSearchCursor {
  timeGenerated: string;
  id: string;
}

/**
 * The audit trails. An event is stored by `append` and takes its place in its trail's order
 * (`auditTrailOf`: the sequence the export pages by) when its trail is sequenced: at once in memory,
 * by `sequence` on Cosmos, where appends never wait for one another. Whoever appends then asks for
 * the trails it appended to be sequenced (the outbox relay, which does not wait for it), and the
 * sweep sequences whatever a crash left behind. A reader paging by sequence never misses an event: a
 * sequence becomes visible only after every smaller one of its trail.
 */
export interface AuditStore {
  /**
   * Stores an audit event, to be kept for the retention period from now; an id already there is left
   * as it is (with its first sequence), so the relay may append twice.
   */
  append(event: AuditEventRecord): Promise<void>;
  /**
   * Gives the events appended to these trails their sequences, so that the export shows them. Returns
   * once a run of each trail's sequencing that started after the call has finished (it saw every
   * event stored before the call); callers asking while a run is under way share the next one.
   */
  sequence(trails: readonly string[]): Promise<void>;
  /** Sequences every trail with events waiting for their sequence (the sweep); returns how many trails it found. */
  sequenceWaiting(): Promise<number>;
  /** The newest events of an account (every trail of it, sequenced or not), newest first. */
  listRecent(accountId: string, limit: number): Promise<AuditEventRecord[]>;
  /**
   * A workspace's sequenced events with sequence > `afterSequence` (and, when given, timeGenerated >= `notBefore`),
   * in sequence order, at most `limit`. Never one before a smaller sequence still to come: a reader
   * that has seen sequence k has seen every event up to k.
   */
  listWorkspaceTrail(workspaceId: string, afterSequence: number, limit: number, notBefore?: string): Promise<SequencedAuditEvent[]>;
  /**
   * The events of these trails that `filter` keeps, sequenced or not, newest first (timeGenerated,
   * then id, descending), strictly after `cursor` in that order, at most `limit`. An adapter may
   * bound the events one call reads (Cosmos does, for the actor's text, which no index serves): a
   * call that reaches its bound answers what it found, fewer than `limit` or none, with `next` where
   * to go on. `next` absent: nothing more matches.
   */
  search(filter: AuditSearchFilter, limit: number, cursor?: AuditSearchCursor): Promise<{ items: AuditEventRecord[]; next?: AuditSearchCursor }>;
}

/** The service's state of vendor incidents, in the workspace's scope. */
export interface IncidentStateStore {
  get(workspaceId: string, stateId: string): Promise<Versioned<IncidentStateRecord> | undefined>;
  /**
   * The states among these ids in one workspace, in no particular order, each with its etag (a
   * listing's rows carry the incident's ETag, which a later change sends back as `If-Match`).
   */
  getMany(workspaceId: string, stateIds: readonly string[]): Promise<Versioned<IncidentStateRecord>[]>;
  /**
   * Writes the state and its outbox records (scope `workspace:<id>`), all or nothing. `etag` null
   * creates the state (CONFLICT when it exists); otherwise the state must still carry that etag
   * (CONFLICT when it changed).
   */
  commit(state: IncidentStateRecord, etag: string | null, outbox: readonly OutboxRecord[]): Promise<Versioned<IncidentStateRecord>>;
  /**
   * The open incidents (status not `Closed`, not deleted) of these workspaces created at or after
   * `since` (the state's `sla.startedAt`) whose state keeps indicator keys, newest first, at most
   * `limit`; `truncated` when more match. Across workspaces: one query, in no workspace's partition.
   */
  openWithIndicators(workspaceIds: readonly string[], since: string, limit: number): Promise<{ items: IncidentIndicators[]; truncated: boolean }>;
}

/**
 * The transactional outbox (DESIGN §5, §9): records committed with the write that caused them, in
 * that write's scope, and carried out after by the relay. Aggregate stores write them; this port
 * appends records that come with no aggregate write, and lets the relay find and mark them.
 */
export interface OutboxStore {
  /**
   * Records with no aggregate write beside them (a comment added at the vendor, a manual trigger, an
   * audited call to a vendor), all or nothing per scope; a record id already there is replaced.
   */
  append(records: readonly OutboxRecord[]): Promise<void>;
  /** Records not yet carried out, oldest first, at most `limit` (the sweep). */
  listUnpublished(limit: number): Promise<OutboxRecord[]>;
  markPublished(record: Pick<OutboxRecord, "id" | "scope">, at: string): Promise<void>;
  /** One scope's records, published or not, oldest first, at most `limit` (diagnosis and tests). */
  list(scope: OutboxScope, limit: number): Promise<OutboxRecord[]>;
}

/** A run-history cursor: runs strictly older than (creationDate, id), newest first. */
export interface GamebookRunCursor {
  creationDate: string;
  id: string;
}

/**
 * A stretch of a workspace's runs for counting: those created at or after `since` (an ISO 8601
 * instant) and strictly older than `before` in the listing's order; either bound may be absent.
 */
export interface GamebookRunRange {
  since?: string;
  before?: GamebookRunCursor;
}

/** What a stretch of runs holds: how many match, and the creation times of its newest and oldest. */
export interface GamebookRunSpan {
  count: number;
  newest?: string;
  oldest?: string;
}

export interface GamebookRunFilter {
  /** Lower-case text that the run's `searchText` must contain. */
  text?: string;
  /** Only runs in one of these statuses; absent or empty: any. */
  statuses?: readonly GamebookRunStatus[];
}

/** Runs waiting for approval, for the approval queue and the expiry sweep. */
export interface AwaitingApprovalFilter {
  /** Only these workspaces; absent: every workspace (empty: none). */
  workspaceIds?: readonly string[];
  /** Only requests that expire strictly before this instant (ISO 8601 UTC). */
  expiresBefore?: string;
}

/** An approval-queue cursor: runs strictly after (expiresAt, id). */
export interface AwaitingApprovalCursor {
  expiresAt: string;
  id: string;
}

/** A decided-approvals cursor: runs decided strictly before (decidedAt, id), newest decision first. */
export interface DecidedApprovalCursor {
  decidedAt: string;
  id: string;
}

/**
 * Gamebook runs, in their workspace's partition. `create` and `replace` commit the run's outbox
 * records (its event, its audit event, its executor message) with it, scope `workspace:<id>`.
 */
export interface GamebookRunStore {
  get(workspaceId: string, runId: string): Promise<Versioned<GamebookRunRecord> | undefined>;
  /** CONFLICT when the id exists. */
  create(run: GamebookRunRecord, outbox: readonly OutboxRecord[]): Promise<Versioned<GamebookRunRecord>>;
  /** CONFLICT when the run changed since it was read (another worker, an approval). */
  replace(run: GamebookRunRecord, etag: string, outbox?: readonly OutboxRecord[]): Promise<Versioned<GamebookRunRecord>>;
  /**
   * A workspace's runs newest first (creationDate, then id, descending), after `cursor`, at most
   * `limit`; `next` is set when more match.
   */
  list(
    workspaceId: string,
    filter: GamebookRunFilter,
    limit: number,
    cursor?: GamebookRunCursor,
  ): Promise<{ items: GamebookRunRecord[]; next?: GamebookRunCursor }>;
  /**
   * Counts a workspace's runs that match in a range, with the creation times of the newest and the
   * oldest of them (absent when none match): what a page number is sought with across workspaces,
   * without reading the runs before it. On the index of `list`, so a range costs an index count.
   */
  span(workspaceId: string, filter: GamebookRunFilter, range: GamebookRunRange): Promise<GamebookRunSpan>;
  /** The runs on one incident id, newest first, at most `limit`; of one source when `source` is given. */
  listForIncident(workspaceId: string, incidentId: string, source: Source | undefined, limit: number): Promise<GamebookRunRecord[]>;
  /** The newest run on an incident of that source. */
  latestForIncident(workspaceId: string, source: Source, incidentId: string): Promise<GamebookRunRecord | undefined>;
  /**
   * Runs waiting for approval (`Pending`, `isQueued`) that have an `approval.expiresAt`, across
   * workspaces, soonest to expire first (expiresAt, then id), after `cursor`, at most `limit`; `next`
   * is set when more match. Runs that started waiting before requests expired have no `expiresAt`
   * and are not listed.
   */
  listAwaitingApproval(
    filter: AwaitingApprovalFilter,
    page: { cursor?: AwaitingApprovalCursor; limit: number },
  ): Promise<{ items: GamebookRunRecord[]; next?: AwaitingApprovalCursor }>;
  /**
   * Runs of these workspaces whose approval was decided (approved by every approver it needed,
   * denied, or expired unanswered: `approval.decision` set), newest decision first
   * (approval.decidedAt, then id, descending), after `cursor`, at most `limit`; `next` is set when
   * more match. Runs that never waited for approval, and those still waiting, are not listed.
   */
  listDecided(
    workspaceIds: readonly string[],
    page: { cursor?: DecidedApprovalCursor; limit: number },
  ): Promise<{ items: GamebookRunRecord[]; next?: DecidedApprovalCursor }>;
}

/** A workspace's playbook catalogue (playbooks, gamebooks, rules): one document per workspace. */
export interface PlaybookCatalogueStore {
  get(workspaceId: string): Promise<PlaybookCatalogueRecord | undefined>;
  /** Writes the whole catalogue, replacing what was there, without a version or records; changes go through `changeCatalogue`. */
  put(catalogue: PlaybookCatalogueRecord): Promise<void>;
  /** The catalogue with its version, for a change (`commit`). */
  read(workspaceId: string): Promise<Versioned<PlaybookCatalogueRecord> | undefined>;
  /** CONFLICT when the workspace has a catalogue already; the outbox records (`workspace:<id>`) commit with it. */
  create(catalogue: PlaybookCatalogueRecord, outbox?: readonly OutboxRecord[]): Promise<Versioned<PlaybookCatalogueRecord>>;
  replace(catalogue: PlaybookCatalogueRecord, etag: string, outbox?: readonly OutboxRecord[]): Promise<Versioned<PlaybookCatalogueRecord>>;
}

export interface WebhookStore {
  get(id: string): Promise<Versioned<WebhookRecord> | undefined>;
  /** Webhooks owned by any of these accounts, by id. */
  listByAccounts(accountIds: readonly string[]): Promise<WebhookRecord[]>;
  create(record: WebhookRecord, outbox?: readonly OutboxRecord[]): Promise<Versioned<WebhookRecord>>;
  replace(record: WebhookRecord, etag: string, outbox?: readonly OutboxRecord[]): Promise<Versioned<WebhookRecord>>;
  delete(id: string, etag: string, outbox?: readonly OutboxRecord[]): Promise<void>;
}

/** A delivery-log page cursor: entries strictly older than (createdAt, id), newest first. */
export interface DeliveryLogCursor {
  createdAt: string;
  id: string;
}

export interface DeliveryLogStore {
  /** Writes an entry (a later write of the same id and createdAt replaces it: Pending → final). */
  put(entry: DeliveryLogRecord): Promise<void>;
  /** A point read; the createdAt names the partition. Expired entries are not returned. */
  get(webhookId: string, id: string, createdAt: string): Promise<DeliveryLogRecord | undefined>;
  /**
   * A webhook's entries with from <= createdAt < to, newest first, at most `limit`, after `cursor`,
   * only those `filter` keeps; entries older than `notBefore` (expired) are never returned.
   */
  list(
    webhookId: string,
    range: DeliveryLogRange,
    limit: number,
    cursor?: DeliveryLogCursor,
    filter?: DeliveryLogFilter,
  ): Promise<{ items: DeliveryLogRecord[]; next?: DeliveryLogCursor }>;
  /**
   * The outcome fields only (`DeliveryOutcome`) of a webhook's entries in the range, newest first
   * (`oldestFirst`: oldest first), at most `limit`; `truncated` when more matched. For health figures
   * and bulk redelivery: one day partition at a time, never expired entries.
   */
  outcomes(webhookId: string, range: DeliveryLogRange, limit: number, options?: { oldestFirst?: boolean }): Promise<{ items: DeliveryOutcome[]; truncated: boolean }>;
}

/** A time range of a webhook's delivery log: from <= createdAt < to, and never before `notBefore` (expired). */
export interface DeliveryLogRange {
  from: string;
  to: string;
  notBefore: string;
}

/** Per workspace: the reconciler's lease and its watermark per source. */
export interface ReconcilerStore {
  get(workspaceId: string): Promise<Versioned<ReconcilerStateRecord> | undefined>;
  /** CONFLICT when it exists already (another pass created it first). */
  create(record: ReconcilerStateRecord): Promise<Versioned<ReconcilerStateRecord>>;
  /** CONFLICT when it changed since read: another pass took the lease or moved the watermark. */
  replace(record: ReconcilerStateRecord, etag: string): Promise<Versioned<ReconcilerStateRecord>>;
}

/** A workspace's agent configuration, in its partition (`workspace:<id>` outbox scope). */
export interface AgentConfigurationStore {
  get(workspaceId: string): Promise<Versioned<AgentConfigurationRecord> | undefined>;
  /** CONFLICT when the workspace has one already. */
  create(record: AgentConfigurationRecord, outbox?: readonly OutboxRecord[]): Promise<Versioned<AgentConfigurationRecord>>;
  replace(record: AgentConfigurationRecord, etag: string, outbox?: readonly OutboxRecord[]): Promise<Versioned<AgentConfigurationRecord>>;
}

/** The records of a workspace's SOP documents (`workspace:<id>` outbox scope); their bytes are in the document store. */
export interface SopStore {
  /** Newest upload first; equal times by id. */
  list(workspaceId: string): Promise<SopRecord[]>;
  get(workspaceId: string, id: string): Promise<Versioned<SopRecord> | undefined>;
  /** CONFLICT when the id is taken. */
  create(record: SopRecord, outbox?: readonly OutboxRecord[]): Promise<Versioned<SopRecord>>;
  /** NOT_FOUND when gone, CONFLICT when changed since read. */
  delete(workspaceId: string, id: string, etag: string, outbox?: readonly OutboxRecord[]): Promise<void>;
}

/** A workspace's integration switches (`workspace:<id>` outbox scope). */
export interface WorkspaceIntegrationsStore {
  get(workspaceId: string): Promise<Versioned<WorkspaceIntegrationsRecord> | undefined>;
  /** CONFLICT when the workspace has the document already. */
  create(record: WorkspaceIntegrationsRecord, outbox?: readonly OutboxRecord[]): Promise<Versioned<WorkspaceIntegrationsRecord>>;
  replace(record: WorkspaceIntegrationsRecord, etag: string, outbox?: readonly OutboxRecord[]): Promise<Versioned<WorkspaceIntegrationsRecord>>;
}

/** Incident–ticket links of a workspace (`workspace:<id>` outbox scope). */
export interface TicketLinkStore {
  get(workspaceId: string, id: string): Promise<Versioned<TicketLinkRecord> | undefined>;
  /** The incident's links, oldest first. */
  listForIncident(workspaceId: string, source: string, incidentId: string): Promise<TicketLinkRecord[]>;
  /** The links of any of these tickets, oldest first. */
  listForTickets(workspaceId: string, ticketIds: readonly string[]): Promise<TicketLinkRecord[]>;
  /** CONFLICT when the id (the pair) is linked already. */
  create(record: TicketLinkRecord, outbox?: readonly OutboxRecord[]): Promise<Versioned<TicketLinkRecord>>;
  /** NOT_FOUND when gone, CONFLICT when changed since read. */
  delete(workspaceId: string, id: string, etag: string, outbox?: readonly OutboxRecord[]): Promise<void>;
}

/**
 * Records of requests sent with an `Idempotency-Key`, one per caller (`scope`, the partition) and
 * key (`id`). Each expires at its `expiresAt`; an expired record may still be read until the store
 * drops it (Cosmos removes expired items only eventually), so readers judge `expiresAt` themselves.
 */
export interface IdempotencyStore {
  get(scope: string, id: string): Promise<Versioned<IdempotencyRecord> | undefined>;
  /** CONFLICT (a lost race) when the caller's key has a record already. */
  create(record: IdempotencyRecord): Promise<Versioned<IdempotencyRecord>>;
  /** CONFLICT when the record changed since it was read; NOT_FOUND when it is gone. */
  replace(record: IdempotencyRecord, etag: string): Promise<Versioned<IdempotencyRecord>>;
  /** CONFLICT when the record changed since it was read; NOT_FOUND when it is gone. */
  delete(scope: string, id: string, etag: string): Promise<void>;
}

export interface Stores {
  accounts: AccountStore;
  workspaces: WorkspaceStore;
  serviceAccounts: ServiceAccountStore;
  users: UserStore;
  audit: AuditStore;
  incidents: IncidentStateStore;
  outbox: OutboxStore;
  gamebookRuns: GamebookRunStore;
  playbookCatalogues: PlaybookCatalogueStore;
  webhooks: WebhookStore;
  deliveryLogs: DeliveryLogStore;
  reconciler: ReconcilerStore;
  agentConfigurations: AgentConfigurationStore;
  sops: SopStore;
  integrations: WorkspaceIntegrationsStore;
  ticketLinks: TicketLinkStore;
  idempotencyKeys: IdempotencyStore;
}
