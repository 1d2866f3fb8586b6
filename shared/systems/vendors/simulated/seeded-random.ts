import { createHash } from "node:crypto";

/**
 * Cheap deterministic randomness. SHA-256 is used once per (seed, workspace, source) to get keys;
 * everything per incident is derived with 32-bit integer mixing, because a million incidents must be
 * seeded in well under a second and their details regenerated on every read.
 */

/** Eight 32-bit words from SHA-256 of the text: independent keys for one partition. */
export function keyWords(text: string): Uint32Array {
  const digest = createHash("sha256").update(text).digest();
  const words = new Uint32Array(8);
  for (let i = 0; i < 8; i++) words[i] = digest.readUInt32BE(i * 4);
  return words;
}

/** murmur3's finaliser: a bijective avalanche on 32 bits. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit hash of a few integers; order matters. */
export function mix32(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) h = (Math.imul(fmix32(h ^ part), 5) + 0xe6546b64) >>> 0;
  return fmix32(h);
}

/** A 32-bit hash of a string (FNV-1a, then mixed), for folding names into integer seeds. */
export function hashString32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return fmix32(h);
}

/** mulberry32: tiny, fast, good enough for synthetic data. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  uint32(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** An index drawn with the given relative weights. */
  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i]!;
      if (r < 0) return i;
    }
    return weights.length - 1;
  }

  /** An index in [0, n) skewed towards 0, so that a few entities recur across many incidents. */
  skewed(n: number): number {
    const r = this.next();
    return Math.floor(n * r * r);
  }

  hex(length: number): string {
    let out = "";
    while (out.length < length) out += this.uint32().toString(16).padStart(8, "0");
    return out.slice(0, length);
  }
}

/**
 * A keyed permutation of 32-bit integers (4-round Feistel network). Incident ids embed the permuted
 * index, so an id maps back to its incident without a million-entry lookup table, yet neighbouring
 * incidents do not get neighbouring ids.
 */
export function permute32(value: number, key: Uint32Array): number {
  let left = value >>> 16;
  let right = value & 0xffff;
  for (let round = 0; round < 4; round++) {
    const next = left ^ (mix32(right, key[round]!) & 0xffff);
    left = right;
    right = next;
  }
  return ((left << 16) | right) >>> 0;
}

export function unpermute32(value: number, key: Uint32Array): number {
  let left = value >>> 16;
  let right = value & 0xffff;
  for (let round = 3; round >= 0; round--) {
    const previous = right ^ (mix32(left, key[round]!) & 0xffff);
    right = left;
    left = previous;
  }
  return ((left << 16) | right) >>> 0;
}

/** A version-8 ("custom") GUID from 16 pseudo-random bytes, formatted like demoId's. */
export function guidFromWords(w0: number, w1: number, w2: number, w3: number): string {
  const hex = [w0, w1, w2, w3].map((w) => (w >>> 0).toString(16).padStart(8, "0")).join("");
  const version = "8" + hex.slice(13, 16);
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16) + hex.slice(17, 20);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${version}-${variant}-${hex.slice(20, 32)}`;
}
