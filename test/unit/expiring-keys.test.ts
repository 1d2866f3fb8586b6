import { describe, expect, it } from "vitest";
import { ExpiringKeys } from "../../shared/platform/expiring-keys";

describe("expiring keys", () => {
  it("keeps a key until its expiry, then drops it on the next write and tells the owner", () => {
    let clock = 1_000;
    const dropped: string[] = [];
    const keys = new ExpiringKeys<string>({ now: () => clock, onDrop: (k) => dropped.push(k) });
    keys.keep("a", 2_000);
    keys.keep("b", 3_000);
    clock = 1_999;
    expect([keys.has("a"), keys.has("b")]).toEqual([true, true]);
    clock = 2_000;
    expect(keys.has("a")).toBe(false); // gone for readers at once
    expect(keys.size).toBe(2); // dropped on the next write or trim
    keys.keep("c", 4_000);
    expect(dropped).toEqual(["a"]);
    expect(keys.size).toBe(2);
    clock = 5_000;
    keys.trim();
    expect(dropped).toEqual(["a", "b", "c"]);
    expect(keys.size).toBe(0);
  });

  it("keeps at most its bound, the oldest kept going first; a key kept again goes to the back", () => {
    const dropped: string[] = [];
    const keys = new ExpiringKeys<string>({ now: () => 0, max: 2, onDrop: (k) => dropped.push(k) });
    keys.keep("a", Infinity);
    keys.keep("b", Infinity);
    keys.keep("a", Infinity);
    keys.keep("c", Infinity);
    expect(dropped).toEqual(["b"]);
    expect([keys.has("a"), keys.has("b"), keys.has("c")]).toEqual([true, false, true]);
  });

  it("forgets a key without telling the owner, and it no longer counts towards the bound", () => {
    const dropped: string[] = [];
    const keys = new ExpiringKeys<string>({ now: () => 0, max: 2, onDrop: (k) => dropped.push(k) });
    keys.keep("a", Infinity);
    keys.keep("b", Infinity);
    keys.forget("a");
    keys.keep("c", Infinity);
    expect(dropped).toEqual([]);
    expect([keys.has("a"), keys.has("b"), keys.has("c")]).toEqual([false, true, true]);
  });
});
