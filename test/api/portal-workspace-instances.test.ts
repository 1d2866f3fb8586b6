import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SimulatedSubscription } from "../../shared/systems/cloud-inventory/simulated/simulated-estate";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

const PORTAL = "/portal/azure-resources/subscriptions";
const CONTRACT = "/azure-resources/subscriptions";
const UNKNOWN_SUBSCRIPTION = "00000000-1111-4222-8333-444444444444";

let host: TestHost;
let admin: TestPerson;
let fabrikam: { id: string; tenantId: string };
let fabrikamDev: SimulatedSubscription;
let fabrikamProd: SimulatedSubscription;

const devGroupOf = (s: SimulatedSubscription) => s.resourceGroups.find((g) => g.name.includes("-dev-"))!;
const securityGroupOf = (s: SimulatedSubscription) => s.resourceGroups.find((g) => g.name.includes("-security-"))!;
const instancePath = (s: SimulatedSubscription, group: string, name: string) => `${PORTAL}/${s.subscriptionId}/resource-groups/${group}/workspaces/${name}/validate`;

beforeAll(async () => {
  host = await startTestHost();
  admin = await host.person({ organizationalRole: "WorkspaceAdmin" });
  const account = host.demo.customers[0]!;
  fabrikam = { id: account.id, tenantId: host.demo.workspaces.find((w) => w.accountId === account.id)!.tenantId };
  const own = host.simulated.cloud.subscriptions.filter((s) => s.accountId === account.id);
  fabrikamDev = own.find((s) => s.displayName.endsWith("Development"))!;
  fabrikamProd = own.find((s) => s.displayName.endsWith("Production"))!;
});
afterAll(async () => host?.close());

