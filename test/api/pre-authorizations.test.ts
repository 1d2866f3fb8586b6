import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import type { OutboxAuditRecord } from "../../shared/platform/events/outbox-record";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { submitAccountRun } from "../support/gamebook-runs";
import { json, type Json } from "../support/json";

/**
 * Standing pre-authorizations: a customer's Owner records that some playbooks run without asking on
 * their workspace until a date; the approval policy applies them at submission, the run and the
 * audit trail say which one let a run through, and they end by themselves (the host's clock is moved
 * past the end: no timer runs).
 */
const HOUR = 3_600_000;
let offset = 0;
let host: TestHost;
let northwind: string;
let customerOwner: TestPerson;
let customerAnalyst: TestPerson;
let providerOwner: TestPerson;
let revokeSessions: string;
let resetPassword: string;

beforeAll(async () => {
  host = await startTestHost({ now: () => new Date(Date.now() + offset), env: { SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  const workspace = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-prod")!;
  northwind = workspace.id;
  const owns = [{ workspaceId: northwind, role: "Owner" as const }];
  customerOwner = await host.person({ organizationalRole: "Member", accountId: workspace.accountId, workspaceAssignments: owns });
  customerAnalyst = await host.person({ organizationalRole: "Member", accountId: workspace.accountId, workspaceAssignments: [{ workspaceId: northwind, role: "Analyst" }] });
  providerOwner = await host.person({ organizationalRole: "WorkspaceAdmin", workspaceAssignments: owns });
  expect((await host.portal(providerOwner, "PUT", `/portal/workspaces/${northwind}/approval-policy`, { body: { mode: "AllRuns" } })).status).toBe(200);
  const catalogue = (await host.services.stores.playbookCatalogues.get(northwind))!;
  revokeSessions = catalogue.playbooks.find((p) => p.referenceId === "revoke-sessions")!.id;
  resetPassword = catalogue.playbooks.find((p) => p.referenceId === "reset-password")!.id;
}, 60_000);
afterAll(() => host?.close());

const path = `/portal/workspaces/`;
const create = (person: TestPerson, body: Json) => host.portal(person, "POST", `${path}${northwind}/pre-authorizations`, { body });
const runView = async (runId: string) => (await json(await host.portal(providerOwner, "GET", `${path}${northwind}/gamebook-runs/${runId}`))).data as Json;
const hoursAhead = (n: number) => new Date(Date.now() + offset + n * HOUR).toISOString();

describe("standing pre-authorizations", () => {
  let standing: Json;

  it("a customer's Owner records one; a provider's Owner may not, nor an Analyst; bad input is 400 at its field", async () => {
    const refused = await create(providerOwner, { playbookIds: [revokeSessions], endsAt: hoursAhead(2) });
    expect([refused.status, (await json(refused)).code]).toEqual([403, "FORBIDDEN"]);
    const analyst = await create(customerAnalyst, { playbookIds: [revokeSessions], endsAt: hoursAhead(2) });
    expect([analyst.status, (await json(analyst)).code]).toEqual([403, "INSUFFICIENT_WORKSPACE_ROLE"]);
    for (const [body, target] of [
      [{ playbookIds: [revokeSessions], endsAt: hoursAhead(-1) }, "endsAt"],
      [{ playbookIds: [revokeSessions], endsAt: hoursAhead(24 * 400) }, "endsAt"],
      [{ playbookIds: ["00000000-0000-4000-8000-000000000001"], endsAt: hoursAhead(2) }, "playbookIds[0]"],
      [{ playbookIds: [], endsAt: hoursAhead(2) }, "playbookIds"],
    ] as const) {
      const res = await create(customerOwner, body);
      expect([res.status, (await json(res)).target], JSON.stringify(body)).toEqual([400, target]);
    }
    const res = await create(customerOwner, { playbookIds: [revokeSessions], endsAt: hoursAhead(2), note: "Revoke sessions without asking this week." });
    expect(res.status).toBe(201);
    standing = (await json(res)).data;
    expect(res.headers.get("location")).toMatch(new RegExp(`/pre-authorizations/${standing.id}$`));
    expect(standing).toMatchObject({ state: "Active", playbooks: [{ id: revokeSessions, name: "Revoke user sessions" }], created: { byUserId: customerOwner.userId }, revoked: null });
    const audits = (await host.services.stores.outbox.list(outboxScope.workspaceRecord(northwind), 100_000)).filter(
      (r): r is OutboxAuditRecord => r.kind === "audit" && r.audit.activityType === "PreAuthorization",
    );
    expect(audits.map((a) => [a.audit.activityAction, a.audit.actorId])).toEqual([["Create", customerOwner.userId]]);
    const listed = (await json(await host.portal(providerOwner, "GET", `${path}${northwind}/pre-authorizations`))).data as Json[];
    expect(listed.map((p) => p.id)).toEqual([standing.id]);
  }, 30_000);

  it("lets a run of its playbooks past the workspace's policy, and the run and its audit event say which one", async () => {
    const runId = await submitAccountRun(host, northwind, { waits: false });
    const run = await runView(runId);
    expect(run.approval).toMatchObject({ reasons: [], preAuthorization: { id: standing.id, createdBy: { userId: customerOwner.userId }, note: "Revoke sessions without asking this week." } });
    const submitted = (await host.services.stores.outbox.list(outboxScope.workspace(northwind), 100_000)).filter(
      (r): r is OutboxAuditRecord => r.kind === "audit" && r.audit.targetResourceId === runId && JSON.parse(r.audit.metadata).activity === "Submit",
    );
    expect(JSON.parse(submitted[0]!.audit.metadata)).toMatchObject({ approvalRequired: false, approvalWaived: ["WorkspacePolicy"], preAuthorization: { id: standing.id } });
  });

  it("does not waive the managing provider's partner setting: the run still waits for the provider, and says what the customer waived", async () => {
    const created = await create(customerOwner, { playbookIds: [resetPassword], endsAt: hoursAhead(2) });
    expect(created.status).toBe(201);
    const both = (await json(created)).data;
    const runId = await submitAccountRun(host, northwind, { playbook: "reset-password" });
    const card = (await json(await host.portal(providerOwner, "GET", `${path}${northwind}/approvals/${runId}`))).data;
    expect(card).toMatchObject({ reasons: [{ code: "PartnerApproval" }], requiredSides: ["Provider"], preAuthorization: { id: both.id } });
    // Revoked, it lets nothing through any more; revoking again is 409.
    const revoked = await host.portal(customerOwner, "POST", `${path}${northwind}/pre-authorizations/${both.id}/revoke`, { body: {} });
    expect((await json(revoked)).data).toMatchObject({ state: "Revoked", revoked: { byUserId: customerOwner.userId } });
    const again = await host.portal(customerOwner, "POST", `${path}${northwind}/pre-authorizations/${both.id}/revoke`, { body: {} });
    expect([again.status, (await json(again)).code]).toEqual([409, "CONFLICT"]);
  });

  it("ends by itself: past its end a run of the same playbook waits again, and the list says it expired", async () => {
    offset = 3 * HOUR;
    const runId = await submitAccountRun(host, northwind);
    const card = (await json(await host.portal(providerOwner, "GET", `${path}${northwind}/approvals/${runId}`))).data;
    expect(card).toMatchObject({ awaitingDecision: true, reasons: [{ code: "WorkspacePolicy" }], preAuthorization: null });
    const one = (await json(await host.portal(customerOwner, "GET", `${path}${northwind}/pre-authorizations/${standing.id}`))).data;
    expect(one.state).toBe("Expired");
    const late = await host.portal(customerOwner, "POST", `${path}${northwind}/pre-authorizations/${standing.id}/revoke`, { body: {} });
    expect([late.status, (await json(late)).code]).toEqual([409, "CONFLICT"]);
  });
});
