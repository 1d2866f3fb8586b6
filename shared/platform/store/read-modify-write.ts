import { setTimeout } from "node:timers/promises";
import { isApiError } from "../errors/api-error";
import type { Versioned } from "./ports";

export interface RetryOnConflictOptions {
  /** Attempts in all, the first included; default 5. */
  maxAttempts?: number;
  /** False when the caller pinned a version (`If-Match`): its CONFLICT is the answer, not a race to retry. */
  retry?: boolean;
  /** Pause before the next attempt, to spread contenders out; default none. */
  pauseMs?(attempt: number): number;
}

/**
 * Runs an optimistic read-modify-write until it commits: `step` reads, applies its change and writes
 * conditionally on what it read; a CONFLICT (another writer came between) runs it again on a fresh
 * read, so no update is lost. Any other error, or the last CONFLICT, goes to the caller.
 *
 * @example
 * await retryOnConflict(async () => {
 *   const current = await store.get(id);
 *   return store.replace(change(current.value), current.etag);
 * });
 */
export async function retryOnConflict<R>(step: (attempt: number) => Promise<R>, options: RetryOnConflictOptions = {}): Promise<R> {
  const maxAttempts = options.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return await step(attempt);
    } catch (error) {
      const lostRace = isApiError(error) && error.code === "CONFLICT";
      if (!lostRace || options.retry === false || attempt >= maxAttempts) throw error;
      const pause = options.pauseMs?.(attempt) ?? 0;
      if (pause > 0) await setTimeout(pause);
    }
  }
}

export interface ModifyDocument<T> extends RetryOnConflictOptions {
  /** The current document; throws (NOT_FOUND, say) when there is none to change. */
  read(): Promise<Versioned<T>>;
  /** Checks the version read before anything is changed (an `If-Match` check). */
  expectEtag?(etag: string): void;
  /** Changes a private copy of the document; may throw to refuse the change. */
  mutate(draft: T): void;
  /** Writes the changed copy conditionally on the version read. */
  write(draft: T, etag: string): Promise<Versioned<T>>;
}

/** The common read-modify-write of one versioned document: read, copy, change, write; retried on a lost race. */
export function modifyDocument<T>(options: ModifyDocument<T>): Promise<Versioned<T>> {
  return retryOnConflict(async () => {
    const current = await options.read();
    options.expectEtag?.(current.etag);
    const draft = structuredClone(current.value);
    options.mutate(draft);
    return options.write(draft, current.etag);
  }, options);
}
