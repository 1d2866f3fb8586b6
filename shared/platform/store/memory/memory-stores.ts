import type {
  AccountStore,
  GamebookRunCursor,
  GamebookRunFilter,
  GamebookRunStore,
  IncidentStateStore,
  DeliveryLogRange,
  DeliveryLogStore,
  ReconcilerStore,
  WebhookStore,
  ServiceAccountStore,
  Stores,
  UserStore,
  WorkspaceStore,
} from "../ports";
import type { AccountRecord } from "../../../model/organizations/account";
import type { GamebookRunRecord } from "../../../model/gamebooks/gamebook-run";
import type { IncidentIndicators, IncidentStateRecord } from "../../../model/incidents/incident-state-record";
import { deliveryOutcomeFields, statusCodeRange, type DeliveryLogFilter, type DeliveryLogRecord } from "../../../model/webhooks/delivery-log";
import type { ReconcilerStateRecord } from "../../../model/reconciler/reconciler-state";
import type { WebhookRecord } from "../../../model/webhooks/webhook";
import type { ServiceAccountRecord } from "../../../model/organizations/service-account";
import type { UserRecord } from "../../../model/organizations/user";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";
import { deliveryLogPartition } from "../delivery-log-partition";
import { outboxScope } from "../outbox-scope";
import { MemoryOutbox, OutboxedWrites } from "./memory-outbox";
import { ExpiringKeys } from "../../expiring-keys";
import { VersionedMap, pageById } from "./versioned-map";
import { memoryIdempotencyKeys } from "./memory-idempotency";
import { memoryAgentConfigurations, memoryAudit, memoryIntegrations, memoryPlaybookCatalogues, memorySops, memoryTicketLinks, type MemoryAuditOptions } from "./memory-workspace-data";

export interface MemoryStoreOptions {
  /** The audit trail's retention (and, for tests, its clock). */
  audit?: MemoryAuditOptions;
  /** The clock the outbox and the delivery log expire by, in milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
  /** Default `MAX_PUBLISHED_OUTBOX_RECORDS`. */
  maxPublishedOutboxRecords?: number;
  /** Default `MAX_DELIVERY_LOG_ENTRIES_PER_WEBHOOK`. */
  maxDeliveryLogEntriesPerWebhook?: number;
  /** Default `MAX_SETTLED_GAMEBOOK_RUNS`. */
  maxSettledGamebookRuns?: number;
  /** Default `MAX_IDEMPOTENCY_RECORDS`. */
  maxIdempotencyRecords?: number;
}

/**
 * The embedded default: every store in this process's memory. What Cosmos lets expire expires here
 * too (published outbox records, delivery-log entries, audit events, idempotency records), and what Cosmos keeps for longer
 * than a process can hold (those, and settled gamebook runs) is bounded by count as well, so a
 * long-running local host under load keeps a steady heap (docs/decisions.md, Storage).
 */
export function createMemoryStores(options: MemoryStoreOptions = {}): Stores {
  const now = options.now ?? Date.now;
  const outbox = new MemoryOutbox({ now, maxPublished: options.maxPublishedOutboxRecords });
  return {
    accounts: memoryAccounts(outbox),
    workspaces: memoryWorkspaces(outbox),
    serviceAccounts: memoryServiceAccounts(outbox),
    users: memoryUsers(outbox),
    audit: memoryAudit({ now, ...options.audit }),
    incidents: memoryIncidents(outbox),
    outbox,
    gamebookRuns: memoryGamebookRuns(outbox, { now, maxSettled: options.maxSettledGamebookRuns ?? MAX_SETTLED_GAMEBOOK_RUNS }),
    playbookCatalogues: memoryPlaybookCatalogues(outbox),
    webhooks: memoryWebhooks(outbox),
    deliveryLogs: memoryDeliveryLogs({ now, maxPerWebhook: options.maxDeliveryLogEntriesPerWebhook ?? MAX_DELIVERY_LOG_ENTRIES_PER_WEBHOOK }),
    reconciler: memoryReconciler(),
    agentConfigurations: memoryAgentConfigurations(outbox),
    sops: memorySops(outbox),
    integrations: memoryIntegrations(outbox),
    ticketLinks: memoryTicketLinks(outbox),
    idempotencyKeys: memoryIdempotencyKeys({ now, max: options.maxIdempotencyRecords }),
  };
}

