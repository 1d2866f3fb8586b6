import type { Container } from "@azure/cosmos";
import { mapLimited } from "../../concurrency/map-limited";
import { auditPartitionOf } from "../audit-trail";
import { isLostRace } from "../conflict";
import type { Versioned } from "../ports";
import { Collection, type Parameters } from "./collection";
import { translateCosmosError } from "./cosmos-errors";

/** One sequence of an allocation, for one event: where the event is and the number it gets. */
export interface Slot {
  id: string;
  pk: string;
  sequence: number;
}

/** A move of the trail's visible mark, and when (the sequencer's clock, ms). */
export interface Mark {
  sequence: number;
  at: number;
}

/**
 * A trail's sequencer document, in a small partition of its own (pk `<trail>`). Its id and
 * `sequence` are those of the counter that numbered every append before appends were plain creates,
 * so that a trail recorded then goes on from its last number.
 */
export interface TrailSequencer {
  id: typeof SEQUENCER_ID;
  docType: "auditSequence";
  trail: string;
  /** The visible mark: every event up to it has its sequence. */
  sequence: number;
  /** The allocation being carried out: sequences `sequence + 1` to `sequence + pending.length`. */
  pending?: Slot[];
  /** When `pending` was written. */
  allocatedAt?: number;
  /** Recent moves of `sequence`, oldest first, the newest that has settled included (absent on a counter from before). */
  marks?: Mark[];
}

export const SEQUENCER_ID = "audit-sequence";

export interface AuditSequencerOptions {
  /** Milliseconds since the epoch. */
  now: () => number;
  /**
   * How long the mark must have stood before readers go up to it: longer than a replica of an
   * event's partition may lag behind the sequencer's partition (see `readableUpTo`).
   */
  settleMs: number;
  /** A pending allocation older than this was left by a crash, and any sequencer finishes it. */
  takeoverMs: number;
  /** Events given their sequences by one allocation. */
  batch: number;
}

/** A sequencer document as read or written, with its etag; etag null: not created yet. */
type State = { doc: TrailSequencer; etag: string | null };

/** Events whose sequence is being set at once, per step. */
const SETTLE_CONCURRENCY = 16;
/** A patch refused although a read shows the event still unsequenced: that read was stale; tries in all. */
const SETTLE_ATTEMPTS = 3;

/**
 * Gives a trail's appended events their sequences, off the appenders' path. Appends are plain
 * creates with `sequence: null`; a step reads the trail's sequencer document, queries the oldest
 * unsequenced events, writes their allocation into the document (conditional on its etag: the only
 * write that can race), sets each event's sequence, and moves the visible mark in a second
 * conditional write. Readers stop at the mark, so an allocation half carried out is never seen.
 *
 * Whoever writes the document successfully queries again before it stops; so a caller that loses a
 * race (its conditional write refused) stops at once: the winner wrote after the loser's own event
 * was stored, and will find it. A pending allocation left by a crash is finished by the next
 * sequencer that finds it older than `takeoverMs`; setting a sequence is conditional on the event
 * having none (`sequence = null`), so finishing one twice, or a stale query that finds an event
 * already sequenced, never gives an event two sequences (it leaves a number unused, which readers,
 * paging by `sequence > after`, pass over).
 */
export class AuditSequencer {
  private readonly sequencers: Collection<TrailSequencer>;

  constructor(
    readonly container: Container,
    private readonly options: AuditSequencerOptions,
  ) {
    this.sequencers = new Collection<TrailSequencer>(container, "audit trail sequencer", (s) => s.trail);
  }

