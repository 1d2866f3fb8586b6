import { describe, expect, it } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import { Deadline } from "../../shared/platform/concurrency/deadline";
import type { OutboxRecord } from "../../shared/platform/events/outbox-record";
import { commit, type OutboxPublisher } from "../../shared/platform/store/commit";
import type { Versioned } from "../../shared/platform/store/ports";
import { VersionedMap } from "../../shared/platform/store/memory/versioned-map";
import { apiErrorOf } from "../support/api-error-of";

type Counter = { id: string; count: number };

/** A publisher that remembers what it was given. */
function recordingPublisher(): OutboxPublisher & { published: OutboxRecord[][] } {
  const published: OutboxRecord[][] = [];
  return { published, publish: async (records) => (published.push([...records]), records.length) };
}

const audit = (n: number) => ({ id: `outbox-${n}` }) as OutboxRecord;

function counters(): VersionedMap<Counter> {
  const map = new VersionedMap<Counter>("counter");
  map.create("c", { id: "c", count: 0 });
  return map;
}

/** One increment of `c`, committed with one record. */
const increment = (map: VersionedMap<Counter>, outbox: OutboxPublisher, extra: { ifMatch?: string; deadline?: Deadline } = {}) =>
  commit<Counter, Versioned<Counter>>({
    deadline: undefined,
    read: async () => map.get("c")!,
    change(c) {
      c.count += 1;
      return [audit(c.count)];
    },
    write: async (c, etag) => map.replace("c", c, etag!),
    outbox,
    ...extra,
  });

describe("commit: the one unit of work", () => {
  it("writes the change on a copy and publishes its records after the write", async () => {
    const map = counters();
    const before = map.get("c")!.value;
    const outbox = recordingPublisher();
    const saved = await increment(map, outbox);
    expect(saved.value.count).toBe(1);
    expect(before.count).toBe(0);
    expect(outbox.published).toEqual([[audit(1)]]);
  });

  it("writes through the request's deadline: too late to start, TIMEOUT and nothing written or published; in time, the write counts as the request's", async () => {
    const map = counters();
    const outbox = recordingPublisher();
    const late = new Deadline(10_000);
    late.expire();
    const error = await apiErrorOf(increment(map, outbox, { deadline: late }));
    expect([error.code, map.get("c")!.value.count, outbox.published]).toEqual(["TIMEOUT", 0, []]);
    const inTime = new Deadline(10_000);
    await increment(map, outbox, { deadline: inTime });
    expect([map.get("c")!.value.count, inTime.commitState]).toEqual([1, "committed"]);
    inTime.finish();
  });

  it("loses no update when writers race: a lost race runs the unit again on a fresh read", async () => {
    const map = counters();
    const outbox = recordingPublisher();
    // Every read happens before any write, so all but one first attempt lose the race.
    await Promise.all(Array.from({ length: 5 }, () => increment(map, outbox)));
    expect(map.get("c")!.value.count).toBe(5);
    expect(outbox.published.flat().map((r) => r.id).sort()).toEqual(["outbox-1", "outbox-2", "outbox-3", "outbox-4", "outbox-5"]);
  });

  it("with If-Match, a version that is not current is 409 CONFLICT and nothing is written or published", async () => {
    const map = counters();
    const outbox = recordingPublisher();
    const error = await apiErrorOf(increment(map, outbox, { ifMatch: '"stale"' }));
    expect(error.code).toBe("CONFLICT");
    expect(error.target).toBe("If-Match");
    expect(map.get("c")!.value.count).toBe(0);
    expect(outbox.published).toEqual([]);
  });

  it("with If-Match, a lost race is the answer, not something to retry", async () => {
    const map = counters();
    const etag = map.get("c")!.etag;
    let reads = 0;
    const error = await apiErrorOf(
      commit({ deadline: undefined,
        read: async () => (reads++, map.get("c")!),
        ifMatch: etag,
        change(c) {
          c.count = 10;
          map.replace("c", { id: "c", count: 99 }, etag); // another writer comes between
        },
        write: async (c, e) => map.replace("c", c, e!),
      }),
    );
    expect(error.code).toBe("CONFLICT");
    expect(reads).toBe(1);
    expect(map.get("c")!.value.count).toBe(99);
  });

  it("gives up after maxAttempts lost races with the last CONFLICT", async () => {
    const map = counters();
    let attempts = 0;
    const error = await apiErrorOf(
      commit({ deadline: undefined,
        read: async () => map.get("c")!,
        change(c, attempt) {
          attempts = attempt;
          map.upsert("c", { id: "c", count: -attempt }); // always overtaken
          c.count = 1;
        },
        write: async (c, etag) => map.replace("c", c, etag!),
        maxAttempts: 3,
      }),
    );
    expect(error.code).toBe("CONFLICT");
    expect(attempts).toBe(3);
  });

  it("answers a CONFLICT that a rule raises at once: only the store's lost races are run again", async () => {
    const map = counters();
    let reads = 0;
    const error = await apiErrorOf(
      commit({ deadline: undefined,
        read: async () => (reads++, map.get("c")!),
        change() {
          throw new ApiError("CONFLICT", "Only an idle counter can be changed.");
        },
        write: async (c, etag) => map.replace("c", c, etag!),
      }),
    );
    expect(error.code).toBe("CONFLICT");
    expect(reads).toBe(1);
  });

  it("does not retry other errors, and publishes nothing when the write fails", async () => {
    const outbox = recordingPublisher();
    let reads = 0;
    const error = await apiErrorOf(
      commit({ deadline: undefined,
        read: async () => (reads++, { value: { id: "c", count: 0 }, etag: null }),
        change: () => [audit(1)],
        write: async () => {
          throw new ApiError("UPSTREAM_ERROR", "The store did not answer.");
        },
        outbox,
      }),
    );
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(reads).toBe(1);
    expect(outbox.published).toEqual([]);
  });

  it("writes nothing when the read finds nothing to change, or the change decides there is nothing to write", async () => {
    const map = counters();
    let writes = 0;
    const write = async (c: Counter, etag: string | null) => (writes++, map.replace("c", c, etag!));
    expect(await commit({ deadline: undefined, read: async () => null, change: () => [], write })).toBeNull();
    expect(await commit({ deadline: undefined, read: async () => map.get("c")!, change: () => null, write })).toBeNull();
    expect(writes).toBe(0);
  });

  it("a unit that builds the next document gets what was read, uncopied, and writes what it returns", async () => {
    const map = counters();
    const outbox = recordingPublisher();
    const read = map.get("c")!;
    let seen: Counter | undefined;
    const saved = await commit({ deadline: undefined,
      read: async () => map.get("c")!,
      next(c) {
        seen = c;
        return { value: { id: c.id, count: c.count + 10 }, outbox: [audit(10)] };
      },
      write: async (c, etag) => map.replace("c", c, etag!),
      outbox,
    });
    expect(seen).toBe(read.value);
    expect(saved.value.count).toBe(10);
    expect(outbox.published).toEqual([[audit(10)]]);
    expect(await commit({ deadline: undefined, read: async () => map.get("c")!, next: () => null, write: async (c, etag) => map.replace("c", c, etag!) })).toBeNull();
    expect(map.get("c")!.value.count).toBe(10);
  });

  it("refuses to commit records without a publisher to carry them out", async () => {
    const map = counters();
    await expect(commit({ deadline: undefined, read: async () => map.get("c")!, change: () => [audit(1)], write: async (c, etag) => map.replace("c", c, etag!) })).rejects.toThrow(/publisher/);
    expect(map.get("c")!.value.count).toBe(0);
  });
});
