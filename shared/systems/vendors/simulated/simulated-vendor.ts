import { setTimeout as sleep } from "node:timers/promises";
import { ApiError, invalidPageToken, isApiError, notFound } from "../../../platform/errors/api-error";
import type { EntityQuery, IncidentFilters, IncidentPage, IncidentWindowQuery, NewVendorComment, SourceGateway, VendorCommentChange, VendorStatusChange } from "../port";
import type { Classification, Evidence, Severity, VendorComment, VendorIncident, VendorOwner } from "../../../model/incidents/incident";
import { entityKinds } from "../../../model/incidents/incident";
import { sources, type Source } from "../../../model/sources";
import { buildEntityPool, organizationSlug, poolSize, type PooledEntity, type WorkspaceIdentity } from "./entity-pool";
import { RELATED_SCAN_LIMIT, SourcePartition, type NewEntity } from "./source-partition";
import { decodeCursor, encodeCursor, type ScanBounds } from "./window-index";

export interface SimulatedVendorOptions {
  /** Same seed and same options give identical data (ids, titles, times...). */
  seed: string;
  workspaces: readonly { id: string; name: string; tenantId: string }[];
  /** Total across sources, e.g. 300 for the demo, 2,000 or 20,000 for benchmarks. */
  incidentsPerWorkspace: number;
  /** People incidents may be owned by (may be empty). */
  owners: readonly { userId: string; email: string; name: string }[];
  /** Clock for changes; the seeding time is now() at construction. */
  now: () => Date;
  /** Seeded incidents' createdAt spread over [seedTime - spanDays, seedTime); default 30. */
  spanDays?: number;
  /** Every call waits this long (without using CPU), as a real vendor's API would; default 0. */
  latencyMs?: number;
  /** Workspaces whose entity pool stays built (the most recently read); default `POOLS_KEPT`. */
  poolsKept?: number;
}

export interface SimulatedVendors {
  gateway(source: Source): SourceGateway;
  /** Acting "in the vendor console", for local controls and tests. */
  console: SimulatedConsole;
}

export interface SimulatedConsole {
  /**
   * A workspace the vendors hold from now on, with no incident yet (a customer's tenant onboarded
   * after start); nothing when they hold it already.
   */
  addWorkspace(workspace: { id: string; name: string; tenantId: string }): void;
  /**
   * A new incident, created now(). With `entities`, it holds those instead of entities drawn from the
   * workspace's pool (the by-entity search, which knows the pool's, then relates it to nothing).
   */
  createIncident(source: Source, workspaceId: string, input: { title: string; severity: Severity; entities?: readonly NewEntity[] }): VendorIncident;
  /** A close made in the console. */
  close(source: Source, workspaceId: string, incidentId: string, classification: Classification, closingComment?: string): VendorIncident;
  deleteIncident(source: Source, workspaceId: string, incidentId: string): void;
  /** Moves lastActivityTime and lastModificationTime. */
  addAlert(source: Source, workspaceId: string, incidentId: string, alert: { title: string; severity: Severity }): VendorIncident;
  /** The vendor throttles the service: every call answers 429 with this Retry-After until it has passed. */
  rateLimit(source: Source, retryAfterSeconds: number): void;
}

/** How a workspace's incidents split across the vendors: most come from the first two. */
const sourceShares: Readonly<Record<Source, number>> = {
  SourceA: 0.3,
  SourceB: 0.2,
  SourceC: 0.14,
  SourceD: 0.12,
  SourceE: 0.1,
  SourceF: 0.08,
  SourceG: 0.06,
};

const DAY = 86_400_000;

/**
 * The embedded default vendors: seven simulated incident systems sharing one set of workspaces.
 * Seeding stores a compact summary per incident; details are generated on read, and changes made
 * through a gateway or the console are overlays that win over the generated values.
 *
 * @example
 * const vendors = createSimulatedVendors({ seed: "demo", workspaces, incidentsPerWorkspace: 300, owners: [], now: () => new Date() });
 * const page = await vendors.gateway("SourceA").listIncidents({ workspaceId, field: "createdAt", from, to, limit: 50 });
 */