  /**
   * Sequences the trail's waiting events, at most `rounds` allocations. Returns at once when another
   * sequencer is at work on the trail (an allocation of its that is not yet done) or wins a write.
   */
  async drain(trail: string, rounds: number): Promise<void> {
    let state: State | undefined = await this.read(trail);
    if (state.doc.pending?.length) {
      const age = this.options.now() - (state.doc.allocatedAt ?? 0);
      if (age < this.options.takeoverMs) return;
      state = await this.finish(state);
      if (!state) return;
    }
    for (let round = 0; round < rounds; round++) {
      state = await this.allocate(state);
      if (!state?.doc.pending?.length) return;
      state = await this.finish(state);
      if (!state) return;
    }
  }

  /** The trail's sequencer document, or the one to create. */
  async read(trail: string): Promise<State> {
    const found = await this.sequencers.read(SEQUENCER_ID, trail);
    return found ? { doc: found.value, etag: found.etag } : { doc: { id: SEQUENCER_ID, docType: "auditSequence", trail, sequence: 0, marks: [] }, etag: null };
  }

  /**
   * The step's first half: the oldest unsequenced events, allocated the next sequences in the
   * document. The state unchanged when none is waiting; undefined when another sequencer wrote first.
   */
  async allocate(state: State): Promise<State | undefined> {
    const { doc } = state;
    if (doc.pending?.length) throw new Error("An allocation is pending: finish it first.");
    const waiting = await this.waitingIn(doc.trail);
    if (waiting.length === 0) return state;
    const pending = waiting.map((e, i) => ({ id: e.id, pk: e.pk, sequence: doc.sequence + i + 1 }));
    return this.write({ ...doc, pending, allocatedAt: this.options.now() }, state.etag);
  }

  /**
   * The step's second half: every event of the pending allocation given its sequence, then the mark
   * moved past them. Undefined when another sequencer wrote the document first.
   */
  async finish(state: State): Promise<State | undefined> {
    const { doc } = state;
    const pending = doc.pending ?? [];
    await this.settle(pending);
    const sequence = doc.sequence + pending.length;
    const now = this.options.now();
    const { pending: _pending, allocatedAt: _allocatedAt, ...rest } = doc;
    return this.write({ ...rest, sequence, marks: withMark(doc.marks, doc.sequence, sequence, now, this.options.settleMs) }, state.etag);
  }

  /** Sets each slot's sequence on its event, unless the event already has one (then the slot stays unused). */
  async settle(slots: readonly Slot[]): Promise<void> {
    await mapLimited(slots, SETTLE_CONCURRENCY, (slot) => this.settleOne(slot));
  }

  /** The sequence up to which readers may read: the newest mark that has stood for `settleMs`. */
  async readableUpTo(trail: string): Promise<number> {
    const found = await this.sequencers.read(SEQUENCER_ID, trail);
    return found ? settledMark(found.value, this.options.now(), this.options.settleMs) : 0;
  }

  /** Trails with events waiting for their sequence, or with an allocation left pending (the sweep). */
  async waitingTrails(limit: number): Promise<string[]> {
    const trails = await this.query<string>(
      // `allocatedAt` is there exactly while an allocation is pending (`finish` removes both).
      "SELECT TOP @top VALUE c.trail FROM c WHERE (c.docType = 'auditEvent' AND c.sequence = null) OR (c.docType = 'auditSequence' AND IS_DEFINED(c.allocatedAt))",
      { "@top": limit },
    );
    return [...new Set(trails)];
  }

  private async waitingIn(trail: string): Promise<{ id: string; pk: string }[]> {
    const found = await this.query<{ id: string; accountId: string; workspaceId: string | null; timeGenerated: string }>(
      "SELECT TOP @top c.id, c.accountId, c.workspaceId, c.timeGenerated FROM c WHERE c.trail = @trail AND c.docType = 'auditEvent' AND c.sequence = null ORDER BY c.timeGenerated, c.id",
      { "@top": this.options.batch, "@trail": trail },
    );
    return found.map((e) => ({ id: e.id, pk: auditPartitionOf(e) }));
  }

