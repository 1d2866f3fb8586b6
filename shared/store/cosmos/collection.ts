import type { Container, FeedOptions, ItemDefinition, PartitionKey, SqlParameter } from "@azure/cosmos";
import type { Page, PageRequest, Versioned } from "../ports";
import { translateCosmosError, type CosmosOperation } from "./cosmos-errors";

export type Document = { id: string };
export type Parameters = Record<string, SqlParameter["value"]>;

/** The properties Cosmos adds to every document; callers get back exactly what they wrote. */
const systemProperties = ["_rid", "_self", "_etag", "_attachments", "_ts"] as const;

/**
 * One container of one document type: point operations with etags, queries, and keyset pages.
 * Every SDK failure goes through `translateCosmosError`.
 */
export class Collection<T extends Document> {
  constructor(
    private readonly container: Container,
    private readonly kind: string,
    private readonly partitionKeyOf: (doc: T) => string,
  ) {}

  async read(id: string, partitionKey: string): Promise<Versioned<T> | undefined> {
    // The SDK answers a missing item with resource undefined (status 404), not an exception.
    const { resource } = await this.attempt("read", id, () => this.container.item(id, partitionKey).read<T>());
    return resource && versioned(resource);
  }

  async create(doc: T): Promise<Versioned<T>> {
    const { resource } = await this.attempt("create", doc.id, () => this.container.items.create<T>(doc));
    return versioned(written(resource));
  }

  async upsert(doc: T): Promise<void> {
    await this.attempt("upsert", doc.id, () => this.container.items.upsert<T>(doc));
  }

  async replace(doc: T, etag: string): Promise<Versioned<T>> {
    const { resource } = await this.attempt("replace", doc.id, () =>
      this.container.item(doc.id, this.partitionKeyOf(doc)).replace<T>(doc, ifMatch(etag)),
    );
    return versioned(written(resource));
  }

  async delete(id: string, partitionKey: string, etag: string): Promise<void> {
    await this.attempt("delete", id, () => this.container.item(id, partitionKey).delete(ifMatch(etag)));
  }

  /**
   * Runs a parameterised query. Conditions on the partition key must be in the WHERE clause even
   * when `partitionKey` is given: the option only routes the query (cosmosdb-server ignores it).
   */
  async query(query: string, parameters: Parameters, partitionKey?: PartitionKey): Promise<T[]> {
    const options: FeedOptions = partitionKey === undefined ? {} : { partitionKey };
    const spec = { query, parameters: Object.entries(parameters).map(([name, value]) => ({ name, value })) };
    const { resources } = await this.attempt("query", undefined, () =>
      this.container.items.query<T & ItemDefinition>(spec, options).fetchAll(),
    );
    return resources.map(withoutSystemProperties);
  }

  /**
   * Keyset page by id, the same cursor as the memory adapter's `pageById`. Asks for one item more
   * than the limit to learn whether another page exists (OFFSET/LIMIT would also be slower on Cosmos,
   * and cosmosdb-server does not support it).
   */
  async page(where: string[], parameters: Parameters, page: PageRequest, partitionKey?: PartitionKey): Promise<Page<T>> {
    const conditions = [...where];
    const all: Parameters = { ...parameters, "@top": page.limit + 1 };
    if (page.after !== undefined) {
      conditions.push("c.id > @after");
      all["@after"] = page.after;
    }
    const items = await this.query(
      `SELECT TOP @top * FROM c WHERE ${conditions.join(" AND ")} ORDER BY c.id`,
      all,
      partitionKey,
    );
    const slice = items.slice(0, page.limit);
    const more = items.length > page.limit;
    return { items: slice, nextAfter: more ? slice[slice.length - 1]?.id : undefined };
  }

  private async attempt<R>(operation: CosmosOperation, id: string | undefined, call: () => Promise<R>): Promise<R> {
    try {
      return await call();
    } catch (error) {
      throw translateCosmosError(error, { operation, kind: this.kind, id });
    }
  }
}

export function ifMatch(etag: string) {
  return { accessCondition: { type: "IfMatch", condition: etag } };
}

export function versioned<T extends Document>(resource: T & { _etag?: string }): Versioned<T> {
  if (resource._etag === undefined) throw new Error("Cosmos returned a document without _etag.");
  return { value: withoutSystemProperties(resource), etag: resource._etag };
}

/** A successful write always returns the stored document; its absence is an SDK contract breach. */
export function written<T>(resource: T | undefined): T {
  if (resource === undefined) throw new Error("Cosmos acknowledged a write without returning the document.");
  return resource;
}

export function withoutSystemProperties<T extends Document>(resource: T): T {
  const doc: Record<string, unknown> = { ...resource };
  for (const name of systemProperties) delete doc[name];
  return doc as T;
}
