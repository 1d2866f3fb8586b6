import { z } from "zod";
import { personRoute } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import { personWorkspaces } from "../../../domain/organizations/mapped-workspaces";
import { listDecidedApprovals } from "./decided-approvals";
import { ACROSS_PAGE_SIZE, acrossWorkspacesHistory } from "../../../domain/gamebooks/run-history";
import { acrossHistoryView } from "../../schemas/run-history-schemas";
import { toGamebookRunView } from "../../../domain/gamebooks/gamebook-views";
import { searchOrganizationAudit } from "./audit-search";
import { auditEventExample, auditEventViewSchema, auditQuery, decidedApprovalExample, decidedApprovalSchema, decidedApprovalsQuery, organizationAuditExample, runHistoryQuery } from "./history-schemas";

const tag = "Portal: history";

/**
 * What happened, for people to read: the approval requests that were decided and what ran, the
 * gamebook runs of every workspace they see, and their organization's audit trail. Read-only; each
 * listing is newest first and paged with tokens signed to the person and the filters.
 */
export const portalHistoryRoutes: RouteGroup = {
  name: "portal-history",
  routes: [
    personRoute({
      method: "GET",
      path: "/portal/approvals/decided",
      summary: "Decided approval requests: who decided, when, why, and what ran",
      description:
        "The approval requests of every workspace you see (any role on it; every workspace of your organization with an organization-wide role) that were approved, denied or expired unanswered, " +
        "newest decision first: what was asked and by whom, the decision (by whom, when, the comment or the reason; `expired` for an expiry), and the run as it stands now with each playbook's outcome.",
      tag,
      roles: "any",
      query: decidedApprovalsQuery,
      response: z.array(decidedApprovalSchema).meta({ examples: [[decidedApprovalExample]] }),
      paginated: true,
      async handler(input) {
        const { person, query } = input;
        return listDecidedApprovals(input, await personWorkspaces(input, person, query.workspaceIds), query.workspaceIds, query);
      },
    }),
    personRoute({
      method: "GET",
      path: "/portal/gamebooks/history",
      summary: "Gamebook runs across the workspaces you see, by page number",
      description:
        `The contract's cross-workspace history (\`GET /gamebooks/across-workspaces/history\`: the same filters, order, pages and tokens) over every workspace you see: any role on it, or every workspace ` +
        `of your organization with an organization-wide role (\`Admin\`, \`WorkspaceAdmin\`). Newest first, ${ACROSS_PAGE_SIZE} runs a page; send \`pagination.continuationToken\` as \`pageToken\` with ` +
        `\`currentPage\` + 1 for the next; any page is also answered without a token. A workspace that could not be read is named in \`meta.unavailable\`, and reading the page again tries it again.`,
      tag,
      roles: "any",
      query: runHistoryQuery,
      paginated: true,
      partial: "workspaces",
      response: acrossHistoryView,
      async handler(input) {
        const { page, pagination, unavailable } = await acrossWorkspacesHistory(input, await personWorkspaces(input, input.person, input.query.workspaces), input.query);
        return { data: { ...page, runs: page.runs.map(toGamebookRunView) }, pagination, unavailable };
      },
    }),
    personRoute({
      method: "GET",
      path: "/portal/audit",
      summary: "Your organization's audit trail: who did what, filtered, newest first",
      description:
        "Every audit event of your organization: your own account's and its workspaces', and, at a service provider, those of the customers it manages and their workspaces; never another " +
        "organization's. Events of offboarded workspaces are for `Admin`s only, as their export is. Filter by actor (`actorId` exactly, or `actor`, text in the name or e-mail address), " +
        "organization, workspace, activity type and action, and time (`from` inclusive, `to` exclusive). Newest first (time, then id). " +
        "A page may hold fewer events than `pageSize`, even none, while `hasMore` is true: a search by `actor` text reads a bounded number of events per page; follow the token. " +
        "The token is signed to you and to the filters. `Admin` and `WorkspaceAdmin` only: the roles that read every workspace of the organization (the trail names incidents, their titles and comments).",
      tag,
      roles: ["WorkspaceAdmin"],
      query: auditQuery,
      response: z.array(auditEventViewSchema).meta({ examples: [[auditEventExample, organizationAuditExample]] }),
      paginated: true,
      async handler(input) {
        const { query } = input;
        return searchOrganizationAudit(input, input.person, {
          ...query,
          from: query.from && new Date(query.from).toISOString(),
          to: query.to && new Date(query.to).toISOString(),
          actorId: query.actorId?.toLowerCase(),
        });
      },
    }),
  ],
};
