import { z } from "zod";
import { ApiError, notFound } from "../../platform/errors/api-error";
import { approvalExpiryActions, approvalModes, approvalPolicyInput, approvalPolicyOf } from "../../domain/gamebooks/approval-policy";
import { expireApprovals } from "../../domain/gamebooks/approval-expiry";
import { runSubmittedView } from "../../domain/gamebooks/gamebook-views";
import { decideRun } from "../../domain/gamebooks/run-approval";
import { publicRoute, type Route } from "../../platform/http/route";
import { findWorkspace } from "../../domain/incidents/incident-access";
import { derivedGuid } from "../../platform/ids/derived-guid";
import { serviceActor } from "../../platform/operation-context";

const tag = "Local controls";
const runPath = z.object({ workspaceId: z.guid(), runId: z.guid() });
const person = z.string().trim().min(1).max(200);
const note = z.string().trim().min(1).max(2000);
const partnerSetting = z.object({ mode: z.enum(approvalModes), accountIds: z.array(z.guid()) });
const personId = z.guid().describe("The person's user id; default one derived from the name, so that one name is one person.");
const workspacePolicy = z.object({
  mode: z.enum(approvalModes),
  approvalTimeoutHours: z.int(),
  onExpiry: z.enum(approvalExpiryActions),
  requireSecondApproverForAdminPlaybooks: z.boolean(),
});

/** The portal person a local decision stands for: the id given, or the one the name derives (as its audit actor's). */
const deciderOf = (name: string, userId: string | undefined) => ({ userId: (userId ?? derivedGuid(`actor/portal/${name}`)).toLowerCase(), name });

/**
 * Local host only: what the portal does with gamebooks and service accounts cannot (contract 4.1
 * rule 5): approve or deny a run waiting for approval (audited, as in the portal), run the approval
 * expiry now, and change the two approval settings, the workspace's policy and the managing
 * provider's partner setting.
 */