export function createSimulatedVendors(options: SimulatedVendorOptions): SimulatedVendors {
  const nowMs = () => options.now().getTime();
  const seedTime = nowMs();
  const spanMs = Math.max(1, Math.round((options.spanDays ?? 30) * DAY));
  const total = Math.max(0, Math.floor(options.incidentsPerWorkspace));
  const owners = options.owners.map((o) => Object.freeze({ userId: o.userId, email: o.email, name: o.name }));
  const counts = splitAcrossSources(total);
  const partitions = new Map<string, Map<Source, SourcePartition>>();
  const pools = new PoolCache(options.poolsKept ?? POOLS_KEPT);

  /** A workspace's partitions at every source, `perSource` seeded incidents each. */
  const addPartitions = (ws: WorkspaceIdentity, perSource: Readonly<Record<Source, number>>) => {
    const workspace: WorkspaceIdentity = Object.freeze({ id: ws.id, name: ws.name, tenantId: ws.tenantId });
    const lazyPool = () => pools.get(workspace.id, () => buildEntityPool(options.seed, workspace));
    const orgDomain = `${organizationSlug(workspace)}.example`;
    const bySource = new Map<Source, SourcePartition>();
    sources.forEach((source, sourceIndex) => {
      bySource.set(
        source,
        new SourcePartition({ seed: options.seed, workspace, source, sourceIndex, count: perSource[source], owners, orgDomain, pool: lazyPool, seedTime, spanMs, now: nowMs }),
      );
    });
    partitions.set(workspace.id, bySource);
  };
  for (const ws of options.workspaces) addPartitions(ws, counts);
  const noIncidents = splitAcrossSources(0);

  const partitionOf = (source: Source, workspaceId: string): SourcePartition => {
    const partition = partitions.get(workspaceId)?.get(source);
    if (!partition) throw notFound("The workspace", "workspaceId");
    return partition;
  };

  const throttledUntil = new Map<Source, number>();
  const gateways = new Map<Source, SourceGateway>();
  const gateway = (source: Source): SourceGateway => {
    let existing = gateways.get(source);
    if (!existing) {
      if (!sources.includes(source)) throw new ApiError("VALIDATION_ERROR", `Unknown source ${String(source)}.`, { target: "source" });
      existing = new SimulatedGateway(source, (ws) => partitionOf(source, ws), nowMs, {
        latencyMs: options.latencyMs ?? 0,
        throttledUntil: () => throttledUntil.get(source) ?? 0,
      });
      gateways.set(source, existing);
    }
    return existing;
  };

  const vendorConsole: SimulatedConsole = {
    addWorkspace(workspace) {
      if (!partitions.has(workspace.id)) addPartitions(workspace, noIncidents);
    },
    createIncident(source, workspaceId, input) {
      const partition = partitionOf(source, workspaceId);
      const now = nowMs();
      return partition.read(partition.create(input.title, input.severity, now, input.entities), now);
    },
    close(source, workspaceId, incidentId, classification, closingComment) {
      const partition = partitionOf(source, workspaceId);
      const index = partition.require(incidentId);
      const now = nowMs();
      partition.setStatus(index, "Closed", classification, closingComment, now);
      return partition.read(index, now);
    },
    deleteIncident(source, workspaceId, incidentId) {
      const partition = partitionOf(source, workspaceId);
      partition.delete(partition.require(incidentId), nowMs());
    },
    addAlert(source, workspaceId, incidentId, alert) {
      const partition = partitionOf(source, workspaceId);
      const index = partition.require(incidentId);
      const now = nowMs();
      partition.addAlert(index, alert.title, alert.severity, now);
      return partition.read(index, now);
    },
    rateLimit(source, retryAfterSeconds) {
      throttledUntil.set(source, nowMs() + retryAfterSeconds * 1000);
    },
  };

  return { gateway, console: vendorConsole };
}

/**
 * Workspaces whose entity pool is kept built. A pool is ~300 entities (~90 KB of heap) and is made
 * again, the same, from its seed. Kept for every workspace, at 10,000 workspaces the local host's
 * heap after seeding was 1,453 MB (734 MB keeping these), and every full collection marks the whole
 * heap, in the middle of the listings' calls. A listing page reads a few dozen workspaces, the
 * queue's first pages hundreds: the pools most recently used stay, the others are rebuilt when read
 * again (docs/scaling.md, Cross-workspace paging).
 */
export const POOLS_KEPT = 1_000;

/** The most recently used pools, at most `size`: one read moves a pool to the back, the front goes first. */
class PoolCache {
  private readonly pools = new Map<string, readonly PooledEntity[]>();
  constructor(private readonly size: number) {}

  get(workspaceId: string, build: () => readonly PooledEntity[]): readonly PooledEntity[] {
    let pool = this.pools.get(workspaceId);
    if (pool) this.pools.delete(workspaceId);
    else pool = build();
    this.pools.set(workspaceId, pool);
    if (this.pools.size > this.size) this.pools.delete(this.pools.keys().next().value!);
    return pool;
  }
}

function splitAcrossSources(total: number): Record<Source, number> {
  const counts = {} as Record<Source, number>;
  let assigned = 0;
  for (const source of sources) {
    counts[source] = Math.floor(total * sourceShares[source]);
    assigned += counts[source];
  }
  counts.SourceA += total - assigned;
  return counts;
}

