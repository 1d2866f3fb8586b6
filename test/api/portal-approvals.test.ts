import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import type { OutboxAuditRecord } from "../../shared/platform/events/outbox-record";
import { outboxEvents } from "../support/outbox";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { submitAccountRun } from "../support/gamebook-runs";
import { json, type Json } from "../support/json";

/**
 * The approval queue as people see it: one list across the workspaces they own, each request saying
 * what approving will do, and decisions taken as the person signed in.
 */
let host: TestHost;
let fabrikam: string;
let northwind: string;
let owner: TestPerson;
let analyst: TestPerson;
let admin: TestPerson;

beforeAll(async () => {
  host = await startTestHost({ env: { SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  fabrikam = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
  northwind = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-prod")!.id;
  owner = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: fabrikam, role: "Owner" }, { workspaceId: northwind, role: "Owner" }] });
  analyst = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: fabrikam, role: "Analyst" }] });
  admin = await host.person({ organizationalRole: "WorkspaceAdmin" });
  for (const workspaceId of [fabrikam, northwind]) {
    const res = await host.portal(admin, "PUT", `/portal/workspaces/${workspaceId}/approval-policy`, { body: { mode: "AllRuns", approvalTimeoutHours: 4 } });
    expect(res.status).toBe(200);
  }
});
afterAll(() => host?.close());

const submit = (workspaceId: string) => submitAccountRun(host, workspaceId);

