import { z } from "zod";
import { ApiError, notFound } from "../../platform/errors/api-error";
import { approvalModes } from "../../domain/gamebooks/approval-policy";
import { runSubmittedView } from "../../domain/gamebooks/gamebook-views";
import { decideRun } from "../../domain/gamebooks/run-approval";
import { defineRoute, type Route } from "../../platform/http/route";
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
    defineRoute({
      method: "POST",
      path: "/workspaces/{workspaceId}/gamebooks/runs/{runId}/approve",
      summary: "Approve a gamebook run waiting for approval, as the portal does: it is dispatched (gamebook.run.v1)",
      tag,
      auth: "public",
      params: runPath,
      body: z.strictObject({ approvedBy: person.default("Portal approver"), comment: note.optional() }).default({ approvedBy: "Portal approver" }),
      response: runSubmittedView,
      async handler({ params, body, services }) {
        const workspace = await findWorkspace(services, params.workspaceId);
        const run = await decideRun({ services, actor: { ...serviceActor("portal", body.approvedBy), accountId: workspace.accountId } }, {
          workspace,
          runId: params.runId.toLowerCase(),
          approve: true,
          comment: body.comment ?? null,
        });
        return { data: { id: run.id, status: run.status, isQueued: run.isQueued } };
      },
    }),
    defineRoute({
      method: "POST",
      path: "/workspaces/{workspaceId}/gamebooks/runs/{runId}/deny",
      summary: "Deny a gamebook run waiting for approval, as the portal does: it ends Denied and nothing runs",
      tag,
      auth: "public",
      params: runPath,
      body: z.strictObject({ deniedBy: person.default("Portal approver"), reason: note.optional() }).default({ deniedBy: "Portal approver" }),
      response: runSubmittedView,
      async handler({ params, body, services }) {
        const workspace = await findWorkspace(services, params.workspaceId);
        const run = await decideRun({ services, actor: { ...serviceActor("portal", body.deniedBy), accountId: workspace.accountId } }, {
          workspace,
          runId: params.runId.toLowerCase(),
          approve: false,
          comment: body.reason ?? null,
        });
        return { data: { id: run.id, status: run.status, isQueued: run.isQueued } };
      },
    }),
    defineRoute({
      method: "GET",
      path: "/workspaces/{workspaceId}/gamebooks/approval-policy",
      summary: "The workspace's approval policy for gamebook runs",
      tag,
      auth: "public",
      params: z.object({ workspaceId: z.guid() }),
      response: z.object({ mode: z.enum(approvalModes) }),
      async handler({ params, services }) {
        const workspace = await findWorkspace(services, params.workspaceId);
        return { data: { mode: workspace.gamebookApproval ?? "NoApproval" } };
      },
    }),
    defineRoute({
      method: "PUT",
      path: "/workspaces/{workspaceId}/gamebooks/approval-policy",
      summary: "Set the workspace's approval policy: NoApproval, AdminRequiredPlaybooks or AllRuns",
      tag,
      auth: "public",
      params: z.object({ workspaceId: z.guid() }),
      body: z.strictObject({ mode: z.enum(approvalModes) }),
      response: z.object({ mode: z.enum(approvalModes) }),
      async handler({ params, body, services }) {
        const workspace = await findWorkspace(services, params.workspaceId);
        await services.stores.workspaces.upsert({ ...workspace, gamebookApproval: body.mode });
        return { data: { mode: body.mode } };
      },
    }),
    defineRoute({
      method: "GET",
      path: "/accounts/{accountId}/partner-approval",
      summary: "A service provider's approval setting for gamebook runs in the accounts it manages",
      tag,
      auth: "public",
      params: z.object({ accountId: z.guid() }),
      response: partnerSetting,
      async handler({ params, services }) {
        const account = await services.stores.accounts.get(params.accountId.toLowerCase());
        if (!account) throw notFound("The account", "accountId");
        return { data: account.partnerApproval ?? { mode: "NoApproval", accountIds: [] } };
      },
    }),
    defineRoute({
      method: "PUT",
      path: "/accounts/{accountId}/partner-approval",
      summary: "Set a service provider's approval setting; accountIds empty means every managed account",
      tag,
      auth: "public",
      params: z.object({ accountId: z.guid() }),
      body: z.strictObject({ mode: z.enum(approvalModes), accountIds: z.array(z.guid()).max(1000).default([]) }),
      response: partnerSetting,
      async handler({ params, body, services }) {
        const account = await services.stores.accounts.get(params.accountId.toLowerCase());
        if (!account) throw notFound("The account", "accountId");
        if (account.kind !== "ServiceProvider") {
          throw new ApiError("VALIDATION_ERROR", "Only a service provider has a partner approval setting.", { target: "accountId", errors: { accountId: ["Not a service provider."] } });
        }
        const managed = new Set((await services.stores.accounts.listManagedBy(account.id)).map((a) => a.id));
        const foreign = body.accountIds.map((id) => id.toLowerCase()).filter((id) => !managed.has(id));
        if (foreign.length > 0) {
          throw new ApiError("VALIDATION_ERROR", `Not managed by this provider: ${foreign.join(", ")}.`, { target: "accountIds", errors: { accountIds: [`Not managed by this provider: ${foreign.join(", ")}.`] } });
        }
        const partnerApproval = { mode: body.mode, accountIds: body.accountIds.map((id) => id.toLowerCase()) };
        await services.stores.accounts.upsert({ ...account, partnerApproval });
        return { data: partnerApproval };
      },
    }),
  ];
}
