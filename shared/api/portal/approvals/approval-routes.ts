import { z } from "zod";
import { notFound } from "../../../platform/errors/api-error";
import { pageQueryFields, issuePageToken, readPageToken } from "../../../platform/http/paging";
import { personRoute, personWorkspaceRoute, type PersonInput } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import type { Person } from "../../../platform/auth/person";
import type { Uses } from "../../../domain/operation-context";
import { approvalRequestView } from "../approval-request-view";
import { decideRun } from "../../../domain/gamebooks/run-approval";
import { approvalRefusal, requesterOf, type RunDecider } from "../../../domain/gamebooks/run-approval-rules";
import type { AccountRecord } from "../../../model/organizations/account";
import { accountsOf, approverOf, deciderOf, decidesOn } from "./approver";
import { cataloguesOfRuns } from "../../../domain/gamebooks/gamebook-settings";
import type { GamebookRunRecord } from "../../../model/gamebooks/gamebook-run";
import type { PlaybookCatalogueRecord } from "../../../model/gamebooks/playbook-catalogue-record";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";
import { approvalRequestExample, approvalRequestSchema } from "../approval-request-schemas";
import { approveBody, denyBody } from "./approval-schemas";
import { EXAMPLE_APPROVAL_WORKSPACE_ID, EXAMPLE_RUN_TO_APPROVE_ID, EXAMPLE_RUN_TO_DENY_ID } from "../../examples/gamebook-examples";

const tag = "Portal: approvals";
const workspaceId = z.guid().meta({ examples: [EXAMPLE_APPROVAL_WORKSPACE_ID] });
const runPath = z.object({ workspaceId, runId: z.guid().meta({ examples: [EXAMPLE_RUN_TO_APPROVE_ID] }) });
const runToDenyPath = z.object({ workspaceId, runId: z.guid().meta({ examples: [EXAMPLE_RUN_TO_DENY_ID] }) });
const cursorSchema = z.strictObject({ expiresAt: z.string(), id: z.string() });

/** Why this person may not approve this run, or null when they may. */
function whyNotApprover(run: GamebookRunRecord, person: Person, decider: RunDecider): string | null {
  if (!(run.status === "Pending" && run.isQueued)) return "It is no longer waiting for a decision.";
  if (!decidesOn(person, run.workspaceId)) return "Approving needs the Owner role on the run's workspace, or the organizational role Admin.";
  const requester = requesterOf(run);
  if (requester.kind === "User" && requester.id === person.userId) return "You asked for this run: someone else must approve it.";
  if (run.approval.approvals?.some((a) => a.byUserId === person.userId)) return "You approved it already: it needs another approver.";
  return approvalRefusal(run, decider)?.message ?? null;
}

function viewOf(run: GamebookRunRecord, workspace: WorkspaceRecord, catalogue: PlaybookCatalogueRecord | undefined, person: Person, account: AccountRecord | undefined) {
  const decider = deciderOf(person, account);
  const reason = whyNotApprover(run, person, decider);
  // Either side's decider may deny, whatever the run still needs: a denial by either ends it.
  const mayDeny = run.status === "Pending" && run.isQueued && decidesOn(person, run.workspaceId);
  return { ...approvalRequestView(run, workspace, catalogue), viewer: { mayApprove: reason === null, mayDeny, reason, side: decider.side ?? null } };
}

async function runOf(ctx: Uses<"stores">, workspaceId: string, runId: string): Promise<GamebookRunRecord> {
  const found = await ctx.stores.gamebookRuns.get(workspaceId, runId.toLowerCase());
  if (!found) throw notFound("The gamebook run", "runId");
  return found.value;
}

/** Approve or deny as the person signed in, for their side; the run's view as it now stands. */
async function decide(input: PersonInput<{ runId: string }, unknown, unknown> & { workspace: WorkspaceRecord }, approve: boolean, comment: string | null) {
  const { person, workspace } = input;
  const decidedBy = await approverOf(input, person, workspace);
  const run = await decideRun(input, { workspace, runId: input.params.runId.toLowerCase(), approve, comment, decidedBy });
  const catalogue = await input.stores.playbookCatalogues.get(workspace.id);
  const account = await input.stores.accounts.get(workspace.accountId);
  return { data: viewOf(run, workspace, catalogue, person, account) };
}

/**
 * The approval queue: gamebook runs waiting for a person's decision (docs/contract.md §4.1 rule 3: it
 * waits for approval in the portal). One list across every workspace the person decides in, whichever customer it belongs
 * to, soonest to expire first; each entry says what approving will do. Deciding needs the `Owner`
 * role on the run's workspace or the organization's `Admin` role, each deciding for their
 * organization's side (approver.ts); the requester never approves their own run, and a decision is final.
 */
