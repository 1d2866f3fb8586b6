import { alreadyExists, concurrentWrite, missingDocument } from "../conflict";
import type { Page, PageRequest, Versioned } from "../ports";

/**
 * A map of documents with Cosmos-like etags. A written value is copied and deep-frozen, and reads
 * hand out that frozen snapshot: no caller can change stored state without a write (as with a real
 * database), yet a read costs no copy. Read-modify-write callers copy first (see `Versioned`).
 */
export class VersionedMap<T extends { id: string }> {
  /** Frozen entries, handed out as they are. */
  private readonly entries = new Map<string, Versioned<T>>();
  private version = 0;

  constructor(private readonly kind: string) {}

  get(key: string): Versioned<T> | undefined {
    return this.entries.get(key);
  }

  values(): T[] {
    return [...this.entries.values()].map((e) => e.value);
  }

  create(key: string, value: T): Versioned<T> {
    if (this.entries.has(key)) throw alreadyExists(this.kind, value.id);
    return this.write(key, value);
  }

  upsert(key: string, value: T): Versioned<T> {
    return this.write(key, value);
  }

  replace(key: string, value: T, etag: string): Versioned<T> {
    this.check(key, etag);
    return this.write(key, value);
  }

  delete(key: string, etag: string): void {
    this.check(key, etag);
    this.entries.delete(key);
  }

  private check(key: string, etag: string): void {
    const current = this.entries.get(key);
    if (!current) throw missingDocument(this.kind);
    if (current.etag !== etag) throw concurrentWrite(this.kind);
  }

  private write(key: string, value: T): Versioned<T> {
    const etag = `"${++this.version}"`;
    const entry = Object.freeze({ value: deepFreeze(structuredClone(value)), etag });
    this.entries.set(key, entry);
    return entry;
  }
}

/** Keyset paging over items already filtered: sorted by id, after the cursor. */
export function pageById<T extends { id: string }>(items: T[], page: PageRequest): Page<T> {
  const sorted = items.filter((i) => page.after === undefined || i.id > page.after).sort((a, b) => cmp(a.id, b.id));
  const slice = sorted.slice(0, page.limit);
  const more = sorted.length > page.limit;
  return { items: slice, nextAfter: more ? slice[slice.length - 1]?.id : undefined };
}

/** Ordinal string comparison, the same order Cosmos uses for ORDER BY on strings. */
function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