  private async settleOne(slot: Slot): Promise<void> {
    for (let attempt = 1; attempt <= SETTLE_ATTEMPTS; attempt++) {
      try {
        await this.container.item(slot.id, slot.pk).patch({ condition: "from c where c.sequence = null", operations: [{ op: "set", path: "/sequence", value: slot.sequence }] });
        return;
      } catch (error) {
        const status = statusOf(error);
        // Gone (expired): the slot stays unused.
        if (status === 404) return;
        if (status !== 412) throw translateCosmosError(error, { operation: "replace", kind: "audit event", id: slot.id });
      }
      // Refused: the event has a sequence already. This slot's (another sequencer finished the same
      // allocation), or an earlier one (a stale query found it): either way it keeps what it has.
      const current = await this.sequenceOf(slot);
      if (current !== null) return;
    }
    throw new Error(`The audit event ${slot.id} refused its sequence although it reads as having none.`);
  }

  /** The event's sequence as read now: undefined when it is gone. */
  private async sequenceOf(slot: Slot): Promise<number | null | undefined> {
    try {
      // The SDK answers a missing item with resource undefined (status 404), not an exception.
      return (await this.container.item(slot.id, slot.pk).read<{ sequence: number | null }>()).resource?.sequence;
    } catch (error) {
      throw translateCosmosError(error, { operation: "read", kind: "audit event", id: slot.id });
    }
  }

  /** Writes the document conditionally on the etag read (a create when there is none yet); undefined when another write came first. */
  private async write(doc: TrailSequencer, etag: string | null): Promise<State | undefined> {
    try {
      const written: Versioned<TrailSequencer> = etag === null ? await this.sequencers.create(doc) : await this.sequencers.replace(doc, etag);
      return { doc: written.value, etag: written.etag };
    } catch (error) {
      if (isLostRace(error)) return undefined;
      throw error;
    }
  }

  /** A query across the trail's partitions (its days). */
  private async query<T>(query: string, parameters: Parameters): Promise<T[]> {
    try {
      const spec = { query, parameters: Object.entries(parameters).map(([name, value]) => ({ name, value })) };
      return (await this.container.items.query<T>(spec).fetchAll()).resources;
    } catch (error) {
      throw translateCosmosError(error, { operation: "query", kind: "audit event" });
    }
  }
}

/**
 * The marks after the mark moved from `previous` to `sequence` at `now`: the newest that has stood
 * for `settleMs` (the readers' floor) and the newer ones, each at least `settleMs / 8` after the one
 * before it but the newest (which the next move replaces while it is closer than that: readers then
 * stop at an older mark, never at a newer one). So the list stays short (about ten), and a reader is
 * held back at most `settleMs / 8` beyond `settleMs`.
 */
export function withMark(marks: readonly Mark[] | undefined, previous: number, sequence: number, now: number, settleMs: number): Mark[] {
  // A counter from before marks: its number has stood since before this code ran.
  const list = marks ?? [{ sequence: previous, at: 0 }];
  const floor = list.findLastIndex((m) => m.at <= now - settleMs);
  const kept = list.slice(Math.max(0, floor));
  const [before, last] = kept.slice(-2);
  if (before && last && last.at - before.at < settleMs / 8) kept.pop();
  return [...kept, { sequence, at: now }];
}

/**
 * The highest sequence a reader may read up to now. Setting the sequences and moving the mark are
 * writes to different partitions, and Cosmos's session consistency orders reads only within one
 * session and one partition: a replica of an event's partition may, briefly, not show a sequence
 * that the mark (read from another partition) already covers. A reader that trusted the newest mark
 * could skip that event for good; one that stops at a mark that has stood for `settleMs` cannot.
 */
export function settledMark(doc: TrailSequencer, now: number, settleMs: number): number {
  if (!doc.marks) return doc.sequence;
  return doc.marks.findLast((m) => m.at <= now - settleMs)?.sequence ?? 0;
}

function statusOf(error: unknown): unknown {
  return typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
}
