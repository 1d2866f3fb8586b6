import { assertScope } from "../outbox-scope";
import { PUBLISHED_OUTBOX_TTL_SECONDS } from "../outbox-retention";
import type { OutboxStore, Versioned } from "../ports";
import type { OutboxRecord, OutboxScope } from "../../events/outbox-record";
import type { VersionedMap } from "./versioned-map";
import { ExpiringKeys } from "../../expiring-keys";

/**
 * Published records the memory outbox keeps at most, newest published kept. Cosmos keeps a carried-out
 * record for its ttl (`PUBLISHED_OUTBOX_TTL_SECONDS`, a week), which in a local host's memory would be
 * millions of records under a steady load; the count bounds it. Only diagnosis and tests read carried-out
 * records, and they read recent ones.
 */
export const MAX_PUBLISHED_OUTBOX_RECORDS = 2_000;

export interface MemoryOutboxOptions {
  /** Milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
  /** Default `MAX_PUBLISHED_OUTBOX_RECORDS`. */
  maxPublished?: number;
}

/**
 * The outbox of every memory store. Aggregate stores call `put` in the same synchronous stretch as
 * their own write, after every check has passed, so nothing interleaves: all or nothing, as the
 * Cosmos batch is.
 *
 * A record not yet published is kept until it is; a published one expires as on Cosmos, a week after
 * it was marked, and goes sooner when more than `maxPublished` are kept (the oldest published first).
 */
export class MemoryOutbox implements OutboxStore {
  private readonly records = new Map<string, OutboxRecord>();
  /** The keys of the records not yet published: the sweep reads these, not every record kept. */
  private readonly unpublished = new Set<string>();
  /** The keys of the published records, in the order they were published: each goes when it expires, or first when too many are kept. */
  private readonly published: ExpiringKeys<string>;
  private readonly now: () => number;

  constructor(options: MemoryOutboxOptions = {}) {
    this.now = options.now ?? Date.now;
    this.published = new ExpiringKeys({ now: this.now, max: options.maxPublished ?? MAX_PUBLISHED_OUTBOX_RECORDS, onDrop: (key) => this.records.delete(key) });
  }

  /**
   * Writes records; one written again replaces its earlier copy (and goes to the end, as a new write).
   * One written already published counts as published now.
   */
  put(records: readonly OutboxRecord[]): void {
    for (const record of records) {
      const key = keyOf(record);
      this.records.delete(key);
      this.unpublished.delete(key);
      this.published.forget(key);
      this.records.set(key, Object.freeze(structuredClone(record)));
      if (record.publishedAt === null) this.unpublished.add(key);
      else this.published.keep(key, this.expiryFromNow());
    }
  }

  async append(records: readonly OutboxRecord[]): Promise<void> {
    this.put(records);
  }

  async listUnpublished(limit: number): Promise<OutboxRecord[]> {
    return oldestFirst([...this.unpublished].map((key) => this.records.get(key)!)).slice(0, Math.max(0, limit));
  }

  async markPublished(record: Pick<OutboxRecord, "id" | "scope">, at: string): Promise<void> {
    const key = keyOf(record);
    const found = this.records.get(key);
    if (found && found.publishedAt === null) {
      this.records.set(key, Object.freeze({ ...found, publishedAt: at }));
      this.unpublished.delete(key);
      this.published.keep(key, this.expiryFromNow());
    }
  }

  async list(scope: OutboxScope, limit: number): Promise<OutboxRecord[]> {
    this.published.trim();
    return oldestFirst([...this.records.values()].filter((r) => r.scope === scope)).slice(0, Math.max(0, limit));
  }

  /** Cosmos counts an item's ttl from its last write: here, from when the record was marked published. */
  private expiryFromNow(): number {
    return this.now() + PUBLISHED_OUTBOX_TTL_SECONDS * 1000;
  }
}

function keyOf(record: Pick<OutboxRecord, "id" | "scope">): string {
  return `${record.scope}|${record.id}`;
}

/** Stable: records of one commit with the same time keep their commit order. */
function oldestFirst(records: OutboxRecord[]): OutboxRecord[] {
  return records.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}

/**
 * The writes of an aggregate whose outbox records commit with it: each checks the records' scope,
 * writes the document (which may refuse: a stale etag, a taken id) and only then the records.
 */
export class OutboxedWrites<T extends { id: string }> {
  constructor(
    private readonly map: VersionedMap<T>,
    private readonly outbox: MemoryOutbox,
  ) {}

  create(key: string, value: T, scope: OutboxScope, records: readonly OutboxRecord[] = []): Versioned<T> {
    assertScope(records, scope);
    const saved = this.map.create(key, value);
    this.outbox.put(records);
    return saved;
  }

  replace(key: string, value: T, etag: string, scope: OutboxScope, records: readonly OutboxRecord[] = []): Versioned<T> {
    assertScope(records, scope);
    const saved = this.map.replace(key, value, etag);
    this.outbox.put(records);
    return saved;
  }

  delete(key: string, etag: string, scope: OutboxScope, records: readonly OutboxRecord[] = []): void {
    assertScope(records, scope);
    this.map.delete(key, etag);
    this.outbox.put(records);
  }
}