describe("the approval queue", () => {
  it("lists the runs waiting in every workspace the person owns, across customers, soonest to expire first, with what approving will do", async () => {
    const first = await submit(fabrikam);
    const second = await submit(northwind);
    const res = await host.portal(owner, "GET", "/portal/approvals?pageSize=200");
    expect(res.status).toBe(200);
    const ids = ((await json(res)).data as Json[]).map((r) => r.runId);
    expect(ids).toEqual(expect.arrayContaining([first, second]));
    expect(ids.indexOf(first)).toBeLessThan(ids.indexOf(second));

    const entry = ((await json(await host.portal(owner, "GET", "/portal/approvals?pageSize=200"))).data as Json[]).find((r) => r.runId === first)!;
    expect(entry).toMatchObject({
      workspace: { id: fabrikam, name: "fabrikam-sentinel-prod" },
      status: "Pending",
      awaitingDecision: true,
      requestedBy: { kind: "ServiceAccount", id: host.admin.clientId },
      reasons: [{ code: "WorkspacePolicy" }],
      timeoutHours: 4,
      requiredApprovals: 1,
      approvalsStillNeeded: 1,
      viewer: { mayApprove: true, mayDeny: true, reason: null, side: "Provider" },
    });
    expect(entry.playbooks).toHaveLength(1);
    expect(entry.playbooks[0]).toMatchObject({ sequence: 1, playbookId: expect.any(String), affectedEntity: expect.any(String) });
    expect(entry.entities.length).toBeGreaterThan(0);
  });

  it("leaves out workspaces the person does not own, and narrows to the workspaces asked for", async () => {
    const run = await submit(fabrikam);
    expect(((await json(await host.portal(analyst, "GET", "/portal/approvals"))).data as Json[])).toEqual([]);
    const onlyNorthwind = (await json(await host.portal(owner, "GET", `/portal/approvals?workspaceIds=${northwind}&pageSize=200`))).data as Json[];
    expect(onlyNorthwind.every((r) => r.workspace.id === northwind)).toBe(true);
    expect(onlyNorthwind.map((r) => r.runId)).not.toContain(run);
    // The analyst may read the request, but is told why they may not approve it, and is refused if they try.
    const seen = await json(await host.portal(analyst, "GET", `/portal/workspaces/${fabrikam}/approvals/${run}`));
    expect(seen.data.viewer).toEqual({ mayApprove: false, mayDeny: false, reason: "Approving needs the Owner role on the run's workspace, or the organizational role Admin.", side: "Provider" });
    const tried = await host.portal(analyst, "POST", `/portal/workspaces/${fabrikam}/approvals/${run}/approve`, { body: {} });
    expect([tried.status, (await json(tried)).code]).toEqual([403, "INSUFFICIENT_WORKSPACE_ROLE"]);
  });

  it("pages with a token bound to the person", async () => {
    await submit(fabrikam);
    await submit(fabrikam);
    const page1 = await json(await host.portal(owner, "GET", "/portal/approvals?pageSize=1"));
    expect(page1.pagination.hasMore).toBe(true);
    const token = encodeURIComponent(page1.pagination.continuationToken);
    const page2 = await json(await host.portal(owner, "GET", `/portal/approvals?pageSize=1&continuationToken=${token}`));
    expect(page2.data[0].runId).not.toBe(page1.data[0].runId);
    const stolen = await host.portal(admin, "GET", `/portal/approvals?pageSize=1&continuationToken=${token}`);
    expect(stolen.status).toBe(200); // the admin owns nothing: an empty queue, the token never read
    const otherOwner = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: fabrikam, role: "Owner" }, { workspaceId: northwind, role: "Owner" }] });
    const replayed = await host.portal(otherOwner, "GET", `/portal/approvals?pageSize=1&continuationToken=${token}`);
    expect([replayed.status, (await json(replayed)).code]).toEqual([400, "VALIDATION_ERROR"]);
  });

  it("approving dispatches the run (gamebook.run.v1), is audited with the person as actor, takes it off the queue, and is final", async () => {
    const run = await submit(fabrikam);
    const res = await host.portal(owner, "POST", `/portal/workspaces/${fabrikam}/approvals/${run}/approve`, { body: { comment: "Confirmed with the customer." } });
    const body = await json(res);
    expect(res.status).toBe(200);
    expect(body.data).toMatchObject({ runId: run, awaitingDecision: false, decision: { outcome: "Approved", byUserId: owner.userId, comment: "Confirmed with the customer." } });
    const events = (await outboxEvents(host.services, fabrikam)).filter((e) => e.type === "gamebook.run.v1" && e.data.runId === run);
    expect(events).toHaveLength(1);
    const audits = (await host.services.stores.outbox.list(outboxScope.workspace(fabrikam), 100_000)).filter(
      (r): r is OutboxAuditRecord => r.kind === "audit" && r.audit.targetResourceId === run && JSON.parse(r.audit.metadata).activity === "Approve",
    );
    expect(audits.map((a) => [a.audit.actorId, a.audit.actorName])).toEqual([[owner.userId, owner.name]]);
    const queue = (await json(await host.portal(owner, "GET", "/portal/approvals?pageSize=200"))).data as Json[];
    expect(queue.map((r) => r.runId)).not.toContain(run);
    const again = await host.portal(owner, "POST", `/portal/workspaces/${fabrikam}/approvals/${run}/deny`, { body: { reason: "Changed my mind." } });
    expect([again.status, (await json(again)).code]).toEqual([409, "CONFLICT"]);
  });

  it("a denial needs its reason, and ends the run Denied with nothing run", async () => {
    const run = await submit(northwind);
    const without = await host.portal(owner, "POST", `/portal/workspaces/${northwind}/approvals/${run}/deny`, { body: {} });
    expect([without.status, (await json(without)).code]).toEqual([400, "VALIDATION_ERROR"]);
    const denied = await json(await host.portal(owner, "POST", `/portal/workspaces/${northwind}/approvals/${run}/deny`, { body: { reason: "Travel confirmed by phone." } }));
    expect(denied.data).toMatchObject({ status: "Denied", decision: { outcome: "Denied", comment: "Travel confirmed by phone.", expired: false } });
    expect(host.simulated.automation.executions().filter((e) => e.runId === run)).toEqual([]);
  });

  it("an unknown run is 404", async () => {
    const res = await host.portal(owner, "GET", `/portal/workspaces/${fabrikam}/approvals/00000000-0000-4000-8000-000000000001`);
    expect([res.status, (await json(res)).code]).toEqual([404, "NOT_FOUND"]);
  });
});