describe("portal cloud lookups", () => {
  it("answer a WorkspaceAdmin exactly what the contract's routes answer the same organization's service account", async () => {
    const dev = devGroupOf(fabrikamDev).name;
    for (const path of ["", `/${fabrikamDev.subscriptionId}/resource-groups`, `/${fabrikamDev.subscriptionId}/resource-groups/${dev}/sentinels`]) {
      const person = await host.portal(admin, "GET", `${PORTAL}${path}`);
      const service = await host.call("GET", `${CONTRACT}${path}`);
      expect([path, person.status]).toEqual([path, 200]);
      expect((await json(person)).data).toEqual((await json(service)).data);
    }
  });

  it("offer the security instance no workspace serves yet, with its workspace id as id", async () => {
    const group = devGroupOf(fabrikamDev);
    const instances = (await json(await host.portal(admin, "GET", `${PORTAL}/${fabrikamDev.subscriptionId}/resource-groups/${group.name}/sentinels`))).data;
    const expected = group.workspaces.find((w) => w.name === "fabrikam-sentinel-dev")!;
    expect(instances).toEqual([{ id: expected.customerId, name: "fabrikam-sentinel-dev", azureId: expected.resourceId, location: expected.location }]);
  });

  it("validate a choice: valid, not onboarded, not found, already a workspace; 404 for an unknown subscription, 400 for an illegal name", async () => {
    const dev = devGroupOf(fabrikamDev);
    const valid = (await json(await host.portal(admin, "GET", instancePath(fabrikamDev, dev.name, "fabrikam-sentinel-dev")))).data;
    expect(valid).toMatchObject({ valid: true, reason: null, detail: null, instance: { id: dev.workspaces.find((w) => w.onboarded)!.customerId, name: "fabrikam-sentinel-dev" } });

    const security = securityGroupOf(fabrikamProd);
    const staging = security.workspaces.find((w) => !w.onboarded)!;
    expect((await json(await host.portal(admin, "GET", instancePath(fabrikamProd, security.name, staging.name)))).data).toMatchObject({
      valid: false,
      reason: "NotOnboarded",
      detail: expect.stringContaining("not onboarded"),
      instance: null,
    });
    expect((await json(await host.portal(admin, "GET", instancePath(fabrikamProd, security.name, "no-such-workspace")))).data).toMatchObject({ valid: false, reason: "WorkspaceNotFound", instance: null });
    // The demo's production workspace is the instance's: it is already onboarded, and the answer names it.
    const prod = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!;
    expect((await json(await host.portal(admin, "GET", instancePath(fabrikamProd, security.name, "fabrikam-sentinel-prod")))).data).toMatchObject({
      valid: false,
      reason: "AlreadyOnboarded",
      detail: "fabrikam-sentinel-prod is already onboarded as fabrikam-sentinel-prod.",
      instance: { id: prod.id },
    });

    const unknown = await host.portal(admin, "GET", `${PORTAL}/${UNKNOWN_SUBSCRIPTION}/resource-groups`);
    expect([unknown.status, (await json(unknown)).code]).toEqual([404, "NOT_FOUND"]);
    const unknownGroup = await host.portal(admin, "GET", instancePath(fabrikamDev, "rg-nowhere", "fabrikam-sentinel-dev"));
    expect(unknownGroup.status).toBe(404);
    const illegal = await host.portal(admin, "GET", instancePath(fabrikamDev, dev.name, "-x"));
    expect([illegal.status, (await json(illegal)).code]).toEqual([400, "VALIDATION_ERROR"]);
  });

  it("refuse a person of another organization with the 404 of a subscription that does not exist, and list only their own", async () => {
    const northwind = host.demo.customers[1]!;
    const stranger = await host.person({ organizationalRole: "WorkspaceAdmin", accountId: northwind.id });
    const listed = (await json(await host.portal(stranger, "GET", PORTAL))).data;
    expect(listed.map((s: Json) => s.displayName).sort()).toEqual(["Northwind Health - Development", "Northwind Health - Production"]);
    const dev = devGroupOf(fabrikamDev).name;
    for (const path of [
      `${PORTAL}/${fabrikamDev.subscriptionId}/resource-groups`,
      `${PORTAL}/${fabrikamDev.subscriptionId}/resource-groups/${dev}/sentinels`,
      instancePath(fabrikamDev, dev, "fabrikam-sentinel-dev"),
    ]) {
      const res = await host.portal(stranger, "GET", path);
      expect([path, res.status, (await json(res)).detail]).toEqual([path, 404, "The subscription was not found."]);
    }
  });

  it("refuse a role that does not onboard workspaces, and a service account's credential", async () => {
    const member = await host.person({ organizationalRole: "Member", workspaceAssignments: host.demo.workspaces.map((w) => ({ workspaceId: w.id, role: "Owner" as const })) });
    const dev = devGroupOf(fabrikamDev).name;
    for (const path of [PORTAL, `${PORTAL}/${fabrikamDev.subscriptionId}/resource-groups`, `${PORTAL}/${fabrikamDev.subscriptionId}/resource-groups/${dev}/sentinels`, instancePath(fabrikamDev, dev, "fabrikam-sentinel-dev")]) {
      const res = await host.portal(member, "GET", path);
      expect([path, res.status, (await json(res)).target]).toEqual([path, 403, "organizationalRole"]);
      expect((await host.call("GET", path)).status).toBe(403);
    }
  });
});

