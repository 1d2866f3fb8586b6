import { setTimeout } from "node:timers/promises";
import { isApiError } from "../errors/api-error";
import type { OutboxRecord } from "../events/outbox-record";
import { checkIfMatch } from "../http/etag";

/** What a unit of work read: a document and its version; `etag` null when it does not exist yet (a create). */
export interface Current<T> {
  value: T;
  etag: string | null;
}

/** Carries out records right after their commit (the outbox relay); whatever it misses, the sweep does. */
export interface OutboxPublisher {
  publish(records: readonly OutboxRecord[]): Promise<number>;
}

/**
 * `C` is `Current<T> | null` when `read` may find nothing to change; `O` includes `null` when
 * `change` may decide there is nothing to write.
 */
export interface UnitOfWork<T, R, C extends Current<T> | null = Current<T>, O extends readonly OutboxRecord[] | void | null = readonly OutboxRecord[] | void> {
  /**
   * The current document, read afresh on every attempt; null when there is nothing to change (the
   * unit then writes nothing and `commit` answers null). May throw (NOT_FOUND, say).
   */
  read(attempt: number): Promise<C>;
  /**
   * The caller's `If-Match`, when it sent one: the version read must be it (409 otherwise), and a lost
   * race is then the answer rather than something to retry.
   */
  ifMatch?: string | undefined;
  /**
   * Changes a private copy of what was read and returns the records that commit with it (its events,
   * its audit event); null when there is nothing to write after all (`commit` then answers null).
   * May throw to refuse the change.
   */
  change(draft: T, attempt: number): O;
  /** Writes the changed copy conditionally on the version read, with the records, all or nothing. */
  write(draft: T, etag: string | null, outbox: readonly OutboxRecord[]): Promise<R>;
  /** Where committed records go at once; required when the unit commits any. */
  outbox?: OutboxPublisher;
  /** Attempts in all, the first included; default 5. */
  maxAttempts?: number;
  /** Pause before the next attempt, to spread contenders out; default none. */
  pauseMs?(attempt: number): number;
}

/**
 * The one way the service changes what it stores: read, change a copy, check `If-Match`, write
 * conditionally with the change's events and audit event in the same commit, then publish them.
 * A CONFLICT (another writer came between the read and the write) runs the unit again on a fresh
 * read, so no update is lost; any other error, or the last CONFLICT, goes to the caller. Publishing
 * never throws: a record it could not carry out stays in the outbox for the sweep.
 *
 * @example
 * const saved = await commit({
 *   read: () => stores.webhooks.get(id),
 *   ifMatch: input.header("if-match"),
 *   change: (webhook) => { webhook.status = "Paused"; return [auditOf(webhook)]; },
 *   write: (webhook, etag, outbox) => stores.webhooks.replace(webhook, etag!, outbox),
 *   outbox: services.events.outbox,
 * });
 */
export function commit<T, R>(work: UnitOfWork<T, R>): Promise<R>;
export function commit<T, R>(work: UnitOfWork<T, R, Current<T> | null, readonly OutboxRecord[] | void | null>): Promise<R | null>;
export async function commit<T, R>(work: UnitOfWork<T, R, Current<T> | null, readonly OutboxRecord[] | void | null>): Promise<R | null> {
  const maxAttempts = work.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      const current = await work.read(attempt);
      if (current === null) return null;
      if (work.ifMatch !== undefined) checkIfMatch(work.ifMatch, current.etag ?? "");
      const draft = structuredClone(current.value);
      const changed = work.change(draft, attempt);
      if (changed === null) return null;
      const outbox = changed ?? [];
      if (outbox.length > 0 && !work.outbox) throw new Error("A unit of work that commits outbox records needs a publisher.");
      const result = await work.write(draft, current.etag, outbox);
      if (outbox.length > 0) await work.outbox!.publish(outbox);
      return result;
    } catch (error) {
      const lostRace = isApiError(error) && error.code === "CONFLICT";
      if (!lostRace || work.ifMatch !== undefined || attempt >= maxAttempts) throw error;
      const pause = work.pauseMs?.(attempt) ?? 0;
      if (pause > 0) await setTimeout(pause);
    }
  }
}

