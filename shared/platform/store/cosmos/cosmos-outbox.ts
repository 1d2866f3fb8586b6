import type { Container } from "@azure/cosmos";
import type { OutboxStore } from "../ports";
import { parseOutboxScope, type OutboxScopeKind } from "../outbox-scope";
import type { OutboxRecord } from "../../events/outbox-record";
import { assertAllApplied, Collection, outboxUpserts } from "./collection";
import { translateCosmosError } from "./cosmos-errors";
import { PUBLISHED_OUTBOX_TTL_SECONDS } from "../outbox-retention";

/**
 * The outbox on Cosmos: its records live beside the documents they were committed with, one
 * container per scope kind (the write's own container and partition), so the sweep looks in each.
 */
export function cosmosOutbox(containers: Record<OutboxScopeKind, Container>): OutboxStore {
  const collections = Object.fromEntries(
    Object.entries(containers).map(([kind, container]) => [kind, new Collection<OutboxRecord>(container, "outbox record", (r) => parseOutboxScope(r.scope).key)]),
  ) as Record<OutboxScopeKind, Collection<OutboxRecord>>;
  const home = (record: Pick<OutboxRecord, "scope">) => {
    const { kind, key } = parseOutboxScope(record.scope);
    return { collection: collections[kind], key };
  };
  return {
    async append(records) {
      const byScope = new Map<string, OutboxRecord[]>();
      for (const r of records) byScope.set(r.scope, [...(byScope.get(r.scope) ?? []), r]);
      for (const group of byScope.values()) {
        const { collection, key } = home(group[0]!);
        let results;
        try {
          results = (await collection.container.items.batch(outboxUpserts(key, group), key)).result ?? [];
        } catch (error) {
          throw translateCosmosError(error, { operation: "batch", kind: "outbox record" });
        }
        assertAllApplied(results, group.length);
      }
    },
    async listUnpublished(limit) {
      if (limit <= 0) return [];
      // Cross-partition by nature: the sweep looks at every scope of every kind.
      const found = await Promise.all(
        Object.values(collections).map((c) =>
          c.query("SELECT TOP @top * FROM c WHERE c.docType = 'outbox' AND IS_NULL(c.publishedAt) ORDER BY c.createdAt", { "@top": limit }),
        ),
      );
      return found
        .flat()
        .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0))
        .slice(0, limit);
    },
    async markPublished(record, at) {
      const { collection, key } = home(record);
      const found = await collection.read(record.id, key);
      if (!found || found.value.publishedAt !== null) return;
      try {
        await collection.replace({ ...found.value, publishedAt: at, ttl: PUBLISHED_OUTBOX_TTL_SECONDS } as unknown as OutboxRecord, found.etag);
      } catch {
        // Lost a race with another publisher of the same record: it is marked either way, or will be
        // carried out again by the sweep, which is harmless (same event id, same audit id).
      }
    },
    async list(scope, limit) {
      if (limit <= 0) return [];
      const { collection, key } = home({ scope });
      return collection.query(
        "SELECT TOP @top * FROM c WHERE c.pk = @pk AND c.docType = 'outbox' AND c.scope = @scope ORDER BY c.createdAt",
        { "@top": limit, "@pk": key, "@scope": scope },
        key,
      );
    },
  };
}
