export interface ExpiringKeysOptions<K> {
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Keys kept at most: past it the oldest kept go first. Default: no bound. */
  max?: number;
  /** Told of each key dropped (expired or past `max`), so its owner can drop what the key stands for. */
  onDrop?: (key: K) => void;
}

/**
 * The keys of what a local, in-memory structure keeps, each until its expiry and at most `max` of them,
 * the oldest kept going first. Every in-memory retention of the local host goes through this one.
 *
 * Keys are kept in the order they were kept (a key kept again goes to the back, as a new write), and
 * each write drops from the front while the front has expired or there are too many: each key is
 * dropped once, so the work is O(1) per write, amortised, with no scan per request. Dropping stops at
 * the first live key, so expiry is exact when every key gets the same lifetime (the usual case: one
 * ttl for a whole structure); a key whose expiry comes before an older key's is dropped once the keys
 * ahead of it have gone, and `has` already counts it as gone.
 *
 * One key costs a map entry and its expiry: callers keep what a key stands for elsewhere, or nothing at
 * all (duplicate detection keeps only the keys). The expiry is held in ms from when the structure was
 * made, a small integer for its first 24 days that V8 keeps in the entry itself; as ms since the epoch
 * every one would be a boxed number of its own (16 bytes a key).
 */
export class ExpiringKeys<K> {
  /** Key → expiry (ms from `origin`); a Map iterates in insertion order, so the front is the oldest kept. */
  private readonly expiries = new Map<K, number>();
  private readonly origin: number;
  private readonly now: () => number;
  private readonly max: number;
  private readonly onDrop: (key: K) => void;

  constructor(options: ExpiringKeysOptions<K>) {
    this.now = options.now;
    this.origin = options.now();
    this.max = options.max ?? Infinity;
    this.onDrop = options.onDrop ?? (() => {});
  }

  get size(): number {
    return this.expiries.size;
  }

  /** The keys kept, oldest kept first (expired ones not yet dropped included: `has` tells them). */
  keys(): IterableIterator<K> {
    return this.expiries.keys();
  }

  /** Whether the key is kept and has not expired. */
  has(key: K): boolean {
    const expiresAt = this.expiries.get(key);
    return expiresAt !== undefined && expiresAt > this.now() - this.origin;
  }

  /** Keeps the key until `expiresAt` (ms; `Infinity`: until the bound drops it), at the back; then trims. */
  keep(key: K, expiresAt: number): void {
    this.expiries.delete(key);
    this.expiries.set(key, expiresAt - this.origin);
    this.trim();
  }

  /** Stops keeping the key without telling `onDrop` (its owner is dropping it itself, or keeping it for good). */
  forget(key: K): void {
    this.expiries.delete(key);
  }

  /** Drops keys from the front while they have expired or there are more than `max`. */
  trim(): void {
    const now = this.now() - this.origin;
    for (const [key, expiresAt] of this.expiries) {
      if (expiresAt > now && this.expiries.size <= this.max) break;
      this.expiries.delete(key);
      this.onDrop(key);
    }
  }
}
