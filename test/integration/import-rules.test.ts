import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { groupOf, kindOf, ruleViolations, treeGraph, treeViolations } from "../support/import-rules";

/*
 * The dependency direction of docs/architecture.md holds on the real tree, and each rule is shown to
 * catch a violation planted in a small temporary tree, so that no rule can pass by being unable to fail.
 */

const root = join(__dirname, "../..");

describe("imports point one way", () => {
  // Read once: parsing the whole tree is most of this file's time.
  const graph = treeGraph(root);

  it("reads the whole tree, every kind and every endpoint group", () => {
    expect(graph.size).toBeGreaterThan(200);
    const kinds = new Set([...graph.keys()].map(kindOf));
    expect([...kinds].sort()).toEqual(["api", "domain", "functions", "hosts", "model", "platform", "scripts", "systems"]);
    const groups = new Set([...graph.keys()].map(groupOf).filter(Boolean));
    expect([...groups]).toEqual(expect.arrayContaining(["identity", "incidents", "webhooks", "gamebooks", "meta", "tickets"]));
  });

  it("breaks no rule", () => {
    const violations = ruleViolations(graph);
    expect(Object.keys(violations).length).toBeGreaterThanOrEqual(8);
    for (const [rule, list] of Object.entries(violations)) expect({ rule, list }).toEqual({ rule, list: [] });
  });
});

