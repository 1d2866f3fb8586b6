import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { measurePass, scalingDoc, SCALING_COUNTS_PATH, SCALING_DOC_PATH, type PassCounts } from "../../scripts/scaling-costs";

const root = join(__dirname, "../..");
const counted = JSON.parse(readFileSync(join(root, SCALING_COUNTS_PATH), "utf8")) as PassCounts[];

describe("docs/scaling.md's cost model", () => {
  it("its tables are the ones the counts and the list prices make", () => {
    const doc = readFileSync(join(root, SCALING_DOC_PATH), "utf8");
    expect(doc, `${SCALING_DOC_PATH} is out of date with ${SCALING_COUNTS_PATH}: run \`npm run docs:scaling\` and commit the result`).toBe(scalingDoc(doc, counted));
  });

  describe("the counts are the code's: a pass counted now at 100 workspaces lies on the line through the counts at 1,000 and 10,000", () => {
    let now: PassCounts;
    beforeAll(async () => {
      now = await measurePass(100);
    }, 120_000);

    it("store operations and vendor calls, per operation", () => {
      const [small, large] = counted as [PassCounts, PassCounts];
      const onTheLine = (of: (c: PassCounts) => Record<string, number>) => {
        const keys = [...new Set([...Object.keys(of(small)), ...Object.keys(of(large))])].sort();
        return Object.fromEntries(
          keys.map((key) => {
            const [a, b] = [of(small)[key] ?? 0, of(large)[key] ?? 0];
            const perWorkspace = (b - a) / (large.workspaces - small.workspaces);
            return [key, Math.round(a + perWorkspace * (now.workspaces - small.workspaces))];
          }),
        );
      };
      expect(now.store).toEqual(onTheLine((c) => c.store));
      expect(now.vendor).toEqual(onTheLine((c) => c.vendor));
    });

    it("messages: one per batch of 50 workspaces", () => {
      for (const c of [...counted, now]) expect(c.messages).toBe(Math.ceil(c.workspaces / 50));
    });
  });
});
