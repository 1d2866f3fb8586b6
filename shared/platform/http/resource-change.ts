import type { Versioned } from "../store/ports";
import { modifyDocument } from "../store/read-modify-write";
import type { OutboxRecord } from "../events/outbox-record";
import { checkIfMatch } from "./etag";
import type { RequestContext } from "./route";

export interface ResourceChange<T> {
  /** The resource as the caller may see it; NOT_FOUND otherwise. */
  read(): Promise<Versioned<T>>;
  /** Changes a private copy; may throw to refuse the change (409, 403 …). */
  mutate(draft: T): void;
  /** The change's audit event, built from the changed copy and committed with it. */
  audit(draft: T): OutboxRecord;
  /** The store's conditional replace, with the outbox records to commit beside it. */
  replace(draft: T, etag: string, outbox: OutboxRecord[]): Promise<Versioned<T>>;
}

/**
 * An API change to a stored resource: read-modify-write with optimistic concurrency and the audit
 * event in the same commit. With `If-Match` the caller's version must still be current (409
 * otherwise); without it a lost race is retried on a fresh read, so no update is lost.
 *
 * @example
 * const saved = await changeResource(input, { read, mutate: (w) => (w.name = body.name), audit, replace: (w, etag, outbox) => store.replace(w, etag, outbox) });
 */
export async function changeResource<T extends { lastModifiedAt: string }>(input: RequestContext, change: ResourceChange<T>): Promise<Versioned<T>> {
  const ifMatch = input.header("if-match");
  let outbox: OutboxRecord[] = [];
  const saved = await modifyDocument({
    read: change.read,
    expectEtag: (etag) => checkIfMatch(ifMatch, etag),
    retry: ifMatch === undefined,
    mutate(draft) {
      change.mutate(draft);
      draft.lastModifiedAt = input.services.now().toISOString();
    },
    write(draft, etag) {
      outbox = [change.audit(draft)];
      return change.replace(draft, etag, outbox);
    },
  });
  await input.services.events.outbox.publish(outbox);
  return saved;
}
