import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json } from "../support/json";

/*
 * A field left out of a PUT never widens access or routing: it is required (the webhook's monitored
 * accounts), or it keeps the value stored (docs/decisions.md, PUT semantics, lists every PUT).
 */

let host: TestHost;
let admin: TestPerson;
let ws: string;
beforeAll(async () => {
  host = await startTestHost();
  ws = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
  admin = await host.person({ organizationalRole: "Admin", workspaceAssignments: host.demo.workspaces.map((w) => ({ workspaceId: w.id, role: "Owner" as const })) });
});
afterAll(() => host?.close());

const portal = (method: string, path: string, body?: unknown) => host.portal(admin, method, path, { body });

describe("a PUT that leaves a field out", () => {
  it("PUT /webhooks/{id} needs monitoredAccountIds: without it, 400, and the webhook still hears only its accounts", async () => {
    const customer = host.demo.customers[0]!.id;
    const created = await json(
      await host.call("POST", "/webhooks", { body: { name: "one customer", url: "https://hooks.example.com/one", eventTypes: ["incident.created.v1"], monitoredAccountIds: [customer] } }),
    );
    const id = created.data.id;
    const res = await host.call("PUT", `/webhooks/${id}`, { body: { name: "renamed", url: "https://hooks.example.com/one", eventTypes: ["incident.created.v1"] } });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ code: "VALIDATION_ERROR", errors: { monitoredAccountIds: [expect.any(String)] } });
    expect((await json(await host.call("GET", `/webhooks/${id}`))).data).toMatchObject({ name: "one customer", monitoredAccountIds: [customer] });
    // Every managed account is a choice made by saying so.
    const all = await host.call("PUT", `/webhooks/${id}`, { body: { name: "renamed", url: "https://hooks.example.com/one", eventTypes: ["incident.created.v1"], monitoredAccountIds: [] } });
    expect((await json(all)).data).toMatchObject({ name: "renamed", monitoredAccountIds: [] });
  });

  it("PUT …/approval-policy keeps the settings left out: no second approver dropped, no longer wait", async () => {
    const path = `/portal/workspaces/${ws}/approval-policy`;
    expect((await portal("PUT", path, { mode: "AllRuns", approvalTimeoutHours: 2, requireSecondApproverForAdminPlaybooks: true })).status).toBe(200);
    const res = await portal("PUT", path, { mode: "AdminRequiredPlaybooks" });
    expect((await json(res)).data).toEqual({ mode: "AdminRequiredPlaybooks", approvalTimeoutHours: 2, onExpiry: "Deny", requireSecondApproverForAdminPlaybooks: true, twoSidedApproval: false });
    expect((await json(await portal("GET", path))).data).toEqual((await json(res)).data);
    await portal("PUT", path, { mode: "NoApproval", approvalTimeoutHours: 24, requireSecondApproverForAdminPlaybooks: false });
  });

  it("PUT …/sla-policy keeps the targets left out: one severity changed leaves the others' targets", async () => {
    const path = `/portal/workspaces/${ws}/sla-policy`;
    const res = await portal("PUT", path, { timeToResolveMinutes: { High: 120 } });
    expect((await json(res)).data).toEqual({ timeToResolveMinutes: { Informational: null, Low: 4320, Medium: 1440, High: 120 } });
    // Removing a target is said with null.
    expect((await json(await portal("PUT", path, { timeToResolveMinutes: { Low: null, High: 240 } }))).data.timeToResolveMinutes).toEqual({ Informational: null, Low: null, Medium: 1440, High: 240 });
    await portal("PUT", path, { timeToResolveMinutes: { Low: 4320 } });
  });

  it("PUT /portal/people/{userId} keeps a deactivated person deactivated; a new one is active", async () => {
    const userId = randomUUID();
    const provider = host.demo.provider.id;
    const tenantId = host.demo.users.find((u) => u.accountId === provider)!.tenantId;
    const body = { displayName: "Left Out", email: `left-${userId.slice(0, 8)}@example.com`, tenantId, accountId: provider, organizationalRole: "Member" };
    expect((await json(await portal("PUT", `/portal/people/${userId}`, body))).data.isActive).toBe(true);
    expect((await json(await portal("PUT", `/portal/people/${userId}`, { ...body, isActive: false }))).data.isActive).toBe(false);
    const res = await portal("PUT", `/portal/people/${userId}`, { ...body, displayName: "Still Out" });
    expect(res.status).toBe(200);
    expect((await json(res)).data).toMatchObject({ displayName: "Still Out", isActive: false });
  });

  it("PUT …/playbooks/{playbookId} keeps isAdminRequired and a switched-off playbook off", async () => {
    const playbookId = randomUUID();
    const path = `/portal/workspaces/${ws}/playbooks/${playbookId}`;
    const entry = { referenceId: `left-out-${playbookId.slice(0, 8)}`, name: "Left out", entityType: "Host" };
    expect((await json(await portal("PUT", path, entry))).data).toMatchObject({ isAdminRequired: false, enabled: true });
    expect((await json(await portal("PUT", path, { ...entry, isAdminRequired: true, enabled: false }))).data).toMatchObject({ isAdminRequired: true, enabled: false });
    const res = await portal("PUT", path, { ...entry, description: "Renamed only." });
    expect(res.status).toBe(200);
    expect((await json(res)).data).toMatchObject({ description: "Renamed only.", isAdminRequired: true, enabled: false });
  });

  it("PUT /users keeps the role and the tenant left out; a new user needs a tenant", async () => {
    const userId = randomUUID();
    const email = `owner-${userId.slice(0, 8)}@example.com`;
    expect((await host.call("PUT", "/users", { body: { userId, displayName: "Owner", email } })).status).toBe(400);
    expect((await host.call("PUT", "/users", { body: { userId, displayName: "Owner", email, tenantId: randomUUID(), isOwner: true } })).status).toBe(201);
    expect((await host.call("PUT", "/users", { body: { userId, displayName: "Still Owner", email } })).status).toBe(200);
    expect((await json(await host.call("GET", `/users/${userId}`))).data).toMatchObject({ displayName: "Still Owner", organizationalRole: "Admin" });
  });
});