export function gamebookControlRoutes(): Route[] {
  return [
    publicRoute({
      method: "POST",
      path: "/workspaces/{workspaceId}/gamebooks/runs/{runId}/approve",
      summary: "Approve a gamebook run waiting for approval, as the portal does: it is dispatched (gamebook.run.v1) with the last approval it needs",
      tag,
      params: runPath,
      body: z
        .strictObject({ approvedBy: person.default("Portal approver"), approverId: personId.optional(), comment: note.optional() })
        .default({ approvedBy: "Portal approver" }),
      response: runSubmittedView,
      async handler(input) {
        const { params, body } = input;
        const workspace = await findWorkspace(input, params.workspaceId);
        const run = await decideRun({ ...input, actor: { ...serviceActor("portal", body.approvedBy), accountId: workspace.accountId } }, {
          workspace,
          runId: params.runId.toLowerCase(),
          approve: true,
          comment: body.comment ?? null,
          decidedBy: deciderOf(body.approvedBy, body.approverId),
        });
        return { data: { id: run.id, status: run.status, isQueued: run.isQueued } };
      },
    }),
    publicRoute({
      method: "POST",
      path: "/workspaces/{workspaceId}/gamebooks/runs/{runId}/deny",
      summary: "Deny a gamebook run waiting for approval, as the portal does: it ends Denied and nothing runs",
      tag,
      params: runPath,
      body: z
        .strictObject({ deniedBy: person.default("Portal approver"), denierId: personId.optional(), reason: note.optional() })
        .default({ deniedBy: "Portal approver" }),
      response: runSubmittedView,
      async handler(input) {
        const { params, body } = input;
        const workspace = await findWorkspace(input, params.workspaceId);
        const run = await decideRun({ ...input, actor: { ...serviceActor("portal", body.deniedBy), accountId: workspace.accountId } }, {
          workspace,
          runId: params.runId.toLowerCase(),
          approve: false,
          comment: body.reason ?? null,
          decidedBy: deciderOf(body.deniedBy, body.denierId),
        });
        return { data: { id: run.id, status: run.status, isQueued: run.isQueued } };
      },
    }),
    publicRoute({
      method: "GET",
      path: "/workspaces/{workspaceId}/gamebooks/approval-policy",
      summary: "The workspace's approval policy for gamebook runs",
      tag,
      params: z.object({ workspaceId: z.guid() }),
      response: workspacePolicy,
      async handler(input) {
        const { params } = input;
        const workspace = await findWorkspace(input, params.workspaceId);
        return { data: approvalPolicyOf(workspace) };
      },
    }),
    publicRoute({
      method: "PUT",
      path: "/workspaces/{workspaceId}/gamebooks/approval-policy",
      summary:
        "Set the workspace's approval policy: the mode (NoApproval, AdminRequiredPlaybooks or AllRuns), how long a request waits (approvalTimeoutHours, 1 to 720, default 24), onExpiry (Deny) and requireSecondApproverForAdminPlaybooks (default false)",
      tag,
      params: z.object({ workspaceId: z.guid() }),
      body: approvalPolicyInput,
      response: workspacePolicy,
      async handler(input) {
        const { params, body } = input;
        const workspace = await findWorkspace(input, params.workspaceId);
        // The whole policy replaces what was there, the older mode-only form included.
        await input.stores.workspaces.upsert({ ...workspace, gamebookApproval: { ...body } });
        return { data: approvalPolicyOf({ gamebookApproval: body }) };
      },
    }),
    publicRoute({
      method: "POST",
      path: "/gamebooks/expire-approvals",
      summary: "Run the approval expiry now, as its timer does every minute: deny every request past its expiry, in every workspace",
      tag,
      response: z.object({ expired: z.array(z.object({ workspaceId: z.string(), runId: z.string() })), skipped: z.int(), failed: z.int() }),
      async handler(input) {
        return { data: await expireApprovals(input) };
      },
    }),
    publicRoute({
      method: "GET",
      path: "/accounts/{accountId}/partner-approval",
      summary: "A service provider's approval setting for gamebook runs in the accounts it manages",
      tag,
      params: z.object({ accountId: z.guid() }),
      response: partnerSetting,
      async handler(input) {
        const { params } = input;
        const account = await input.stores.accounts.get(params.accountId.toLowerCase());
        if (!account) throw notFound("The account", "accountId");
        return { data: account.partnerApproval ?? { mode: "NoApproval", accountIds: [] } };
      },
    }),
    publicRoute({
      method: "PUT",
      path: "/accounts/{accountId}/partner-approval",
      summary: "Set a service provider's approval setting; accountIds empty means every managed account",
      tag,
      params: z.object({ accountId: z.guid() }),
      body: z.strictObject({ mode: z.enum(approvalModes), accountIds: z.array(z.guid()).max(1000).default([]) }),
      response: partnerSetting,
      async handler(input) {
        const { params, body } = input;
        const account = await input.stores.accounts.get(params.accountId.toLowerCase());
        if (!account) throw notFound("The account", "accountId");
        if (account.kind !== "ServiceProvider") {
          throw new ApiError("VALIDATION_ERROR", "Only a service provider has a partner approval setting.", { target: "accountId", errors: { accountId: ["Not a service provider."] } });
        }
        const managed = new Set((await input.stores.accounts.listManagedBy(account.id)).map((a) => a.id));
        const foreign = body.accountIds.map((id) => id.toLowerCase()).filter((id) => !managed.has(id));
        if (foreign.length > 0) {
          throw new ApiError("VALIDATION_ERROR", `Not managed by this provider: ${foreign.join(", ")}.`, { target: "accountIds", errors: { accountIds: [`Not managed by this provider: ${foreign.join(", ")}.`] } });
        }
        const partnerApproval = { mode: body.mode, accountIds: body.accountIds.map((id) => id.toLowerCase()) };
        await input.stores.accounts.upsert({ ...account, partnerApproval });
        return { data: partnerApproval };
      },
    }),
  ];
}