function memoryReconciler(): ReconcilerStore {
  const map = new VersionedMap<ReconcilerStateRecord>("reconciler state");
  return {
    async get(workspaceId) {
      return map.get(workspaceId);
    },
    async create(record) {
      return map.create(record.id, record);
    },
    async replace(record, etag) {
      return map.replace(record.id, record, etag);
    },
  };
}

function memoryWebhooks(outbox: MemoryOutbox): WebhookStore {
  const map = new VersionedMap<WebhookRecord>("webhook");
  const writes = new OutboxedWrites(map, outbox);
  return {
    async get(id) {
      return map.get(id);
    },
    async listByAccounts(accountIds) {
      return map
        .values()
        .filter((w) => accountIds.includes(w.targetAccountId))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
    },
    create: async (record, records) => writes.create(record.id, record, outboxScope.webhook(record.id), records),
    replace: async (record, etag, records) => writes.replace(record.id, record, etag, outboxScope.webhook(record.id), records),
    delete: async (id, etag, records) => writes.delete(id, etag, outboxScope.webhook(id), records),
  };
}

/**
 * Delivery-log entries the memory store keeps per webhook at most, newest kept. Cosmos keeps each entry
 * for its ttl (`DELIVERY_LOG_TTL_DAYS`, 30 by default), which in a local host's memory would be
 * gigabytes under a steady load (an entry is about 2 KB); the count bounds it. On the local host the
 * delivery log and the health figures (`GET /portal/webhooks/{id}/health`) cover these entries.
 */
export const MAX_DELIVERY_LOG_ENTRIES_PER_WEBHOOK = 1_000;

interface DeliveryLogOptions {
  now: () => number;
  maxPerWebhook: number;
}

/**
 * What Cosmos does by each entry's ttl (counted, as the service's reads count it, from `createdAt`),
 * plus the per-webhook bound, both through `ExpiringKeys`. An expired entry is never returned; it is
 * dropped when it reaches the front of the write order (entries are written about in time order, so
 * that is soon), and a webhook's oldest entry goes when it has more than `maxPerWebhook`. Each entry is
 * dropped once: O(1) per write, amortised. Reads look at the webhook's own entries only.
 */
