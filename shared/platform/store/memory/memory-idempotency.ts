import type { IdempotencyStore } from "../ports";
import type { IdempotencyRecord } from "../idempotency-record";
import { ExpiringKeys } from "../../expiring-keys";
import { VersionedMap } from "./versioned-map";

/**
 * Idempotency records kept at most, whatever their expiry: each holds a sealed answer (a few KB at
 * most), so the bound keeps a local host's heap steady under a client that sends a new key with
 * every request. Past it the oldest records go first, as they would a day later anyway.
 */
export const MAX_IDEMPOTENCY_RECORDS = 10_000;

/**
 * Idempotency records in memory, dropped at their `expiresAt` (what Cosmos does by each item's
 * `ttl`) or past `max`. Expiry is judged by the reader (`idempotency.ts`) on both stores: a record
 * read after its `expiresAt` is one the store has not dropped yet.
 */
export function memoryIdempotencyKeys(options: { now: () => number; max?: number }): IdempotencyStore {
  const records = new VersionedMap<IdempotencyRecord>("idempotency record");
  const keyOf = (scope: string, id: string) => `${scope}\n${id}`;
  const expiries = new ExpiringKeys<string>({
    now: options.now,
    max: options.max ?? MAX_IDEMPOTENCY_RECORDS,
    onDrop: (key) => {
      const found = records.get(key);
      if (found) records.delete(key, found.etag);
    },
  });
  const kept = (key: string, record: IdempotencyRecord) => expiries.keep(key, Date.parse(record.expiresAt));
  return {
    async get(scope, id) {
      return records.get(keyOf(scope, id));
    },
    async create(record) {
      const key = keyOf(record.scope, record.id);
      const created = records.create(key, record);
      kept(key, record);
      return created;
    },
    async replace(record, etag) {
      const key = keyOf(record.scope, record.id);
      const replaced = records.replace(key, record, etag);
      kept(key, record);
      return replaced;
    },
    async delete(scope, id, etag) {
      const key = keyOf(scope, id);
      records.delete(key, etag);
      expiries.forget(key);
    },
  };
}
