import { join } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

/*
 * `npm run lint` as part of the suite: the whole tree is clean under eslint.config.mjs, and the layer
 * rule there is shown to catch imports planted in files of the tree, so that it cannot pass by
 * reading nothing.
 */

const root = join(__dirname, "../..");
const eslint = new ESLint({ cwd: root });

describe("ESLint", () => {
  it("finds nothing in the tree", async () => {
    const results = await eslint.lintFiles(["."]);
    expect(results.length).toBeGreaterThan(500);
    const found = results.flatMap((r) => r.messages.map((m) => `${r.filePath.slice(root.length + 1)}:${m.line} ${m.ruleId ?? "parse"}: ${m.message}`));
    expect(found).toEqual([]);
  }, 600_000);

  /** What `layers/imports` says about `source` as the file `file` of the tree. */
  const layerFindings = async (file: string, source: string) =>
    (await eslint.lintText(source, { filePath: join(root, file) }))[0]!.messages.filter((m) => m.ruleId === "layers/imports").map((m) => m.message);

  it.each([
    {
      file: "shared/platform/http/planted.ts",
      source: `import { incidentRoutes } from "../../api/incidents/incident-routes";\nvoid incidentRoutes;\n`,
      caught: "each kind imports only the kinds below it: shared/platform/http/planted.ts → shared/api/incidents/incident-routes.ts",
    },
    {
      file: "shared/model/incidents/planted.ts",
      source: `import type { Stores } from "../../platform/store/ports";\nexport type S = Stores;\n`,
      caught: "each kind imports only the kinds below it: shared/model/incidents/planted.ts → shared/platform/store/ports.ts (type)",
    },
    {
      file: "shared/platform/events/planted.ts",
      source: `import { createWebhook } from "../../domain/webhooks/webhook-writes";\nvoid createWebhook;\n`,
      caught: "each kind imports only the kinds below it: shared/platform/events/planted.ts → shared/domain/webhooks/webhook-writes.ts",
    },
    {
      file: "shared/platform/services.ts",
      source: `import type { SourceRegistry } from "../systems/vendors/port";\nexport interface PlatformServices {\n  sources: SourceRegistry;\n}\n`,
      caught: "each kind imports only the kinds below it: shared/platform/services.ts → shared/systems/vendors/port.ts (type)",
    },
    {
      file: "shared/api/webhooks/planted.ts",
      source: `export type * from "../incidents/incident-schemas";\n`,
      caught: "no endpoint group imports another group: shared/api/webhooks/planted.ts → shared/api/incidents/incident-schemas.ts (type)",
    },
    {
      file: "shared/domain/incidents/planted.ts",
      source: `export const load = () => import("../../systems/vendors/simulated/simulated-vendor.js");\n`,
      caught: "the API, the domain and the platform reach a system only through its port: shared/domain/incidents/planted.ts → shared/systems/vendors/simulated/simulated-vendor.ts",
    },
    {
      file: "shared/api/incidents/planted.ts",
      source: `export const sdk = () => require("@azure/cosmos") as typeof import("@azure/cosmos");\n`,
      caught: "SDKs only in adapters, the platform and the hosts; the Functions runtime only in functions/ and (types) the Azure host: shared/api/incidents/planted.ts → @azure/cosmos",
    },
  ])("catches $caught", async ({ file, source, caught }) => {
    expect(await layerFindings(file, source)).toContain(caught);
  });

  it("catches async-local storage in the service, whose hooks every promise of the process would pay for", async () => {
    const findings = (await eslint.lintText(`import { AsyncLocalStorage } from "node:async_hooks";\nexport const scope = new AsyncLocalStorage();\n`, { filePath: join(root, "shared/platform/http/planted.ts") }))[0]!.messages;
    expect(findings.map((m) => m.ruleId)).toContain("no-restricted-imports");
  });

  it("lets the same imports be where the rules allow them", async () => {
    expect(await layerFindings("shared/hosts/planted.ts", `import "../api/incidents/incident-routes";\nimport "../systems/vendors/http/http-vendor";\n`)).toEqual([]);
  });
});