/** How the simulated vendor behaves beyond its data: how slow it is, whether it is throttling. */
interface VendorConditions {
  latencyMs: number;
  /** Epoch ms until which every call is answered 429. */
  throttledUntil(): number;
}

class SimulatedGateway implements SourceGateway {
  constructor(
    readonly source: Source,
    private readonly partitionOf: (workspaceId: string) => SourcePartition,
    private readonly nowMs: () => number,
    private readonly conditions: VendorConditions,
  ) {}

  getIncident(workspaceId: string, incidentId: string, signal?: AbortSignal): Promise<VendorIncident> {
    return this.run(signal, () => {
      const partition = this.partitionOf(workspaceId);
      return partition.read(partition.require(incidentId), this.nowMs());
    });
  }

  listIncidents(query: IncidentWindowQuery, signal?: AbortSignal): Promise<IncidentPage> {
    return this.run(signal, () => {
      const partition = this.partitionOf(query.workspaceId);
      if (query.field !== "createdAt" && query.field !== "lastModificationTime") throw invalid("field", "Must be createdAt or lastModificationTime.");
      const from = parseTime(query.from, "from");
      const to = parseTime(query.to, "to");
      const limit = parseLimit(query.limit);
      let before: ScanBounds["before"] = { t: to, id: null };
      if (query.cursor !== undefined) {
        const after = decodeCursor(query.field, query.cursor);
        if (!after) throw invalidPageToken("cursor");
        if (after.t < to) before = after;
      }
      const now = this.nowMs();
      const tombstones = query.includeDeleted === true && query.field === "lastModificationTime";
      const filter = filterOf(partition, query.filters);
      const accept = (index: number) => (partition.isDeleted(index) ? tombstones : filter(index));
      const { matches, more } = partition.scan(query.field, from, before, limit, accept);
      const items = matches.map((m) => {
        const incident = partition.read(m.index, now);
        return partition.isDeleted(m.index) ? { ...incident, deletedAt: incident.lastModificationTime } : incident;
      });
      const last = matches[matches.length - 1];
      return more && last ? { items, cursor: encodeCursor(query.field, last.key) } : { items };
    });
  }

  setStatus(workspaceId: string, incidentId: string, change: VendorStatusChange, signal?: AbortSignal): Promise<VendorIncident> {
    return this.run(signal, () => {
      const partition = this.partitionOf(workspaceId);
      const index = partition.require(incidentId);
      const now = this.nowMs();
      partition.setStatus(index, change.status, change.classification, change.closingComment, now);
      return partition.read(index, now);
    });
  }

  setOwner(workspaceId: string, incidentId: string, owner: VendorOwner | null, signal?: AbortSignal): Promise<VendorIncident> {
    return this.run(signal, () => {
      const partition = this.partitionOf(workspaceId);
      const index = partition.require(incidentId);
      const now = this.nowMs();
      partition.setOwner(index, owner, now);
      return partition.read(index, now);
    });
  }

  listComments(workspaceId: string, incidentId: string, signal?: AbortSignal): Promise<VendorComment[]> {
    return this.run(signal, () => {
      const partition = this.partitionOf(workspaceId);
      return partition.comments(partition.require(incidentId));
    });
  }

  addComment(workspaceId: string, incidentId: string, comment: NewVendorComment, signal?: AbortSignal): Promise<VendorComment> {
    return this.run(signal, () => {
      const partition = this.partitionOf(workspaceId);
      return partition.addComment(partition.require(incidentId), comment, this.nowMs());
    });
  }

  updateComment(workspaceId: string, incidentId: string, commentId: string, change: VendorCommentChange, signal?: AbortSignal): Promise<VendorComment> {
    return this.run(signal, () => {
      const partition = this.partitionOf(workspaceId);
      return partition.updateComment(partition.require(incidentId), commentId, change, this.nowMs());
    });
  }

  deleteComment(workspaceId: string, incidentId: string, commentId: string, signal?: AbortSignal): Promise<void> {
    return this.run(signal, () => {
      const partition = this.partitionOf(workspaceId);
      partition.deleteComment(partition.require(incidentId), commentId, this.nowMs());
    });
  }

  getEvidence(workspaceId: string, incidentId: string, signal?: AbortSignal): Promise<Evidence> {
    return this.run(signal, () => {
      const partition = this.partitionOf(workspaceId);
      return partition.evidence(partition.require(incidentId));
    });
  }

