import { setTimeout } from "node:timers/promises";
import { isLostRace } from "./conflict";
import type { OutboxRecord } from "../events/outbox-record";
import { checkIfMatch } from "../concurrency/etag";
import { commitWithin, type Deadline } from "../concurrency/deadline";

/** What a unit of work read: a document and its version; `etag` null when it does not exist yet (a create). */
export interface Current<T> {
  value: T;
  etag: string | null;
}

/** Carries out records right after their commit (the outbox relay); whatever it misses, the sweep does. */
export interface OutboxPublisher {
  publish(records: readonly OutboxRecord[]): Promise<number>;
}

type Records = readonly OutboxRecord[];

/** What every unit of work has. `C` is `Current<T> | null` when `read` may find nothing to change. */
interface UnitBase<T, R, C extends Current<T> | null> {
  /**
   * The deadline of the request the change is part of (the operation context's `deadline`): the write
   * starts only while it allows (`Deadline.commit`). Undefined for work no request waits on; required,
   * so that no change leaves it out by accident.
   */
  deadline: Deadline | undefined;
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
  /** Writes the changed document conditionally on the version read, with the records, all or nothing. */
  write(next: T, etag: string | null, outbox: Records): Promise<R>;
  /** Where committed records go at once; required when the unit commits any. */
  outbox?: OutboxPublisher;
  /** Attempts in all, the first included; default 5. */
  maxAttempts?: number;
  /** Pause before the next attempt, to spread contenders out; default none. */
  pauseMs?(attempt: number): number;
}

/**
 * A unit that edits a private copy of what was read. `change` returns the records that commit with
 * it (its events, its audit event); null when there is nothing to write after all (`commit` then
 * answers null). It may throw to refuse the change. `O` includes `null` when it may decide so.
 */
export interface EditUnit<T, R, C extends Current<T> | null = Current<T>, O extends Records | void | null = Records | void> extends UnitBase<T, R, C> {
  change(draft: T, attempt: number): O;
  next?: never;
}

/**
 * A unit whose change builds the next document itself (a state machine's step): `next` gets what
 * was read, to read and not to change, and no copy is made; null when there is nothing to write.
 */
export interface NextUnit<T, R, C extends Current<T> | null = Current<T>, N extends { value: T; outbox?: Records } | null = { value: T; outbox?: Records }> extends UnitBase<T, R, C> {
  next(current: T, attempt: number): N;
  change?: never;
}

/**
 * The one way the service changes what it stores: read, change a copy (or build the next document
 * from what was read), check `If-Match`, write
 * conditionally with the change's events and audit event in the same commit, then publish them.
 * A lost race (the store's CONFLICT: another writer came between the read and the write) runs the
 * unit again on a fresh read, so no update is lost; any other error (a CONFLICT a rule answered
 * included), or the last lost race, goes to the caller. Publishing
 * never throws: a record it could not carry out stays in the outbox for the sweep.
 *
 * @example
 * const saved = await commit({
 *   deadline: ctx.deadline,
 *   read: () => stores.webhooks.get(id),
 *   ifMatch: input.header("if-match"),
 *   change: (webhook) => { webhook.status = "Paused"; return [auditOf(webhook)]; },
 *   write: (webhook, etag, outbox) => stores.webhooks.replace(webhook, etag!, outbox),
 *   outbox: services.events.outbox,
 * });
 */
export function commit<T, R>(work: EditUnit<T, R> | NextUnit<T, R>): Promise<R>;
export function commit<T, R>(
  work: EditUnit<T, R, Current<T> | null, Records | void | null> | NextUnit<T, R, Current<T> | null, { value: T; outbox?: Records } | null>,
): Promise<R | null>;
export async function commit<T, R>(
  work: EditUnit<T, R, Current<T> | null, Records | void | null> | NextUnit<T, R, Current<T> | null, { value: T; outbox?: Records } | null>,
): Promise<R | null> {
  const maxAttempts = work.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      const current = await work.read(attempt);
      if (current === null) return null;
      if (work.ifMatch !== undefined) checkIfMatch(work.ifMatch, current.etag ?? "");
      const changed = work.next ? work.next(current.value, attempt) : edit(work, current.value, attempt);
      if (changed === null) return null;
      const outbox = changed.outbox ?? [];
      if (outbox.length > 0 && !work.outbox) throw new Error("A unit of work that commits outbox records needs a publisher.");
      // The write starts only while the request's deadline allows (`Deadline.commit`); carrying out
      // its records is the service's own follow-up, which no deadline cuts short.
      const result = await commitWithin(work.deadline, () => work.write(changed.value, current.etag, outbox));
      if (outbox.length > 0) await work.outbox!.publish(outbox);
      return result;
    } catch (error) {
      if (!isLostRace(error) || work.ifMatch !== undefined || attempt >= maxAttempts) throw error;
      const pause = work.pauseMs?.(attempt) ?? 0;
      if (pause > 0) await setTimeout(pause);
    }
  }
}


/** An edit unit's change, made on a copy: what was read may be a store's frozen snapshot. */
function edit<T>(work: EditUnit<T, unknown, Current<T> | null, Records | void | null>, value: T, attempt: number): { value: T; outbox?: Records } | null {
  const draft = structuredClone(value);
  const outbox = work.change(draft, attempt);
  return outbox === null ? null : { value: draft, outbox: outbox ?? [] };
}
