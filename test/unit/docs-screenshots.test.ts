import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { README_SCREENSHOT_DIR } from "../support/browser";

const root = join(__dirname, "../..");
/** The portal guide shows the pictures, by paths relative to its own folder. */
const guide = "docs/portal.md";
const text = readFileSync(join(root, guide), "utf8");
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe("the portal guide's screenshots", () => {
  /** Each picture's path from the repository's root. */
  const images = [...text.matchAll(/!\[[^\]]+\]\(([^)]+)\)/g)].map((m) => relative(root, join(root, "docs", m[1]!)));

  it("shows the approval queue, the webhook health page, an incident's actions and runs, and a bulk action, each with a text alternative", () => {
    const shown = ["approvals-queue", "webhook-health-demo", "incident-actions", "incident-runs", "incidents-bulk-assigned"];
    expect(images).toEqual(expect.arrayContaining(shown.map((name) => `${README_SCREENSHOT_DIR}/${name}.png`)));
  });

  it("are files the browser tests write (npm run screenshots), PNGs, in the repository", () => {
    const browserTests = ["portal-approvals", "portal-webhooks", "portal-incident-actions", "portal-incident-runs", "portal-incidents-bulk"].map((name) => readFileSync(join(root, "test/browser", `${name}.browser.test.ts`), "utf8")).join("\n");
    for (const image of images) {
      expect(existsSync(join(root, image)), image).toBe(true);
      expect(readFileSync(join(root, image)).subarray(0, 8).equals(PNG), image).toBe(true);
      const name = image.slice(README_SCREENSHOT_DIR.length + 1, -".png".length);
      expect(browserTests, image).toContain(`screenshot(page, "${name}", { readme: true`);
    }
  });
});