function memoryDeliveryLogs({ now, maxPerWebhook }: DeliveryLogOptions): DeliveryLogStore {
  // Every entry by `<partitionKey>|<id>` (a later put replaces it in place).
  const entries = new Map<string, DeliveryLogRecord>();
  // Per webhook, the keys of its entries in the order first written, at most `maxPerWebhook`.
  const byWebhook = new Map<string, ExpiringKeys<string>>();
  // Every entry's key in the order first written, until its ttl has passed.
  const expiring = new ExpiringKeys<string>({
    now,
    onDrop: (k) => {
      const webhookId = entries.get(k)!.webhookConfigurationId;
      entries.delete(k);
      const keys = byWebhook.get(webhookId)!;
      keys.forget(k);
      if (keys.size === 0) byWebhook.delete(webhookId);
    },
  });
  const key = (partitionKey: string, id: string) => `${partitionKey}|${id}`;
  const expiresAt = (e: DeliveryLogRecord) => Date.parse(e.createdAt) + e.ttl * 1000;
  const webhookKeys = (webhookId: string) => {
    let keys = byWebhook.get(webhookId);
    if (!keys) {
      keys = new ExpiringKeys<string>({
        now,
        max: maxPerWebhook,
        onDrop: (k) => {
          entries.delete(k);
          expiring.forget(k);
        },
      });
      byWebhook.set(webhookId, keys);
    }
    return keys;
  };
  return {
    async put(entry) {
      expiring.trim();
      const k = key(entry.partitionKey, entry.id);
      const known = entries.has(k);
      entries.set(k, Object.freeze(structuredClone(entry)));
      if (known) return;
      webhookKeys(entry.webhookConfigurationId).keep(k, Infinity);
      expiring.keep(k, expiresAt(entry));
    },
    async get(webhookId, id, createdAt) {
      const found = entries.get(key(deliveryLogPartition(webhookId, createdAt), id));
      return found && found.createdAt === createdAt && expiresAt(found) > now() ? found : undefined;
    },
    async list(webhookId, range, limit, cursor, filter = {}) {
      const matching = inRange(webhookId, range)
        .filter((e) => !cursor || e.createdAt < cursor.createdAt || (e.createdAt === cursor.createdAt && e.id < cursor.id))
        .filter((e) => keeps(filter, e))
        .sort(newestFirst);
      const items = matching.slice(0, limit);
      const last = items.at(-1);
      return { items, next: matching.length > limit && last ? { createdAt: last.createdAt, id: last.id } : undefined };
    },
    async outcomes(webhookId, range, limit, options = {}) {
      const sorted = inRange(webhookId, range).sort(newestFirst);
      if (options.oldestFirst) sorted.reverse();
      return { items: sorted.slice(0, limit).map((e) => pick(e, deliveryOutcomeFields)), truncated: sorted.length > limit };
    },
  };

  function inRange(webhookId: string, range: DeliveryLogRange): DeliveryLogRecord[] {
    const lower = range.from > range.notBefore ? range.from : range.notBefore;
    const time = now();
    const found: DeliveryLogRecord[] = [];
    for (const k of byWebhook.get(webhookId)?.keys() ?? []) {
      const e = entries.get(k)!;
      if (e.createdAt >= lower && e.createdAt < range.to && expiresAt(e) > time) found.push(e);
    }
    return found;
  }
}

const newestFirst = (a: DeliveryLogRecord, b: DeliveryLogRecord) => (a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.id < b.id ? 1 : -1);

function keeps(filter: DeliveryLogFilter, e: DeliveryLogRecord): boolean {
  if (filter.status !== undefined && e.status !== filter.status) return false;
  if (filter.statusClass === undefined) return true;
  const { min, max } = statusCodeRange(filter.statusClass);
  return e.httpStatusCode >= min && e.httpStatusCode <= max;
}

function pick<T, K extends keyof T>(value: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, value[k]])) as Pick<T, K>;
}

function memoryIncidents(outbox: MemoryOutbox): IncidentStateStore {
  const states = new VersionedMap<IncidentStateRecord>("incident state");
  const writes = new OutboxedWrites(states, outbox);
  const key = (workspaceId: string, stateId: string) => `${workspaceId}|${stateId}`;
  // Each workspace's state keys, as its Cosmos partition holds them: a query across workspaces reads only theirs.
  const byWorkspace = new Map<string, Set<string>>();
  return {
    async get(workspaceId, stateId) {
      return states.get(key(workspaceId, stateId));
    },
    async getMany(workspaceId, stateIds) {
      return [...new Set(stateIds)].flatMap((id) => states.get(key(workspaceId, id)) ?? []);
    },
    async commit(state, etag, records) {
      const k = key(state.workspaceId, state.id);
      const scope = outboxScope.workspace(state.workspaceId);
      const saved = etag === null ? writes.create(k, state, scope, records) : writes.replace(k, state, etag, scope, records);
      let keys = byWorkspace.get(state.workspaceId);
      if (!keys) byWorkspace.set(state.workspaceId, (keys = new Set()));
      keys.add(k);
      return saved;
    },
    async openWithIndicators(workspaceIds, since, limit) {
      const found: IncidentIndicators[] = [];
      for (const workspaceId of new Set(workspaceIds)) {
        for (const k of byWorkspace.get(workspaceId) ?? []) {
          const s = states.get(k)!.value;
          if (s.status === "Closed" || s.deletedAt !== null || s.sla.startedAt < since || !s.indicators?.length) continue;
          found.push({ workspaceId: s.workspaceId, accountId: s.accountId, source: s.source, incidentId: s.incidentId, title: s.title!, severity: s.severity!, createdAt: s.sla.startedAt, indicators: s.indicators });
        }
      }
      found.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
      return { items: found.slice(0, Math.max(0, limit)), truncated: found.length > limit };
    },
  };
}