export const approvalRoutes: RouteGroup = {
  name: "portal-approvals",
  routes: [
    personRoute({
      method: "GET",
      path: "/portal/approvals",
      summary: "The approval queue: runs waiting for a decision in every workspace you decide in",
      description:
        "Soonest to expire first. The workspaces where you hold the `Owner` role, or with the organizational role `Admin` every workspace of your organization; `workspaceIds` narrows it. " +
        "Each entry says whether you may approve it and, when not, why (a run the managing provider's partner setting made wait needs a provider person's approval; a two-sided one a person of each side).",
      tag,
      roles: "any",
      query: z.strictObject({
        workspaceIds: z
          .union([z.guid(), z.array(z.guid()).max(1000)])
          .transform((v) => (Array.isArray(v) ? v : [v]))
          .optional()
          .describe("Only these workspaces (repeat the parameter); others you do not own are left out."),
        ...pageQueryFields,
      }),
      response: z.array(approvalRequestSchema).meta({ examples: [[approvalRequestExample]] }),
      paginated: true,
      async handler(input) {
        const { person, query, stores } = input;
        const wanted = query.workspaceIds && new Set(query.workspaceIds.map((id) => id.toLowerCase()));
        // An Admin decides on every workspace of the organization; anyone else where they are Owner.
        const candidates =
          person.organizationalRole === "Admin"
            ? await stores.workspaces.listByAccounts(person.organizationAccountIds)
            : await stores.workspaces.getMany([...person.workspaceRoles].filter(([, role]) => role === "Owner").map(([id]) => id));
        // Workspaces offboarded or moved out of the person's organization since are left out.
        const workspaces = candidates.filter((w) => person.organizationAccountIds.includes(w.accountId) && (!wanted || wanted.has(w.id)));
        if (workspaces.length === 0) return { data: [], pagination: { hasMore: false } };
        const ids = workspaces.map((w) => w.id).sort();
        const listing = `approvals:${ids.join(",")}`;
        const cursor = query.continuationToken === undefined ? undefined : readPageToken(input, query.continuationToken, listing, cursorSchema, "continuationToken");
        const page = await stores.gamebookRuns.listAwaitingApproval({ workspaceIds: ids }, { cursor, limit: query.pageSize });
        const byId = new Map(workspaces.map((w) => [w.id, w]));
        const catalogues = await cataloguesOfRuns(input, page.items);
        const accounts = await accountsOf(input, page.items.map((run) => byId.get(run.workspaceId)!));
        const data = page.items.map((run) => {
          const workspace = byId.get(run.workspaceId)!;
          return viewOf(run, workspace, catalogues.get(run.workspaceId), person, accounts.get(workspace.accountId));
        });
        const pagination = page.next ? { hasMore: true, continuationToken: issuePageToken(input, listing, page.next) } : { hasMore: false };
        return { data, pagination };
      },
    }),
    personWorkspaceRoute({
      method: "GET",
      path: "/portal/workspaces/{workspaceId}/approvals/{runId}",
      summary: "One approval request: what approving will do, and where it stands",
      tag,
      roles: "any",
      params: runPath,
      response: approvalRequestSchema,
      async handler(input) {
        const run = await runOf(input, input.workspace.id, input.params.runId);
        const catalogue = await input.stores.playbookCatalogues.get(input.workspace.id);
        const account = await input.stores.accounts.get(input.workspace.accountId);
        return { data: viewOf(run, input.workspace, catalogue, input.person, account) };
      },
    }),
    personWorkspaceRoute({
      method: "POST",
      path: "/portal/workspaces/{workspaceId}/approvals/{runId}/approve",
      summary: "Approve a run: it is dispatched (gamebook.run.v1), or waits for a second approver when the policy asks for two",
      description:
        "The run, `gamebook.run.v1`, the audit event and the executor's first message are one commit. 403 when you asked for the run yourself, " +
        "or when the approvals still needed are for a side you are not of (the managing provider's partner setting needs a provider person; a two-sided policy one of each side); " +
        "409 when it is no longer waiting (decided elsewhere, expired) or when you approved it already.",
      tag,
      roles: "any",
      workspaceRole: "Owner",
      adminWithoutWorkspaceRole: true,
      params: runPath,
      body: approveBody,
      response: approvalRequestSchema,
      problems: ["CONFLICT", "FORBIDDEN"],
      handler: (input) => decide(input, true, input.body.comment ?? null),
    }),
    personWorkspaceRoute({
      method: "POST",
      path: "/portal/workspaces/{workspaceId}/approvals/{runId}/deny",
      summary: "Deny a run, with the reason: it ends Denied and nothing runs",
      description: "Audited with the reason. Either side's decider may deny: a denial by either ends the run. 409 when it is no longer waiting.",
      tag,
      roles: "any",
      workspaceRole: "Owner",
      adminWithoutWorkspaceRole: true,
      params: runToDenyPath,
      body: denyBody,
      response: approvalRequestSchema,
      problems: ["CONFLICT"],
      handler: (input) => decide(input, false, input.body.reason),
    }),
  ],
};