describe("each rule catches a planted violation", () => {
  const trees: string[] = [];
  afterAll(() => trees.forEach((t) => rmSync(t, { recursive: true, force: true })));

  /** A temporary tree of the given files; every file exports one constant so that imports resolve. */
  function plant(files: Record<string, string>): Record<string, string[]> {
    const dir = mkdtempSync(join(tmpdir(), "import-rules-"));
    trees.push(dir);
    for (const [path, body] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), `${body}\nexport const x = 1;\n`);
    }
    return treeViolations(dir);
  }

  const cases: { rule: string; files: Record<string, string>; caught: string }[] = [
    {
      rule: "cycles",
      files: { "shared/platform/http/a.ts": `import "./b";`, "shared/platform/http/b.ts": `import "./a";` },
      caught: "shared/platform/http/a.ts ↔ shared/platform/http/b.ts",
    },
    {
      rule: "the domain's areas build on one another one way",
      files: {
        "shared/domain/gamebooks/run-executor.ts": `import "../incidents/incident-writes";`,
        "shared/domain/incidents/incident-writes.ts": "",
        "shared/domain/incidents/incident-reads.ts": `import type {} from "../gamebooks/gamebook-views";`,
        "shared/domain/gamebooks/gamebook-views.ts": "",
      },
      caught: "shared/domain/gamebooks ↔ shared/domain/incidents",
    },
    {
      rule: "each kind imports only the kinds below it",
      files: { "shared/platform/http/pipeline.ts": `import "../../api/incidents/incident-routes";`, "shared/api/incidents/incident-routes.ts": "" },
      caught: "shared/platform/http/pipeline.ts → shared/api/incidents/incident-routes.ts",
    },
    {
      rule: "no endpoint group imports another group",
      files: { "shared/api/webhooks/delivery-log-routes.ts": `import "../incidents/incident-view";`, "shared/api/incidents/incident-view.ts": "" },
      caught: "shared/api/webhooks/delivery-log-routes.ts → shared/api/incidents/incident-view.ts",
    },
    {
      rule: "only the route tables and the hosts import a group",
      files: { "shared/api/examples/webhook-examples.ts": `import "../webhooks/webhook-routes";`, "shared/api/webhooks/webhook-routes.ts": "" },
      caught: "shared/api/examples/webhook-examples.ts → shared/api/webhooks/webhook-routes.ts",
    },
    {
      rule: "only the route tables and the hosts import a group",
      files: { "shared/api/other.ts": `import "./incidents/incident-routes";`, "shared/api/incidents/incident-routes.ts": "" },
      caught: "shared/api/other.ts → shared/api/incidents/incident-routes.ts",
    },
    {
      rule: "no portal area imports another area: what they share sits directly under portal/",
      files: { "shared/api/portal/history/history-schemas.ts": `import "../approvals/approval-schemas";`, "shared/api/portal/approvals/approval-schemas.ts": "" },
      caught: "shared/api/portal/history/history-schemas.ts → shared/api/portal/approvals/approval-schemas.ts",
    },
    {
      rule: "only the portal's assembly imports an area's routes",
      files: { "shared/api/portal/incidents/portal-incident-routes.ts": `import "./incident-run-routes";`, "shared/api/portal/incidents/incident-run-routes.ts": "" },
      caught: "shared/api/portal/incidents/portal-incident-routes.ts → shared/api/portal/incidents/incident-run-routes.ts",
    },
    {
      rule: "each kind imports only the kinds below it",
      files: { "shared/model/incidents/incident.ts": `import type {} from "../../platform/store/ports";`, "shared/platform/store/ports.ts": "" },
      caught: "shared/model/incidents/incident.ts → shared/platform/store/ports.ts (type)",
    },
    {
      rule: "each kind imports only the kinds below it",
      files: { "shared/platform/events/fan-out.ts": `import "../../domain/webhooks/webhook-writes";`, "shared/domain/webhooks/webhook-writes.ts": "" },
      caught: "shared/platform/events/fan-out.ts → shared/domain/webhooks/webhook-writes.ts",
    },
    {
      rule: "each kind imports only the kinds below it",
      files: { "shared/platform/http/route.ts": `import type {} from "../../systems/vendors/port";`, "shared/systems/vendors/port.ts": "" },
      caught: "shared/platform/http/route.ts → shared/systems/vendors/port.ts (type)",
    },
    {
      rule: "each kind imports only the kinds below it",
      files: { "shared/platform/services.ts": `import type {} from "../systems/vendors/port";`, "shared/systems/vendors/port.ts": "" },
      caught: "shared/platform/services.ts → shared/systems/vendors/port.ts (type)",
    },
    {
      rule: "the API, the domain and the platform reach a system only through its port",
      files: { "shared/domain/incidents/load.ts": `import "../../systems/vendors/registry";`, "shared/systems/vendors/registry.ts": `import "./http/http-vendor";`, "shared/systems/vendors/http/http-vendor.ts": "" },
      caught: "shared/domain/incidents/load.ts → shared/systems/vendors/registry.ts",
    },
    {
      rule: "adapters are chosen by the composition root: reached only from the hosts and their own port's folder",
      files: { "shared/systems/itsm/port.ts": `import "../vendors/simulated/simulated-vendor";`, "shared/systems/vendors/simulated/simulated-vendor.ts": "" },
      caught: "shared/systems/itsm/port.ts → shared/systems/vendors/simulated/simulated-vendor.ts",
    },
    {
      rule: "what Azure does not run (the local host, the simulated systems) is reached only from the local host and scripts",
      files: { "shared/hosts/composition.ts": `import "../systems/vendors/simulated/simulated-vendor";`, "shared/systems/vendors/simulated/simulated-vendor.ts": "" },
      caught: "shared/hosts/composition.ts → shared/systems/vendors/simulated/simulated-vendor.ts",
    },
    {
      rule: "SDKs only in adapters, the platform and the hosts; the Functions runtime only in functions/ and (types) the Azure host",
      files: { "shared/api/incidents/incident-routes.ts": `import { CosmosClient } from "@azure/cosmos";\nvoid CosmosClient;` },
      caught: "shared/api/incidents/incident-routes.ts → @azure/cosmos",
    },
  ];

  it.each(cases)("$rule", ({ rule, files, caught }) => {
    const violations = plant(files);
    expect(violations[rule]).toContain(caught);
  });

  it("lets every group import what the groups share under shared/api/", () => {
    const violations = plant({ "shared/api/webhooks/webhook-routes.ts": `import "../examples/webhook-examples";`, "shared/api/examples/webhook-examples.ts": "" });
    expect(Object.values(violations).flat()).toEqual([]);
  });

  it("plants a case for every rule", () => {
    expect([...new Set(cases.map((c) => c.rule))].sort()).toEqual(Object.keys(plant({ "shared/platform/a.ts": "" })).sort());
  });
});