describe("portal onboarding from a security instance", () => {
  const instanceOf = (name: string) => ({ subscriptionId: fabrikamDev.subscriptionId, resourceGroup: devGroupOf(fabrikamDev).name, workspaceName: name });
  const onboard = (body: Json, as: TestPerson = admin) => host.portal(as, "POST", "/portal/workspaces", { body: { accountId: fabrikam.id, tenantId: fabrikam.tenantId, ...body } });

  it("gives the workspace the instance's id and Resource Manager id, audited; the instance is then taken", async () => {
    const expected = devGroupOf(fabrikamDev).workspaces.find((w) => w.name === "fabrikam-sentinel-dev")!;
    const res = await onboard({ name: "fabrikam-sentinel-dev", securityInstance: instanceOf("FABRIKAM-SENTINEL-DEV") });
    const created = (await json(res)).data;
    expect(res.status).toBe(201);
    expect(created).toMatchObject({ id: expected.customerId, name: "fabrikam-sentinel-dev", azureId: expected.resourceId, accountId: fabrikam.id });
    expect(res.headers.get("location")).toMatch(new RegExp(`/api/v2/portal/workspaces/${expected.customerId}$`));
    expect((await json(await host.portal(admin, "GET", "/portal/workspaces"))).data.map((w: Json) => w.id)).toContain(expected.customerId);
    await host.auditSequenced(created.id);
    const [event] = (await host.services.stores.audit.listWorkspaceTrail(created.id, 0, 10)).map((s) => s.event);
    expect(event).toMatchObject({ activityType: "WorkspaceOnboarded", actorId: admin.userId });
    expect(JSON.parse(event!.metadata).azureId).toBe(expected.resourceId);

    const check = (await json(await host.portal(admin, "GET", instancePath(fabrikamDev, devGroupOf(fabrikamDev).name, "fabrikam-sentinel-dev")))).data;
    expect(check).toMatchObject({ valid: false, reason: "AlreadyOnboarded" });
    const again = await onboard({ name: "fabrikam-sentinel-dev-2", securityInstance: instanceOf("fabrikam-sentinel-dev") });
    expect([again.status, (await json(again)).target]).toEqual([409, "securityInstance"]);

    // Offboarded, the id stays with its audit trail: the instance is not onboarded a second time.
    expect((await host.portal(admin, "DELETE", `/portal/workspaces/${created.id}`)).status).toBe(200);
    const after = (await json(await host.portal(admin, "GET", instancePath(fabrikamDev, devGroupOf(fabrikamDev).name, "fabrikam-sentinel-dev")))).data;
    expect(after).toMatchObject({ valid: false, reason: "AlreadyOnboarded", detail: expect.stringContaining("offboarded since") });
  });

  it("points each refusal at the field of the instance that fails", async () => {
    const security = securityGroupOf(fabrikamProd);
    const staging = security.workspaces.find((w) => !w.onboarded)!;
    const cases: [Json, string][] = [
      [{ ...instanceOf("some-workspace"), subscriptionId: UNKNOWN_SUBSCRIPTION }, "securityInstance.subscriptionId"],
      [{ ...instanceOf("some-workspace"), resourceGroup: "rg-nowhere" }, "securityInstance.resourceGroup"],
      [instanceOf("no-such-workspace"), "securityInstance.workspaceName"],
      [{ subscriptionId: fabrikamProd.subscriptionId, resourceGroup: security.name, workspaceName: staging.name }, "securityInstance.workspaceName"],
      [instanceOf("-x"), "securityInstance.workspaceName"],
    ];
    for (const [securityInstance, field] of cases) {
      const problem = await json(await onboard({ name: `ws-${field.length}-${securityInstance.workspaceName}`, securityInstance }));
      expect({ field, status: problem.status, code: problem.code, errors: Object.keys(problem.errors ?? {}) }).toEqual({ field, status: 400, code: "VALIDATION_ERROR", errors: [field] });
    }
    // Another organization's subscription is one this person's organization does not have.
    const stranger = await host.person({ organizationalRole: "WorkspaceAdmin", accountId: host.demo.customers[1]!.id });
    const northwind = host.demo.customers[1]!;
    const foreign = await json(await host.portal(stranger, "POST", "/portal/workspaces", { body: { name: "x", accountId: northwind.id, tenantId: fabrikam.tenantId, securityInstance: instanceOf("fabrikam-sentinel-dev") } }));
    expect(foreign).toMatchObject({ status: 400, errors: { "securityInstance.subscriptionId": ["No subscription of your organization has this id."] } });
  });
});
