import type { IdempotencyStore, Versioned } from "../ports";
import type { IdempotencyRecord } from "../idempotency-record";
import type { Collection } from "./collection";

/** A record as stored: with the `ttl` Cosmos drops it by, counted from its last write. */
export type StoredIdempotencyRecord = IdempotencyRecord & { ttl?: number };

/**
 * Idempotency records on Cosmos: one container, partitioned by the caller (`scope`), each record a
 * point read and point writes by its id. Every write sets the item's `ttl` to what is left of the
 * key's lifetime, so Cosmos drops the record when the key expires, whichever write came last.
 */
export function cosmosIdempotencyKeys(records: Collection<StoredIdempotencyRecord>, now: () => number): IdempotencyStore {
  const stored = (record: IdempotencyRecord): StoredIdempotencyRecord => ({
    ...record,
    ttl: Math.max(1, Math.ceil((Date.parse(record.expiresAt) - now()) / 1000)),
  });
  return {
    async get(scope, id) {
      const found = await records.read(id, scope);
      return found && withoutTtl(found);
    },
    async create(record) {
      return withoutTtl(await records.create(stored(record)));
    },
    async replace(record, etag) {
      return withoutTtl(await records.replace(stored(record), etag));
    },
    delete: (scope, id, etag) => records.delete(id, scope, etag),
  };
}

function withoutTtl({ value, etag }: Versioned<StoredIdempotencyRecord>): Versioned<IdempotencyRecord> {
  const { ttl: _ttl, ...record } = value;
  return { value: record, etag };
}
