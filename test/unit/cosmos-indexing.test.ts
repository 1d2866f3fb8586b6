import path from "node:path";
import { describe, expect, it } from "vitest";
import type { IndexingPolicy } from "@azure/cosmos";
import { containers } from "../../shared/platform/store/cosmos/containers";
import { cosmosQuerySites, type Receivers } from "../support/cosmos-query-paths";

/*
 * Each container indexes what its queries filter and sort on, and nothing else: the paths are read
 * from the query texts of the Cosmos adapter (test/support/cosmos-query-paths.ts), so a query that
 * needs a path its container leaves out fails here, and so does a policy that indexes a path no
 * query uses (a write pays for every indexed path).
 */
type ContainerName = keyof typeof containers;
const ADAPTER = path.resolve(__dirname, "../../shared/platform/store/cosmos");

/** Every container an outbox record can live in: the sweep's query runs on each (cosmos-stores.ts). */
const OUTBOX_CONTAINERS: readonly ContainerName[] = ["workspaceItems", "serviceAccounts", "users", "webhooks", "accounts", "workspaces"];

/** The collection each query is called on, file by file: a query on a collection not named here fails the test. */
const RECEIVERS: Receivers = {
  "audit-sequencer.ts": { this: ["audit"] },
  "cosmos-audit.ts": { events: ["audit"] },
  "cosmos-incident-stores.ts": { states: ["workspaceItems"], runs: ["workspaceItems"] },
  "cosmos-outbox.ts": { c: OUTBOX_CONTAINERS, collection: OUTBOX_CONTAINERS },
  "cosmos-stores.ts": { accounts: ["accounts"], workspaces: ["workspaces"], serviceAccounts: ["serviceAccounts"], users: ["users"] },
  "cosmos-webhook-stores.ts": { webhooks: ["webhooks"], logs: ["deliveryLogs"] },
  "cosmos-workspace-data-stores.ts": { links: ["workspaceItems"], records: ["workspaceItems"] },
};

/**
 * Conditions no index serves, which Cosmos evaluates on the documents the indexed ones select: an
 * array tested for being non-empty (ARRAY_LENGTH). Indexing the array would index its contents.
 */
const EVALUATED_ON_DOCUMENTS: Partial<Record<ContainerName, readonly string[]>> = { workspaceItems: ["/indicators"] };

/** Whether the policy indexes `docPath` (`/a/b`): an included `/a/b/?`, or `/a/*` / `/a/b/*` above it. */
export function indexes(policy: IndexingPolicy, docPath: string): boolean {
  return (policy.includedPaths ?? []).some(({ path: p }) => {
    if (p.endsWith("/?")) return p.slice(0, -2) === docPath;
    if (p.endsWith("/*")) {
      const root = p.slice(0, -2);
      return root === "" || docPath === root || docPath.startsWith(`${root}/`);
    }
    return false;
  });
}

const sites = cosmosQuerySites(ADAPTER, RECEIVERS);

describe("Cosmos indexing policies follow the queries", () => {
  it("finds the adapter's queries, each on a known collection", () => {
    expect(sites.length).toBeGreaterThanOrEqual(25);
    const unknown = sites.filter((s) => s.containers.length === 0).map((s) => `${s.file}:${s.line} ${s.receiver}`);
    expect(unknown, "queries on a collection RECEIVERS does not map to a container").toEqual([]);
  });

  it("indexes every path a query filters or sorts on", () => {
    const missing: string[] = [];
    for (const site of sites) {
      for (const name of site.containers as ContainerName[]) {
        const policy = containers[name].indexingPolicy;
        for (const p of site.paths) {
          if (EVALUATED_ON_DOCUMENTS[name]?.includes(p)) continue;
          if (!indexes(policy, p)) missing.push(`${name} ${p} (${site.file}:${site.line})`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("indexes nothing else: the root is excluded and each included path is one a query uses", () => {
    const used = new Map<string, Set<string>>();
    for (const site of sites) for (const name of site.containers) for (const p of site.paths) used.set(name, (used.get(name) ?? new Set()).add(p));
    const unused: string[] = [];
    for (const [name, spec] of Object.entries(containers)) {
      const policy = spec.indexingPolicy;
      expect(policy.excludedPaths, name).toContainEqual({ path: "/*" });
      expect(policy.indexingMode, name).toBe("consistent");
      for (const { path: p } of policy.includedPaths ?? []) {
        const root = p.replace(/\/(\?|\*)$/, "");
        if (![...(used.get(name) ?? [])].some((q) => q === root || q.startsWith(`${root}/`))) unused.push(`${name} ${p}`);
      }
    }
    expect(unused, "included paths no query uses").toEqual([]);
  });

  it("leaves payloads, bodies and audit details out", () => {
    expect(indexes(containers.audit.indexingPolicy, "/details")).toBe(false);
    expect(indexes(containers.audit.indexingPolicy, "/details/changes")).toBe(false);
    expect(indexes(containers.deliveryLogs.indexingPolicy, "/requestBody")).toBe(false);
    for (const name of OUTBOX_CONTAINERS) expect(indexes(containers[name].indexingPolicy, "/payload"), name).toBe(false);
    expect(containers.reconciler.indexingPolicy.includedPaths).toEqual([]);
  });

  it("would fail for a query on a path the policy leaves out", () => {
    const policy = containers.workspaceItems.indexingPolicy;
    expect(indexes(policy, "/status")).toBe(true);
    expect(indexes(policy, "/approval/expiresAt")).toBe(true);
    expect(indexes(policy, "/approval")).toBe(false);
    expect(indexes(policy, "/title")).toBe(false);
    expect(indexes({ includedPaths: [{ path: "/*" }] }, "/title")).toBe(true);
  });
});
