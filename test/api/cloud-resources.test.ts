import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAdminAccount } from "../../shared/domain/organizations/admin-account";
import { resourceGroupServiceId } from "../../shared/domain/cloud/cloud-lookups";
import type { SimulatedSubscription } from "../../shared/systems/cloud-inventory/simulated/simulated-estate";
import { API_PREFIX } from "../../shared/platform/http/router";
import { createServiceAccount, startTestHost, type TestHost } from "../support/test-host";
import { json, type Json } from "../support/json";

type Credential = { clientId: string; clientSecret: string };

const BASE = "/azure-resources/subscriptions";
const UNKNOWN_SUBSCRIPTION = "00000000-1111-4222-8333-444444444444";

let host: TestHost;
let fabrikam: Credential;
let northwind: Credential;
let fabrikamProd: SimulatedSubscription;
let northwindProd: SimulatedSubscription;
let providerProd: SimulatedSubscription;

const subscriptionsOf = (accountId: string) => host.simulated.cloud.subscriptions.filter((s) => s.accountId === accountId);
const securityGroupOf = (s: SimulatedSubscription) => s.resourceGroups.find((g) => g.name.includes("-security-"))!;
const stagingOf = (s: SimulatedSubscription) => securityGroupOf(s).workspaces.find((w) => !w.onboarded)!;
/** Every route of the group, for one subscription (and its security group). */
const everyRoute = (s: SimulatedSubscription) => {
  const group = securityGroupOf(s).name;
  return [
    `${BASE}/${s.subscriptionId}/resource-groups`,
    `${BASE}/${s.subscriptionId}/network-security-groups`,
    `${BASE}/${s.subscriptionId}/resource-groups/${group}/sentinels`,
    `${BASE}/${s.subscriptionId}/resource-groups/${group}/workspaces/${securityGroupOf(s).workspaces[0]!.name}/validate`,
  ];
};

beforeAll(async () => {
  host = await startTestHost();
  const [fab, north] = host.demo.customers;
  const admin = async (accountId: string, name: string) => {
    const a = await ensureAdminAccount(host.services, { accountId, name, workspaceIds: [] });
    return { clientId: a.clientId, clientSecret: a.clientSecret };
  };
  fabrikam = await admin(fab!.id, "Fabrikam admin");
  northwind = await admin(north!.id, "Northwind admin");
  const prod = (accountId: string) => subscriptionsOf(accountId).find((s) => s.displayName.endsWith("Production"))!;
  fabrikamProd = prod(fab!.id);
  northwindProd = prod(north!.id);
  providerProd = prod(host.demo.provider.id);
});
afterAll(async () => host?.close());