/**
 * Settled gamebook runs (succeeded, failed, denied, cancelled: no longer waiting or running) the memory
 * store keeps at most, across workspaces, the first settled going first. Cosmos keeps every run (no
 * ttl); a run is ~3 KB in memory, and the soak bench settles six a second, so a local host would grow
 * ~1 MB a minute. A demo's history pages and an incident's last run read recent runs; 1,000 is many
 * pages of them (~3 MB). Runs still waiting or running are never dropped: the approval queue and the
 * executor work on them.
 */
export const MAX_SETTLED_GAMEBOOK_RUNS = 1_000;

function memoryGamebookRuns(outbox: MemoryOutbox, options: { now: () => number; maxSettled: number }): GamebookRunStore {
  const runs = new VersionedMap<GamebookRunRecord>("gamebook run");
  const writes = new OutboxedWrites(runs, outbox);
  const key = (workspaceId: string, runId: string) => `${workspaceId}|${runId}`;
  // Per workspace and per incident, the runs in (creationDate, id) order, as the Cosmos indexes keep
  // them: a page walks back from its cursor instead of sorting the history.
  const byWorkspace = new Map<string, RunKey[]>();
  const byIncident = new Map<string, RunKey[]>();
  // The keys of the runs waiting for approval: the queue and the expiry sweep read only these.
  const waiting = new Set<string>();
  // The decided runs in (decidedAt, id) order, as the Cosmos index keeps them; a decision is final, so
  // a run enters once and leaves only when it is dropped.
  const decided: DecidedKey[] = [];
  const decidedRuns = new Set<string>();
  const decidedKeyOf = (run: GamebookRunRecord): DecidedKey | undefined =>
    run.approval.decision !== null && typeof run.approval.decidedAt === "string" ? { at: run.approval.decidedAt, id: run.id, workspaceId: run.workspaceId } : undefined;
  // The keys of the settled runs, in the order they settled: past the bound the first settled is dropped.
  const settled = new ExpiringKeys<string>({
    now: options.now,
    max: options.maxSettled,
    onDrop: (k) => {
      const found = runs.get(k)!;
      runs.delete(k, found.etag);
      unindex(byWorkspace, found.value.workspaceId, found.value);
      unindex(byIncident, `${found.value.workspaceId}|${found.value.incidentId}`, found.value);
      if (decidedRuns.delete(k)) {
        const decision = decidedKeyOf(found.value)!;
        let at = firstAfter(decided, decision, true);
        while (decided[at] && decided[at]!.workspaceId !== decision.workspaceId) at++;
        decided.splice(at, 1);
      }
    },
  });
  const track = (run: GamebookRunRecord) => {
    const k = key(run.workspaceId, run.id);
    if (run.status === "Pending" && run.isQueued) waiting.add(k);
    else waiting.delete(k);
    if (run.status === "Pending" || run.status === "Running") settled.forget(k);
    else if (!settled.has(k)) settled.keep(k, Infinity);
    const decision = decidedKeyOf(run);
    if (decision && !decidedRuns.has(k)) {
      decidedRuns.add(k);
      decided.splice(firstAfter(decided, decision), 0, decision);
    }
  };
  const index = (map: Map<string, RunKey[]>, k: string, run: GamebookRunRecord) => {
    const keys = map.get(k) ?? [];
    keys.splice(firstAfter(keys, createdKey(run)), 0, createdKey(run));
    map.set(k, keys);
  };
  /** Takes a dropped run out of one index: found by binary search, its array bounded by what is kept. */
  const unindex = (map: Map<string, RunKey[]>, k: string, run: GamebookRunRecord) => {
    const keys = map.get(k);
    if (!keys) return;
    const at = firstAfter(keys, createdKey(run), true);
    if (keys[at]?.id === run.id) keys.splice(at, 1);
    if (keys.length === 0) map.delete(k);
  };
  /** Walks one index newest first from before `cursor`, keeping runs that pass `keep`, at most `limit + 1`. */
  const walk = (keys: readonly RunKey[] | undefined, workspaceId: string, limit: number, keep: (r: GamebookRunRecord) => boolean, cursor?: GamebookRunCursor) => {
    const found: GamebookRunRecord[] = [];
    if (!keys) return found;
    for (let i = (cursor ? firstAfter(keys, { at: cursor.creationDate, id: cursor.id }, true) : keys.length) - 1; i >= 0 && found.length <= limit; i--) {
      const run = runs.get(key(workspaceId, keys[i]!.id))?.value;
      if (run && keep(run)) found.push(run);
    }
    return found;
  };
  return {
    async get(workspaceId, runId) {
      return runs.get(key(workspaceId, runId));
    },
    async create(run, records) {
      const saved = writes.create(key(run.workspaceId, run.id), run, outboxScope.workspace(run.workspaceId), records);
      index(byWorkspace, run.workspaceId, run);
      index(byIncident, `${run.workspaceId}|${run.incidentId}`, run);
      track(run);
      return saved;
    },
    async replace(run, etag, records) {
      const current = runs.get(key(run.workspaceId, run.id));
      if (current && (current.value.creationDate !== run.creationDate || current.value.incidentId !== run.incidentId)) {
        throw new Error("A gamebook run's creationDate and incidentId never change.");
      }
      const saved = writes.replace(key(run.workspaceId, run.id), run, etag, outboxScope.workspace(run.workspaceId), records);
      track(run);
      return saved;
    },
    async list(workspaceId, filter, limit, cursor) {
      const found = walk(byWorkspace.get(workspaceId), workspaceId, Math.max(0, limit), matching(filter), cursor);
      const items = found.slice(0, Math.max(0, limit));
      const last = items.at(-1);
      return { items, next: found.length > items.length && last ? { creationDate: last.creationDate, id: last.id } : undefined };
    },
    async span(workspaceId, filter, range) {
      const keys = byWorkspace.get(workspaceId) ?? [];
      // The range is a stretch of the sorted index, found by binary search: unfiltered, its count
      // and ends are read off it; filtered, only the stretch is walked.
      const low = range.since === undefined ? 0 : firstAfter(keys, { at: range.since, id: "" }, true);
      const high = range.before === undefined ? keys.length : firstAfter(keys, { at: range.before.creationDate, id: range.before.id }, true);
      if (high <= low) return { count: 0 };
      const keep = filter.text === undefined && !(filter.statuses && filter.statuses.length > 0) ? undefined : matching(filter);
      if (!keep) return { count: high - low, newest: keys[high - 1]!.at, oldest: keys[low]!.at };
      let count = 0;
      let newest: string | undefined;
      let oldest: string | undefined;
      for (let i = low; i < high; i++) {
        const run = runs.get(key(workspaceId, keys[i]!.id))?.value;
        if (!run || !keep(run)) continue;
        count++;
        oldest ??= run.creationDate;
        newest = run.creationDate;
      }
      return count === 0 ? { count } : { count, newest, oldest };
    },
    async listForIncident(workspaceId, incidentId, source, limit) {
      const found = walk(byIncident.get(`${workspaceId}|${incidentId}`), workspaceId, Math.max(0, limit), (r) => source === undefined || r.source === source);
      return found.slice(0, Math.max(0, limit));
    },
    async latestForIncident(workspaceId, source, incidentId) {
      return walk(byIncident.get(`${workspaceId}|${incidentId}`), workspaceId, 0, (r) => r.source === source)[0];
    },
    async listAwaitingApproval(filter, page) {
      const limit = Math.max(0, page.limit);
      if (limit === 0) return { items: [] };
      const workspaces = filter.workspaceIds && new Set(filter.workspaceIds);
      const { cursor } = page;
      const found = [...waiting]
        .flatMap((k) => runs.get(k)?.value ?? [])
        .filter((r): r is GamebookRunRecord & { approval: { expiresAt: string } } => r.status === "Pending" && r.isQueued && typeof r.approval.expiresAt === "string")
        .filter((r) => (!workspaces || workspaces.has(r.workspaceId)) && (filter.expiresBefore === undefined || r.approval.expiresAt < filter.expiresBefore))
        .filter((r) => !cursor || r.approval.expiresAt > cursor.expiresAt || (r.approval.expiresAt === cursor.expiresAt && r.id > cursor.id))
        .sort((a, b) => (a.approval.expiresAt < b.approval.expiresAt ? -1 : a.approval.expiresAt > b.approval.expiresAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const items = found.slice(0, limit);
      const last = items.at(-1);
      return { items, next: found.length > limit && last ? { expiresAt: last.approval.expiresAt!, id: last.id } : undefined };
    },
    async listDecided(workspaceIds, page) {
      const limit = Math.max(0, page.limit);
      const wanted = new Set(workspaceIds);
      if (limit === 0 || wanted.size === 0) return { items: [] };
      const found: GamebookRunRecord[] = [];
      const from = page.cursor ? firstAfter(decided, { at: page.cursor.decidedAt, id: page.cursor.id }, true) : decided.length;
      for (let i = from - 1; i >= 0 && found.length <= limit; i--) {
        const entry = decided[i]!;
        if (wanted.has(entry.workspaceId)) found.push(runs.get(key(entry.workspaceId, entry.id))!.value);
      }
      const items = found.slice(0, limit);
      const last = items.at(-1);
      return { items, next: found.length > limit && last ? { decidedAt: last.approval.decidedAt!, id: last.id } : undefined };
    },
  };
}

/** A run's place in one of the memory indexes: by creation (`at` = creationDate) or by decision (`at` = approval.decidedAt). */
interface RunKey {
  at: string;
  id: string;
}

interface DecidedKey extends RunKey {
  workspaceId: string;
}

const createdKey = (run: GamebookRunRecord): RunKey => ({ at: run.creationDate, id: run.id });

/** Whether a run passes a history filter (text in its `searchText`, one of the statuses). */
function matching(filter: GamebookRunFilter): (run: GamebookRunRecord) => boolean {
  const statuses = filter.statuses && filter.statuses.length > 0 ? new Set(filter.statuses) : undefined;
  return (r) => (filter.text === undefined || r.searchText.includes(filter.text)) && (statuses === undefined || statuses.has(r.status));
}

/** The index of the first key after `key` in (at, id) order; with `atOrAfter`, the first not before it. */
function firstAfter(keys: readonly RunKey[], key: RunKey, atOrAfter = false): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const k = keys[mid]!;
    const before = k.at < key.at || (k.at === key.at && (atOrAfter ? k.id < key.id : k.id <= key.id));
    if (before) low = mid + 1;
    else high = mid;
  }
  return low;
}

