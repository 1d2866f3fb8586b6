import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildOpenApi } from "../../shared/platform/http/openapi";
import { allRoutes } from "../../shared/api/route-groups";

/**
 * A stock linter accepts the document: Redocly CLI's `lint` with its built-in recommended ruleset
 * (no configuration of ours), on the document built from the route table as a local host named
 * `localhost` serves it; the one warning it gives on purpose is named below, with its reason.
 */
describe("the OpenAPI document under Redocly CLI's recommended rules", () => {
  // Redocly CLI loads for most of its run: about 20 s on an idle 2-core machine, over 60 s when other
  // suites share it.
  it("has no errors and no warnings", () => {
    const dir = mkdtempSync(join(tmpdir(), "openapi-lint-"));
    try {
      const file = join(dir, "openapi.json");
      writeFileSync(file, JSON.stringify(buildOpenApi(allRoutes(), "http://localhost:7071"), null, 2));
      const cli = join(__dirname, "../../node_modules/@redocly/cli/bin/cli.js");
      const run = spawnSync(process.execPath, [cli, "lint", file, "--format=json"], {
        cwd: dir,
        encoding: "utf8",
        timeout: 270_000,
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      });
      const report = JSON.parse(run.stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
      const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ""})`);
      // The one rule the document breaks on purpose: the liveness check takes no input and is never
      // shed, so no 4XX can come from it, and the document does not pretend one can.
      const onPurpose = ["operation-4xx-response: Operation must have at least one `4XX` response. (#/paths/~1api~1v2~1health/get/responses)"];
      expect(problems).toEqual(onPurpose);
      expect(report.totals).toMatchObject({ errors: 0, warnings: onPurpose.length });
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