describe("cloud resources: subscriptions", () => {
  it("lists the organization's subscriptions — a provider's own and its customers' — as {id, displayName} by name", async () => {
    const res = await host.call("GET", BASE);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(Object.keys(body).sort()).toEqual(["data", "meta"]);
    const expected = host.simulated.cloud.subscriptions
      .map((s) => ({ id: s.subscriptionId, displayName: s.displayName }))
      .sort((a, b) => a.displayName.localeCompare(b.displayName));
    expect(body.data).toEqual(expected);
    expect(body.data).toHaveLength(6);
    for (const s of body.data) expect(s.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("a customer organization sees only its own subscriptions, never another organization's", async () => {
    const fab = await json(await host.call("GET", BASE, { auth: fabrikam }));
    const own = subscriptionsOf(host.demo.customers[0]!.id).map((s) => s.subscriptionId);
    expect(fab.data.map((s: Json) => s.id).sort()).toEqual([...own].sort());
    expect(own).toHaveLength(2);
    const north = await json(await host.call("GET", BASE, { auth: northwind }));
    expect(north.data.map((s: Json) => s.id)).not.toContain(fabrikamProd.subscriptionId);
    expect(north.data.map((s: Json) => s.id)).not.toContain(providerProd.subscriptionId);
  });

  it("answers 404 on every route for another organization's subscription, exactly as for one that does not exist", async () => {
    for (const [path, unknownPath] of everyRoute(northwindProd).map((p, i) => [p, everyRoute(northwindProd)[i]!.replace(northwindProd.subscriptionId, UNKNOWN_SUBSCRIPTION)] as const)) {
      const foreign = await host.call("GET", path, { auth: fabrikam });
      expect(foreign.status, path).toBe(404);
      const a = await json(foreign);
      const b = await json(await host.call("GET", unknownPath, { auth: fabrikam }));
      expect(a.code).toBe("NOT_FOUND");
      expect(a.target).toBe("subscriptionId");
      expect([a.code, a.detail, a.target]).toEqual([b.code, b.detail, b.target]);
      expect(JSON.stringify(a)).not.toContain(northwindProd.displayName);
    }
    // The provider manages Northwind, so the same paths answer for it.
    for (const path of everyRoute(northwindProd)) expect((await host.call("GET", path)).status, path).toBe(200);
  });

  it("a customer never sees its provider's subscriptions", async () => {
    for (const path of everyRoute(providerProd)) expect((await host.call("GET", path, { auth: northwind })).status, path).toBe(404);
  });
});

describe("cloud resources: resource groups, security instances, network security groups", () => {
  it("lists a subscription's resource groups with id (the service's), name, azureId (ARM's) and location, by name", async () => {
    const body = await json(await host.call("GET", `${BASE}/${fabrikamProd.subscriptionId}/resource-groups`, { auth: fabrikam }));
    const expected = fabrikamProd.resourceGroups
      .map((g) => ({ id: resourceGroupServiceId(g.resourceId), name: g.name, azureId: g.resourceId, location: g.location }))
      .sort((a, b) => a.name.localeCompare(b.name, "en", { sensitivity: "base" }));
    expect(body.data).toEqual(expected);
    const security = body.data.find((g: Json) => g.name.includes("-security-"));
    expect(security.azureId).toBe(`/subscriptions/${fabrikamProd.subscriptionId}/resourceGroups/${security.name}`);
    expect(security.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(body.data.map((g: Json) => g.name)).toEqual(expect.arrayContaining(["NetworkWatcherRG"]));
  });

  it("accepts the subscription id in upper case", async () => {
    const res = await host.call("GET", `${BASE}/${fabrikamProd.subscriptionId.toUpperCase()}/resource-groups`, { auth: fabrikam });
    expect(res.status).toBe(200);
  });

  it("lists as security instances only the onboarded workspaces, with the service's workspace id as id", async () => {
    const group = securityGroupOf(fabrikamProd);
    const body = await json(await host.call("GET", `${BASE}/${fabrikamProd.subscriptionId}/resource-groups/${group.name}/sentinels`, { auth: fabrikam }));
    const demoWorkspaces = host.demo.workspaces.filter((w) => w.accountId === host.demo.customers[0]!.id);
    expect(body.data.map((w: Json) => w.id).sort()).toEqual(demoWorkspaces.map((w) => w.id).sort());
    expect(body.data.map((w: Json) => w.name)).not.toContain(stagingOf(fabrikamProd).name);
    for (const w of body.data) {
      expect(Object.keys(w).sort()).toEqual(["azureId", "id", "location", "name"]);
      expect(w.azureId).toBe(`${group.resourceId}/providers/Microsoft.OperationalInsights/workspaces/${w.name}`);
      expect(w.location).toBe(group.location);
    }
    expect(body.data.map((w: Json) => w.name)).toEqual([...body.data.map((w: Json) => w.name)].sort());
  });

  it("compares resource group names without regard to case, as Azure does", async () => {
    const group = securityGroupOf(fabrikamProd);
    const res = await host.call("GET", `${BASE}/${fabrikamProd.subscriptionId}/resource-groups/${group.name.toUpperCase()}/sentinels`, { auth: fabrikam });
    expect(res.status).toBe(200);
    expect((await json(res)).data.length).toBeGreaterThan(0);
  });

  it("answers an empty list for a group without onboarded workspaces, and 404 for a group that does not exist", async () => {
    const monitoring = fabrikamProd.resourceGroups.find((g) => g.name.includes("-monitoring-"))!;
    expect(monitoring.workspaces.length).toBeGreaterThan(0);
    const empty = await json(await host.call("GET", `${BASE}/${fabrikamProd.subscriptionId}/resource-groups/${monitoring.name}/sentinels`, { auth: fabrikam }));
    expect(empty.data).toEqual([]);
    const missing = await host.call("GET", `${BASE}/${fabrikamProd.subscriptionId}/resource-groups/rg-does-not-exist/sentinels`, { auth: fabrikam });
    expect(missing.status).toBe(404);
    expect((await json(missing)).code).toBe("NOT_FOUND");
  });

  it("lists a subscription's network security groups with the ARM resource id as id, by name", async () => {
    const body = await json(await host.call("GET", `${BASE}/${fabrikamProd.subscriptionId}/network-security-groups`, { auth: fabrikam }));
    const expected = fabrikamProd.networkSecurityGroups.map((n) => ({ id: n.resourceId, name: n.name, location: n.location })).sort((a, b) => a.name.localeCompare(b.name));
    expect(body.data).toEqual(expected);
    for (const n of body.data) expect(n.id).toMatch(new RegExp(`^/subscriptions/${fabrikamProd.subscriptionId}/resourceGroups/[^/]+/providers/Microsoft\\.Network/networkSecurityGroups/${n.name}$`));
  });
});

describe("cloud resources: workspace validation", () => {
  const validate = (s: SimulatedSubscription, group: string, workspace: string, auth: Credential = fabrikam) =>
    host.call("GET", `${BASE}/${s.subscriptionId}/resource-groups/${group}/workspaces/${workspace}/validate`, { auth });

  it("is true for a workspace with the security solution onboarded, with no reason header", async () => {
    const group = securityGroupOf(fabrikamProd);
    const res = await validate(fabrikamProd, group.name, group.workspaces[0]!.name.toUpperCase());
    expect(res.status).toBe(200);
    expect((await json(res)).data).toBe(true);
    expect(res.headers.get("x-validation-reason")).toBeNull();
  });

  it("is false with X-Validation-Reason NotOnboarded for a workspace without the security solution", async () => {
    const res = await validate(fabrikamProd, securityGroupOf(fabrikamProd).name, stagingOf(fabrikamProd).name);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.data).toBe(false);
    expect(Object.keys(body).sort()).toEqual(["data", "meta"]);
    expect(res.headers.get("x-validation-reason")).toBe("NotOnboarded");
  });

  it("is false with X-Validation-Reason WorkspaceNotFound for a name the group does not hold", async () => {
    const res = await validate(fabrikamProd, securityGroupOf(fabrikamProd).name, "fabrikam-sentinel-new");
    expect((await json(res)).data).toBe(false);
    expect(res.headers.get("x-validation-reason")).toBe("WorkspaceNotFound");
  });

  it("is 404 for a resource group that does not exist", async () => {
    const res = await validate(fabrikamProd, "rg-does-not-exist", "fabrikam-sentinel-prod");
    expect(res.status).toBe(404);
  });

  it.each([
    ["too short", "abc"],
    ["starting with a hyphen", "-fabrikam-prod"],
    ["ending with a hyphen", "fabrikam-prod-"],
    ["with an underscore", "fabrikam_prod"],
    ["64 characters long", "w".repeat(64)],
  ])("rejects a workspace name %s with 400 VALIDATION_ERROR", async (_, name) => {
    const res = await validate(fabrikamProd, securityGroupOf(fabrikamProd).name, name);
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(body.errors)).toEqual(["workspaceName"]);
  });

  it("accepts a 4- and a 63-character workspace name", async () => {
    for (const name of ["w123", "w".repeat(63)]) {
      const res = await validate(fabrikamProd, securityGroupOf(fabrikamProd).name, name);
      expect(res.status, name).toBe(200);
      expect(res.headers.get("x-validation-reason")).toBe("WorkspaceNotFound");
    }
  });
});

describe("cloud resources: path parameters", () => {
  it.each(["not-a-guid", "45b7d4ce07da8954b2fc619b876709f7x", "{45b7d4ce-07da-8954-b2fc-619b876709f7}"])(
    "rejects the subscription id %s with 400 VALIDATION_ERROR on every route",
    async (bad) => {
      for (const path of everyRoute(fabrikamProd).map((p) => p.replace(fabrikamProd.subscriptionId, encodeURIComponent(bad)))) {
        const res = await host.call("GET", path, { auth: fabrikam });
        expect(res.status, path).toBe(400);
        const body = await json(res);
        expect(body.code).toBe("VALIDATION_ERROR");
        expect(body.errors.subscriptionId).toEqual(["A subscription id is a GUID."]);
      }
    },
  );

  it.each([
    ["ending with a period", "rg-fabrikam."],
    ["with a space", "rg fabrikam"],
    ["with a slash", "rg/fabrikam"],
    ["with an asterisk", "rg*"],
    ["91 characters long", "r".repeat(91)],
  ])("rejects a resource group name %s with 400 VALIDATION_ERROR", async (_, bad) => {
    for (const suffix of ["sentinels", "workspaces/fabrikam-sentinel-prod/validate"]) {
      const res = await host.call("GET", `${BASE}/${fabrikamProd.subscriptionId}/resource-groups/${encodeURIComponent(bad)}/${suffix}`, { auth: fabrikam });
      expect(res.status, suffix).toBe(400);
      const body = await json(res);
      expect(body.code).toBe("VALIDATION_ERROR");
      expect(Object.keys(body.errors)).toEqual(["resourceGroup"]);
    }
  });

  it.each(["rg-münchen-prod", "Rg_(legacy).v2", "r".repeat(90), "x"])("accepts the resource group name %s (Azure's rules), answering 404 as it does not exist", async (name) => {
    const res = await host.call("GET", `${BASE}/${fabrikamProd.subscriptionId}/resource-groups/${encodeURIComponent(name)}/sentinels`, { auth: fabrikam });
    expect(res.status).toBe(404);
    expect((await json(res)).code).toBe("NOT_FOUND");
  });
});

describe("cloud resources: authentication and scopes", () => {
  it("needs org:azure:read on every route: another scope, or org:azure:manage alone, is 403 INSUFFICIENT_SCOPE", async () => {
    const usersOnly = await createServiceAccount(host, { scopes: ["org:users:read"] });
    const manageOnly = await createServiceAccount(host, { scopes: ["org:azure:manage"] });
    const reader = await createServiceAccount(host, { scopes: ["org:azure:read"] });
    for (const path of [BASE, ...everyRoute(providerProd)]) {
      for (const auth of [usersOnly, manageOnly]) {
        const res = await host.call("GET", path, { auth });
        expect(res.status, path).toBe(403);
        const body = await json(res);
        expect(body.code).toBe("INSUFFICIENT_SCOPE");
        expect(body.target).toBe("org:azure:read");
      }
      expect((await host.call("GET", path, { auth: reader })).status, path).toBe(200);
    }
  });

  it("needs no workspace role: a reader mapped to no workspace sees the organization's subscriptions", async () => {
    const reader = await createServiceAccount(host, { scopes: ["org:azure:read"] });
    const body = await json(await host.call("GET", BASE, { auth: reader }));
    expect(body.data).toHaveLength(6);
  });

  it("is 401 without credentials", async () => {
    expect((await host.call("GET", BASE, { auth: null })).status).toBe(401);
  });

  it("is 405 for another verb", async () => {
    const res = await host.call("POST", BASE, { body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
  });
});

describe("cloud resources: the OpenAPI document", () => {
  it("documents every route with the scope, id/azureId meanings, the validation header, and examples the local host really serves", async () => {
    const doc = await json(await host.call("GET", "/openapi.json", { auth: null }));
    const routes = Object.entries(doc.paths as Json).filter(([p]) => p.startsWith(`${API_PREFIX}${BASE}`));
    expect(routes).toHaveLength(5);
    for (const [path, item] of routes) {
      const op = item.get;
      expect(op["x-required-scope"], path).toBe("org:azure:read");
      expect(op.tags).toEqual(["Cloud resources"]);
      const data = op.responses["200"].content["application/json"].schema.properties.data;
      expect(data.examples, path).toBeDefined();
      for (const p of op.parameters) {
        expect(p.schema.examples, `${path} ${p.name}`).toHaveLength(1);
        // A reference page's "try it" form applies a published pattern as a plain (non-Unicode) RegExp.
        if (p.schema.pattern) expect(new RegExp(p.schema.pattern).test(p.schema.examples[0]), `${path} ${p.name}`).toBe(true);
      }
      // 404 where the path names a subscription (or more); the subscription list names nothing.
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["400", "401", "403", ...(path.includes("{") ? ["404"] : [])]));

      // The examples are what the local host answers for the example parameters.
      const example = (name: string) => op.parameters.find((p: Json) => p.name === name)?.schema.examples[0];
      const real = path
        .slice(API_PREFIX.length)
        .replace("{subscriptionId}", example("subscriptionId"))
        .replace("{resourceGroup}", example("resourceGroup"))
        .replace("{workspaceName}", example("workspaceName"));
      const answer = (await json(await host.call("GET", real))).data;
      if (Array.isArray(answer)) {
        for (const item of data.examples[0]) expect(answer, path).toContainEqual(item);
      } else {
        expect(data.examples).toContain(answer);
      }
    }
    const groups = routes.find(([p]) => p.endsWith("/resource-groups"))![1].get.responses["200"].content["application/json"].schema.properties.data;
    expect(groups.items.properties.id.description).toContain("service's own id");
    expect(groups.items.properties.azureId.description).toContain("full Azure Resource Manager resource id");
    const validity = routes.find(([p]) => p.endsWith("/validate"))![1].get.responses["200"].content["application/json"].schema.properties.data;
    expect(validity.type).toBe("boolean");
    expect(validity.description).toContain("X-Validation-Reason");
  });
});

describe("cloud resources: configuration", () => {
  it("answers 400 EXTENSION_NOT_ENABLED on every route when lookups are disabled", async () => {
    const disabled = await startTestHost({ env: { CLOUD_INVENTORY: "disabled" } });
    try {
      for (const path of [BASE, ...everyRoute(fabrikamProd)]) {
        const res = await disabled.call("GET", path);
        expect(res.status, path).toBe(400);
        expect((await json(res)).code).toBe("EXTENSION_NOT_ENABLED");
      }
    } finally {
      await disabled.close();
    }
  });

  it("shows each organization only the subscriptions CLOUD_SUBSCRIPTIONS names for its accounts", async () => {
    const [fab, north] = host.demo.customers;
    const configured = await startTestHost({
      env: { CLOUD_SUBSCRIPTIONS: JSON.stringify({ [fab!.id]: [fabrikamProd.subscriptionId.toUpperCase(), UNKNOWN_SUBSCRIPTION] }) },
    });
    try {
      const provider = await json(await configured.call("GET", BASE));
      expect(provider.data.map((s: Json) => s.id)).toEqual([fabrikamProd.subscriptionId]);
      const a = await ensureAdminAccount(configured.services, { accountId: north!.id, name: "Northwind admin", workspaceIds: [] });
      const asNorthwind = { clientId: a.clientId, clientSecret: a.clientSecret };
      expect((await json(await configured.call("GET", BASE, { auth: asNorthwind }))).data).toEqual([]);
      expect((await configured.call("GET", `${BASE}/${northwindProd.subscriptionId}/resource-groups`, { auth: asNorthwind })).status).toBe(404);
      // Configured, but not in the estate: the inventory's own 404.
      expect((await configured.call("GET", `${BASE}/${UNKNOWN_SUBSCRIPTION}/resource-groups`)).status).toBe(404);
    } finally {
      await configured.close();
    }
  });
});
