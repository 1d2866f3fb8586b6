import { assertScope } from "../outbox-scope";
import type { OutboxStore, Versioned } from "../ports";
import type { OutboxRecord, OutboxScope } from "../../events/outbox-record";
import type { VersionedMap } from "./versioned-map";

/**
 * The outbox of every memory store. Aggregate stores call `put` in the same synchronous stretch as
 * their own write, after every check has passed, so nothing interleaves: all or nothing, as the
 * Cosmos batch is.
 */
export class MemoryOutbox implements OutboxStore {
  private readonly records = new Map<string, OutboxRecord>();
  /**
   * The keys of the records not yet published: the sweep reads these, not every record ever written
   * (a long-running local host keeps them all, as Cosmos keeps them for a week).
   */
  private readonly unpublished = new Set<string>();

  /** Writes records; one written again replaces its earlier copy (and goes to the end, as a new write). */
  put(records: readonly OutboxRecord[]): void {
    for (const record of records) {
      const key = keyOf(record);
      this.records.delete(key);
      this.unpublished.delete(key);
      this.records.set(key, Object.freeze(structuredClone(record)));
      if (record.publishedAt === null) this.unpublished.add(key);
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
    }
  }

  async list(scope: OutboxScope, limit: number): Promise<OutboxRecord[]> {
    return oldestFirst([...this.records.values()].filter((r) => r.scope === scope)).slice(0, Math.max(0, limit));
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