function memoryAccounts(outbox: MemoryOutbox): AccountStore {
  const map = new VersionedMap<AccountRecord>("account");
  const writes = new OutboxedWrites(map, outbox);
  return {
    async get(id) {
      return map.get(id)?.value;
    },
    async read(id) {
      return map.get(id);
    },
    async listManagedBy(providerId) {
      return map.values().filter((a) => a.managedByAccountId === providerId);
    },
    create: async (account, records) => writes.create(account.id, account, outboxScope.account(account.id), records),
    replace: async (account, etag, records) => writes.replace(account.id, account, etag, outboxScope.account(account.id), records),
    async upsert(account) {
      map.upsert(account.id, account);
    },
  };
}

function memoryWorkspaces(outbox: MemoryOutbox): WorkspaceStore {
  const map = new VersionedMap<WorkspaceRecord>("workspace");
  const writes = new OutboxedWrites(map, outbox);
  /** A workspace that is still onboarded: an offboarded one is gone for every reader but `read`. */
  const current = (id: string) => {
    const workspace = map.get(id)?.value;
    return workspace && !workspace.offboarded ? workspace : undefined;
  };
  const byId = (a: WorkspaceRecord, b: WorkspaceRecord) => (a.id < b.id ? -1 : 1);
  return {
    async get(id) {
      return current(id);
    },
    async read(id) {
      return map.get(id);
    },
    async getMany(ids) {
      const found: WorkspaceRecord[] = [];
      for (const id of new Set(ids)) {
        const workspace = current(id);
        if (workspace) found.push(workspace);
      }
      return found;
    },
    async listByAccounts(accountIds) {
      return map.values().filter((w) => !w.offboarded && accountIds.includes(w.accountId)).sort(byId);
    },
    async listAll() {
      return map.values().filter((w) => !w.offboarded).sort(byId);
    },
    async listOffboarded(accountIds) {
      return map.values().filter((w) => w.offboarded && accountIds.includes(w.accountId)).sort(byId);
    },
    create: async (workspace, records) => writes.create(workspace.id, workspace, outboxScope.workspaceRecord(workspace.id), records),
    replace: async (workspace, etag, records) => writes.replace(workspace.id, workspace, etag, outboxScope.workspaceRecord(workspace.id), records),
    async upsert(workspace) {
      map.upsert(workspace.id, workspace);
    },
  };
}

