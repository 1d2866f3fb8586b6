import { z } from "zod";
import { ApiError, notFound } from "../../platform/errors/api-error";
import { approvalModes } from "../../domain/gamebooks/approval-policy";
import { runSubmittedView } from "../../domain/gamebooks/gamebook-views";
import { decideRun } from "../../domain/gamebooks/run-approval";
import { publicRoute, type Route } from "../../platform/http/route";
import { findWorkspace } from "../../domain/incidents/incident-access";
import { serviceActor } from "../../platform/operation-context";

const tag = "Local controls";
const runPath = z.object({ workspaceId: z.guid(), runId: z.guid() });
const person = z.string().trim().min(1).max(200);
const note = z.string().trim().min(1).max(2000);
const partnerSetting = z.object({ mode: z.enum(approvalModes), accountIds: z.array(z.guid()) });

/**
 * Local host only: what the portal does with gamebooks and service accounts cannot (contract 4.1
 * rule 5): approve or deny a run waiting for approval (audited, as in the portal), and change the
 * two approval settings, the workspace's policy and the managing provider's partner setting.
 */
export function gamebookControlRoutes(): Route[] {
  return [
    publicRoute({
      method: "POST",
      path: "/workspaces/{workspaceId}/gamebooks/runs/{runId}/approve",
      summary: "Approve a gamebook run waiting for approval, as the portal does: it is dispatched (gamebook.run.v1)",
      tag,
      params: runPath,
      body: z.strictObject({ approvedBy: person.default("Portal approver"), comment: note.optional() }).default({ approvedBy: "Portal approver" }),
      response: runSubmittedView,
      async handler(input) {
        const { params, body } = input;
        const workspace = await findWorkspace(input, params.workspaceId);
        const run = await decideRun({ ...input, actor: { ...serviceActor("portal", body.approvedBy), accountId: workspace.accountId } }, {
          workspace,
          runId: params.runId.toLowerCase(),
          approve: true,
          comment: body.comment ?? null,
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
      body: z.strictObject({ deniedBy: person.default("Portal approver"), reason: note.optional() }).default({ deniedBy: "Portal approver" }),
      response: runSubmittedView,
      async handler(input) {
        const { params, body } = input;
        const workspace = await findWorkspace(input, params.workspaceId);
        const run = await decideRun({ ...input, actor: { ...serviceActor("portal", body.deniedBy), accountId: workspace.accountId } }, {
          workspace,
          runId: params.runId.toLowerCase(),
          approve: false,
          comment: body.reason ?? null,
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
      response: z.object({ mode: z.enum(approvalModes) }),
      async handler(input) {
        const { params } = input;
        const workspace = await findWorkspace(input, params.workspaceId);
        return { data: { mode: workspace.gamebookApproval ?? "NoApproval" } };
      },
    }),
    publicRoute({
      method: "PUT",
      path: "/workspaces/{workspaceId}/gamebooks/approval-policy",
      summary: "Set the workspace's approval policy: NoApproval, AdminRequiredPlaybooks or AllRuns",
      tag,
      params: z.object({ workspaceId: z.guid() }),
      body: z.strictObject({ mode: z.enum(approvalModes) }),
      response: z.object({ mode: z.enum(approvalModes) }),
      async handler(input) {
        const { params, body } = input;
        const workspace = await findWorkspace(input, params.workspaceId);
        await input.stores.workspaces.upsert({ ...workspace, gamebookApproval: body.mode });
        return { data: { mode: body.mode } };
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
