import type { Container, FeedOptions, ItemDefinition, JSONObject, OperationInput, PartitionKey, SqlParameter } from "@azure/cosmos";
import { alreadyExists, concurrentWrite, missingDocument } from "../conflict";
import type { Page, PageRequest, Versioned } from "../ports";
import { assertScope } from "../outbox-scope";
import type { OutboxRecord, OutboxScope } from "../../events/outbox-record";
import { translateCosmosError, type CosmosOperation } from "./cosmos-errors";

export type Document = { id: string };
export type Parameters = Record<string, SqlParameter["value"]>;

/**
 * The properties Cosmos adds to every document, and the `pk` this adapter adds: callers get back
 * exactly what they wrote.
 */
const systemProperties = ["_rid", "_self", "_etag", "_attachments", "_ts", "pk"] as const;

/**
 * One container of one document type: point operations with etags, queries, keyset pages, and
 * writes that commit outbox records in the same transactional batch. Every SDK failure goes through
 * `translateCosmosError`. Containers that hold an outbox are partitioned on a `pk` property that this
 * class sets on every write and removes on every read, so that a document and its outbox records
 * share a partition whatever the document's own fields are.
 */
export class Collection<T extends Document> {
  constructor(
    readonly container: Container,
    private readonly kind: string,
    private readonly partitionKeyOf: (doc: T) => string,
    /** For documents that commit outbox records: the scope of a partition, which records must carry. */
    private readonly outboxScopeOf?: (partitionKey: string) => OutboxScope,
  ) {}

  async read(id: string, partitionKey: string): Promise<Versioned<T> | undefined> {
    // The SDK answers a missing item with resource undefined (status 404), not an exception.
    const { resource } = await this.attempt("read", id, () => this.container.item(id, partitionKey).read<T>());
    return resource && versioned(resource);
  }

  async create(doc: T, outbox: readonly OutboxRecord[] = []): Promise<Versioned<T>> {
    if (outbox.length > 0) {
      const partitionKey = this.partitionKeyOf(doc);
      const etag = await this.transaction(partitionKey, { operationType: "Create", partitionKey, resourceBody: this.stored(doc) }, outbox, doc.id);
      return { value: doc, etag };
    }
    const { resource } = await this.attempt("create", doc.id, () => this.container.items.create(this.stored(doc)));
    return versioned(written(resource) as unknown as T);
  }

  async upsert(doc: T): Promise<void> {
    await this.attempt("upsert", doc.id, () => this.container.items.upsert(this.stored(doc)));
  }

  async replace(doc: T, etag: string, outbox: readonly OutboxRecord[] = []): Promise<Versioned<T>> {
    const partitionKey = this.partitionKeyOf(doc);
    if (outbox.length > 0) {
      const operation: OperationInput = { operationType: "Replace", partitionKey, id: doc.id, resourceBody: this.stored(doc), ifMatch: etag };
      return { value: doc, etag: await this.transaction(partitionKey, operation, outbox, doc.id) };
    }
    const { resource } = await this.attempt("replace", doc.id, () =>
      this.container.item(doc.id, partitionKey).replace(this.stored(doc), ifMatch(etag)),
    );
    return versioned(written(resource) as unknown as T);
  }

  async delete(id: string, partitionKey: string, etag: string, outbox: readonly OutboxRecord[] = []): Promise<void> {
    if (outbox.length > 0) {
      // The batch wire format takes `ifMatch` on a delete (the .NET SDK's IfMatchEtag); the JS SDK's
      // type leaves it out but passes the operation through as given.
      const operation = { operationType: "Delete", partitionKey, id, ifMatch: etag } as OperationInput;
      await this.transaction(partitionKey, operation, outbox, id);
      return;
    }
    await this.attempt("delete", id, () => this.container.item(id, partitionKey).delete(ifMatch(etag)));
  }

  /**
   * One transactional batch in one partition: the document's own operation first, then the outbox
   * records (upserts: a record written again replaces itself). When the document's precondition
   * fails the batch fails before any record is written. Returns the document's new etag.
   */
  private async transaction(partitionKey: string, operation: OperationInput, outbox: readonly OutboxRecord[], id: string): Promise<string> {
    if (!this.outboxScopeOf) throw new Error(`A ${this.kind} commits no outbox records.`);
    assertScope(outbox, this.outboxScopeOf(partitionKey));
    let results;
    try {
      // Each operation names the partition too: real Cosmos accepts it, and cosmosdb-server needs it.
      results = (await this.container.items.batch([operation, ...outboxUpserts(partitionKey, outbox)], partitionKey)).result ?? [];
    } catch (error) {
      throw translateCosmosError(error, { operation: "batch", kind: this.kind, id });
    }
    const first = results[0];
    if (!first || first.statusCode === 412) throw concurrentWrite(this.kind);
    if (first.statusCode === 409) throw alreadyExists(this.kind, id);
    if (first.statusCode === 404) throw missingDocument(this.kind);
    assertAllApplied(results, 1 + outbox.length);
    if (operation.operationType !== "Delete" && !first.eTag) throw new Error("Cosmos acknowledged a batch write without an etag.");
    return first.eTag ?? "";
  }

  /** The document as stored: with the `pk` its container is partitioned on. */
  private stored(doc: T): JSONObject {
    return { ...(doc as unknown as JSONObject), pk: this.partitionKeyOf(doc) };
  }

  /**
   * Runs a parameterised query. Conditions on the partition key must be in the WHERE clause even
   * when `partitionKey` is given: the option only routes the query (cosmosdb-server ignores it).
   */
  async query(query: string, parameters: Parameters, partitionKey?: PartitionKey): Promise<T[]> {
    return (await this.fetchAll(query, parameters, partitionKey)).map(withoutSystemProperties);
  }

  /** `query`, each document with its etag: a `SELECT *` whose results a caller may write back conditionally. */
  async queryVersioned(query: string, parameters: Parameters, partitionKey?: PartitionKey): Promise<Versioned<T>[]> {
    return (await this.fetchAll(query, parameters, partitionKey)).map((resource) => versioned(resource));
  }

  private async fetchAll(query: string, parameters: Parameters, partitionKey?: PartitionKey): Promise<(T & ItemDefinition)[]> {
    const options: FeedOptions = partitionKey === undefined ? {} : { partitionKey };
    const spec = { query, parameters: Object.entries(parameters).map(([name, value]) => ({ name, value })) };
    const { resources } = await this.attempt("query", undefined, () =>
      this.container.items.query<T & ItemDefinition>(spec, options).fetchAll(),
    );
    return resources;
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

/** Outbox records as batch operations in the partition of the write they commit with. */
export function outboxUpserts(partitionKey: string, outbox: readonly OutboxRecord[]): OperationInput[] {
  return outbox.map((r) => ({ operationType: "Upsert", partitionKey, resourceBody: { ...(r as unknown as JSONObject), pk: partitionKey } }));
}

export function assertAllApplied(results: readonly { statusCode: number }[], expected: number): void {
  const failed = results.find((r) => r.statusCode >= 400);
  if (failed || results.length !== expected) {
    throw new Error(`Cosmos transactional batch failed with status ${failed?.statusCode ?? "unknown"}.`);
  }
}
