import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PORTAL_CLIENT_PATH, portalClientTypes } from "../../scripts/portal-client";

const root = join(__dirname, "../..");

describe("the portal page's typed client", () => {
  it("is generated from the served document's portal paths, and is current", async () => {
    const fix = `${PORTAL_CLIENT_PATH} is stale: run \`npm run portal:client\` and commit it`;
    expect(readFileSync(join(root, PORTAL_CLIENT_PATH), "utf8"), fix).toBe(await portalClientTypes());
    // Generating the document and its types takes seconds on a busy machine.
  }, 60_000);

  // The compiler over the whole portal: about 25 s on an idle 2-core machine, and several times that
  // when other suites share it (112 s seen at a load average of 13).
  it("the page type-checks against it", async () => {
    const output = await new Promise<string>((resolve) => {
      execFile(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "portal/tsconfig.json")], { cwd: root, timeout: 270_000 }, (error, stdout, stderr) =>
        resolve(error ? `${stdout}${stderr}` || String(error) : ""),
      );
    });
    expect(output).toBe("");
  }, 300_000);
});
