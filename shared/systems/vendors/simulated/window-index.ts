/**
 * An order of one partition's incidents by a timestamp, newest first, ties broken by id (the
 * greater id first). The seeded incidents form an immutable sorted base held in typed arrays; the
 * few incidents whose timestamp changed (or that were created later) sit in a small sorted
 * overlay. A scan merges the two and skips base entries that were moved or removed, so a page
 * costs O(log n + page size + skipped entries) and no write ever re-sorts the base.
 */

/** A position in the order: a timestamp (ms) and, to break ties, an incident id. */
export interface OrderKey {
  t: number;
  id: string;
}

/** The base: `size` incidents sorted ascending by (time, id). */
export interface BaseOrder {
  readonly size: number;
  timeAt(position: number): number;
  indexAt(position: number): number;
}

export interface ScanBounds {
  /** Only entries strictly before this key (in descending order: older, or equal time and smaller id). */
  before: OrderKey | { t: number; id: null };
  /** Inclusive lower bound on the time. */
  from: number;
}

export interface Scanned {
  index: number;
  t: number;
}

interface OverlayEntry {
  t: number;
  id: string;
  index: number;
}

export class WindowIndex {
  private readonly overlay: OverlayEntry[] = [];
  private readonly overlayTimes = new Map<number, number>();
  private readonly removed = new Set<number>();

  constructor(
    private readonly base: BaseOrder,
    private readonly idOf: (index: number) => string,
  ) {}

  /** Places an incident at time `t`, taking it out of its base or previous overlay position. */
  put(index: number, t: number): void {
    this.dropFromOverlay(index);
    this.removed.delete(index);
    const entry = { t, id: this.idOf(index), index };
    this.overlay.splice(this.overlayLowerBound(entry), 0, entry);
    this.overlayTimes.set(index, t);
  }

  /** Takes an incident out of the order for good. Only a base entry is marked removed: an overlay entry is simply gone. */
  remove(index: number): void {
    this.dropFromOverlay(index);
    if (index < this.base.size) this.removed.add(index);
  }

  /** Entries inside the bounds, newest first. */
  *descending(bounds: ScanBounds): Generator<Scanned> {
    let b = this.baseLowerBound(bounds.before) - 1;
    let o = this.overlayLowerBound(bounds.before) - 1;
    const skipBase = () => {
      while (b >= 0) {
        const index = this.base.indexAt(b);
        if (!this.removed.has(index) && !this.overlayTimes.has(index)) return;
        b--;
      }
    };
    skipBase();
    for (;;) {
      const baseT = b >= 0 ? this.base.timeAt(b) : -Infinity;
      const overlayEntry = o >= 0 ? this.overlay[o]! : undefined;
      const overlayT = overlayEntry ? overlayEntry.t : -Infinity;
      if (Math.max(baseT, overlayT) < bounds.from || (b < 0 && !overlayEntry)) return;
      const takeOverlay =
        overlayEntry !== undefined &&
        (b < 0 || overlayT > baseT || (overlayT === baseT && overlayEntry.id > this.idOf(this.base.indexAt(b))));
      if (takeOverlay) {
        o--;
        yield { index: overlayEntry.index, t: overlayT };
      } else {
        const index = this.base.indexAt(b);
        b--;
        skipBase();
        yield { index, t: baseT };
      }
    }
  }

  /** How many base positions hold keys before (ascending) the bound. */
  private baseLowerBound(bound: ScanBounds["before"]): number {
    let lo = 0;
    let hi = this.base.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const t = this.base.timeAt(mid);
      const less = t < bound.t || (bound.id !== null && t === bound.t && this.idOf(this.base.indexAt(mid)) < bound.id);
      if (less) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private overlayLowerBound(bound: ScanBounds["before"]): number {
    let lo = 0;
    let hi = this.overlay.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const entry = this.overlay[mid]!;
      const less = entry.t < bound.t || (bound.id !== null && entry.t === bound.t && entry.id < bound.id);
      if (less) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private dropFromOverlay(index: number): void {
    const t = this.overlayTimes.get(index);
    if (t === undefined) return;
    const id = this.idOf(index);
    const at = this.overlayLowerBound({ t, id });
    if (this.overlay[at]?.index === index) this.overlay.splice(at, 1);
    this.overlayTimes.delete(index);
  }
}

/** Cursors are opaque to callers; inside they are the last returned key and the field it orders. */
export function encodeCursor(field: string, key: OrderKey): string {
  return Buffer.from(JSON.stringify([field, key.t, key.id])).toString("base64url");
}

export function decodeCursor(field: string, cursor: string): OrderKey | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 3) return undefined;
    const [f, t, id] = value as unknown[];
    if (f !== field || typeof t !== "number" || !Number.isFinite(t) || typeof id !== "string") return undefined;
    return { t, id };
  } catch {
    return undefined;
  }
}