function memoryServiceAccounts(outbox: MemoryOutbox): ServiceAccountStore {
  const map = new VersionedMap<ServiceAccountRecord>("service account");
  const writes = new OutboxedWrites(map, outbox);
  return {
    async get(id) {
      return map.get(id);
    },
    async list(accountIds, page) {
      return pageById(
        map.values().filter((s) => accountIds.includes(s.accountId)),
        page,
      );
    },
    create: async (record, records) => writes.create(record.id, record, outboxScope.serviceAccount(record.id), records),
    replace: async (record, etag, records) => writes.replace(record.id, record, etag, outboxScope.serviceAccount(record.id), records),
    delete: async (id, etag, records) => writes.delete(id, etag, outboxScope.serviceAccount(id), records),
  };
}

function memoryUsers(outbox: MemoryOutbox): UserStore {
  const map = new VersionedMap<UserRecord>("user");
  const writes = new OutboxedWrites(map, outbox);
  const key = (accountId: string, id: string) => `${accountId}/${id}`;
  return {
    async find(accountIds, id) {
      for (const accountId of accountIds) {
        const found = map.get(key(accountId, id));
        if (found) return found;
      }
      return undefined;
    },
    async findByEmail(accountId, email) {
      const wanted = email.toLowerCase();
      return map.values().find((u) => u.accountId === accountId && u.email.toLowerCase() === wanted);
    },
    async findByDirectoryIdentity(tenantId, id) {
      const tenant = tenantId.toLowerCase();
      return map
        .values()
        .filter((u) => u.id === id && u.tenantId.toLowerCase() === tenant)
        .sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0));
    },
    async list(accountIds, filter, page) {
      const email = filter.email?.toLowerCase();
      return pageById(
        map
          .values()
          .filter(
            (u) =>
              accountIds.includes(u.accountId) &&
              (email === undefined || u.email.toLowerCase() === email) &&
              (filter.role === undefined || u.organizationalRole === filter.role) &&
              (filter.workspaceId === undefined || (u.workspaceAssignments ?? []).some((a) => a.workspaceId === filter.workspaceId)),
          ),
        page,
      );
    },
    create: async (record, records) => writes.create(key(record.accountId, record.id), record, outboxScope.users(record.accountId), records),
    replace: async (record, etag, records) => writes.replace(key(record.accountId, record.id), record, etag, outboxScope.users(record.accountId), records),
    delete: async (accountId, id, etag, records) => writes.delete(key(accountId, id), etag, outboxScope.users(accountId), records),
  };
}