  relatedByEntity(query: EntityQuery, signal?: AbortSignal): Promise<VendorIncident[]> {
    return this.run(signal, () => {
      const partition = this.partitionOf(query.workspaceId);
      const limit = parseLimit(query.limit);
      if (query.entityKind !== undefined && !entityKinds.includes(query.entityKind)) {
        throw invalid("entityKind", `Must be one of ${entityKinds.join(", ")}.`);
      }
      const field = query.timeField ?? "createdAt";
      if (field !== "createdAt" && field !== "lastModificationTime") throw invalid("timeField", "Must be createdAt or lastModificationTime.");
      const from = query.startDate === undefined ? -Infinity : parseTime(query.startDate, "startDate");
      const to = query.endDate === undefined ? Infinity : parseTime(query.endDate, "endDate");
      const self = query.incidentId === undefined ? undefined : partition.require(query.incidentId);
      const wanted = wantedSlots(partition, query, self);
      if (wanted.size === 0) return [];
      const accept = (index: number) => index !== self && partition.entitySlotsOf(index).some((slot) => wanted.has(slot));
      const { matches } = partition.scan(field, from, { t: to, id: null }, limit, accept, RELATED_SCAN_LIMIT);
      const now = this.nowMs();
      return matches.map((m) => partition.read(m.index, now));
    });
  }

  /**
   * Every failure leaves as an ApiError (the port's promise). A caller that has gone away gets
   * UPSTREAM_ERROR, as from the HTTP adapter: its own abort is no TIMEOUT of the vendor's, and nothing
   * is changed once it has gone.
   */
  private async run<T>(signal: AbortSignal | undefined, work: () => T): Promise<T> {
    if (signal?.aborted) throw this.aborted(signal.reason);
    const throttledMs = this.conditions.throttledUntil() - this.nowMs();
    if (throttledMs > 0) {
      const seconds = String(Math.ceil(throttledMs / 1000));
      throw new ApiError("RATE_LIMITED", `${this.source} is rate limiting the service (status 429).`, { headers: { "Retry-After": seconds } });
    }
    if (this.conditions.latencyMs > 0) {
      try {
        await sleep(this.conditions.latencyMs, undefined, { signal });
      } catch (error) {
        throw this.aborted(error);
      }
    }
    try {
      return work();
    } catch (error) {
      if (isApiError(error)) throw error;
      throw new ApiError("UPSTREAM_ERROR", `The ${this.source} simulated vendor failed.`, { cause: error });
    }
  }

  private aborted(cause: unknown): ApiError {
    return new ApiError("UPSTREAM_ERROR", `Request aborted: the caller went away while waiting for ${this.source}.`, { cause });
  }
}

/** The pool slots an entity query stands for: the incident's own entities, narrowed by the criteria. */
function wantedSlots(partition: SourcePartition, query: EntityQuery, self: number | undefined): Set<number> {
  const pool = partition.pool();
  const name = query.entityName?.toLowerCase();
  const fragment = query.entityFilter?.toLowerCase();
  const candidates = self === undefined ? Array.from({ length: poolSize }, (_, slot) => slot) : partition.entitySlotsOf(self);
  return new Set(
    candidates.filter((slot) => {
      const pooled = pool[slot]!;
      if (query.entityKind !== undefined && pooled.entity.kind !== query.entityKind) return false;
      if (name !== undefined && pooled.lowerName !== name) return false;
      if (fragment !== undefined && !pooled.lowerName.includes(fragment)) return false;
      return true;
    }),
  );
}

function filterOf(partition: SourcePartition, filters: IncidentFilters | undefined): (index: number) => boolean {
  if (!filters) return () => true;
  const severitySet = filters.severities?.length ? new Set<string>(filters.severities) : undefined;
  const statusSet = filters.statuses?.length ? new Set<string>(filters.statuses) : undefined;
  const needle = filters.query?.trim().toLowerCase() || undefined;
  const emails = filters.assigneeEmails?.length ? new Set(filters.assigneeEmails.map((e) => e.toLowerCase())) : undefined;
  const unassigned = filters.includeUnassigned === true;
  return (index) => {
    if (severitySet && !severitySet.has(partition.severityOf(index))) return false;
    if (statusSet && !statusSet.has(partition.statusOf(index))) return false;
    if (emails || unassigned) {
      const owner = partition.ownerOf(index);
      const matchesEmail = emails !== undefined && owner?.email != null && emails.has(owner.email.toLowerCase());
      if (!matchesEmail && !(unassigned && owner === null)) return false;
    }
    if (needle && !partition.matchesText(index, needle)) return false;
    return true;
  };
}

function parseTime(value: string, field: string): number {
  const t = typeof value === "string" ? Date.parse(value) : NaN;
  if (Number.isNaN(t)) throw invalid(field, "Must be an ISO 8601 timestamp.");
  return t;
}

function parseLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1) throw invalid("limit", "Must be a positive integer.");
  return limit;
}

function invalid(field: string, message: string): ApiError {
  return new ApiError("VALIDATION_ERROR", `${field}: ${message}`, { target: field, errors: { [field]: [message] } });
}
