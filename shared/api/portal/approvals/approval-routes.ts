import { z } from "zod";
import { notFound } from "../../../platform/errors/api-error";
import { pageQueryFields, issuePageToken, readPageToken } from "../../../platform/http/paging";
import { personRoute, personWorkspaceRoute, type PersonInput, type RouteGroup } from "../../../platform/http/route";
import type { Person } from "../../../platform/auth/person";
import type { Uses } from "../../../platform/operation-context";
import { approvalRequestView } from "../approval-request-view";
import { decideRun } from "../../../domain/gamebooks/run-approval";
import { requesterOf } from "../../../domain/gamebooks/run-approval-rules";
import { cataloguesOfRuns } from "../../../domain/gamebooks/gamebook-settings";
import type { GamebookRunRecord } from "../../../domain/gamebooks/gamebook-run";
import type { PlaybookCatalogueRecord } from "../../../domain/gamebooks/playbook-catalogue-record";
import type { WorkspaceRecord } from "../../../domain/organizations/workspace";
import { approvalRequestExample, approvalRequestSchema } from "../approval-request-schemas";
import { approveBody, denyBody } from "./approval-schemas";
import { EXAMPLE_APPROVAL_WORKSPACE_ID, EXAMPLE_RUN_TO_APPROVE_ID, EXAMPLE_RUN_TO_DENY_ID } from "../../../domain/examples/gamebook-examples";

const tag = "Portal: approvals";
const workspaceId = z.guid().meta({ examples: [EXAMPLE_APPROVAL_WORKSPACE_ID] });
const runPath = z.object({ workspaceId, runId: z.guid().meta({ examples: [EXAMPLE_RUN_TO_APPROVE_ID] }) });
const runToDenyPath = z.object({ workspaceId, runId: z.guid().meta({ examples: [EXAMPLE_RUN_TO_DENY_ID] }) });
const cursorSchema = z.strictObject({ expiresAt: z.string(), id: z.string() });

/** Why this person may not approve this run, or null when they may. */
function whyNotApprover(run: GamebookRunRecord, person: Person): string | null {
  if (!(run.status === "Pending" && run.isQueued)) return "It is no longer waiting for a decision.";
  if (person.workspaceRoles.get(run.workspaceId) !== "Owner") return "Approving needs the Owner role on the run's workspace.";
  const requester = requesterOf(run);
  if (requester.kind === "User" && requester.id === person.userId) return "You asked for this run: someone else must approve it.";
  if (run.approval.approvals?.some((a) => a.byUserId === person.userId)) return "You approved it already: it needs another approver.";
  return null;
}

function viewOf(run: GamebookRunRecord, workspace: WorkspaceRecord, catalogue: PlaybookCatalogueRecord | undefined, person: Person) {
  const reason = whyNotApprover(run, person);
  return { ...approvalRequestView(run, workspace, catalogue), viewer: { mayApprove: reason === null, reason } };
}

async function runOf(ctx: Uses<"stores">, workspaceId: string, runId: string): Promise<GamebookRunRecord> {
  const found = await ctx.stores.gamebookRuns.get(workspaceId, runId.toLowerCase());
  if (!found) throw notFound("The gamebook run", "runId");
  return found.value;
}

/** Approve or deny as the person signed in; the run's view as it now stands. */
async function decide(input: PersonInput<{ runId: string }, unknown, unknown> & { workspace: WorkspaceRecord }, approve: boolean, comment: string | null) {
  const { person, workspace } = input;
  const run = await decideRun(input, {
    workspace,
    runId: input.params.runId.toLowerCase(),
    approve,
    comment,
    decidedBy: { userId: person.userId, name: person.name },
  });
  const catalogue = await input.stores.playbookCatalogues.get(workspace.id);
  return { data: viewOf(run, workspace, catalogue, person) };
}

/**
 * The approval queue: gamebook runs waiting for a person's decision (docs/contract.md §4.1 rule 3: it waits
 * for approval in the portal). One list across every workspace the person owns, whichever customer it belongs to,
 * soonest to expire first; each entry says what approving will do. Deciding needs the `Owner` role
 * on the run's workspace; the requester never approves their own run, and a decision is final.
 */
export const approvalRoutes: RouteGroup = {
  name: "portal-approvals",
  routes: [
    personRoute({
      method: "GET",
      path: "/portal/approvals",
      summary: "The approval queue: runs waiting for a decision in every workspace you own",
      description: "Soonest to expire first. Only workspaces where you hold the `Owner` role, the role that decides; `workspaceIds` narrows it.",
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
        const owned = [...person.workspaceRoles].filter(([id, role]) => role === "Owner" && (!wanted || wanted.has(id))).map(([id]) => id);
        // Workspaces offboarded or moved out of the person's organization since are left out.
        const workspaces = (await stores.workspaces.getMany(owned)).filter((w) => person.organizationAccountIds.includes(w.accountId));
        if (workspaces.length === 0) return { data: [], pagination: { hasMore: false } };
        const ids = workspaces.map((w) => w.id).sort();
        const listing = `approvals:${ids.join(",")}`;
        const cursor = query.continuationToken === undefined ? undefined : readPageToken(input, query.continuationToken, listing, cursorSchema, "continuationToken");
        const page = await stores.gamebookRuns.listAwaitingApproval({ workspaceIds: ids }, { cursor, limit: query.pageSize });
        const byId = new Map(workspaces.map((w) => [w.id, w]));
        const catalogues = await cataloguesOfRuns(input, page.items);
        const data = page.items.map((run) => viewOf(run, byId.get(run.workspaceId)!, catalogues.get(run.workspaceId), person));
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
        return { data: viewOf(run, input.workspace, catalogue, input.person) };
      },
    }),
    personWorkspaceRoute({
      method: "POST",
      path: "/portal/workspaces/{workspaceId}/approvals/{runId}/approve",
      summary: "Approve a run: it is dispatched (gamebook.run.v1), or waits for a second approver when the policy asks for two",
      description:
        "The run, `gamebook.run.v1`, the audit event and the executor's first message are one commit. 403 when you asked for the run yourself; " +
        "409 when it is no longer waiting (decided elsewhere, expired) or when you approved it already.",
      tag,
      roles: "any",
      workspaceRole: "Owner",
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
      description: "Audited with the reason. 409 when it is no longer waiting.",
      tag,
      roles: "any",
      workspaceRole: "Owner",
      params: runToDenyPath,
      body: denyBody,
      response: approvalRequestSchema,
      problems: ["CONFLICT"],
      handler: (input) => decide(input, false, input.body.reason),
    }),
  ],
};
