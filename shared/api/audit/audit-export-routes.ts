import { z } from "zod";
import { auditExportPageExample } from "./audit-export-examples";
import { workspaceRoute } from "../route-kinds";
import type { RouteGroup } from "../../platform/http/route";
import { issuePageToken, readPageToken } from "../../platform/http/paging";
import { exportPage, exportQuery, workspaceParams } from "./audit-export-schemas";

/** The sequence of the last event handed out; the next page starts after it. */
const exportCursor = z.object({ after: z.number().int().min(0) }).strict();

/**
 * The workspace's audit trail as a resumable feed (docs/contract.md §2.1's exception: `value` and
 * `nextPageToken` at the top level, no envelope). Ordered by the trail's sequence, assigned when an
 * event is recorded, never by time: a consumer that stores the last token and resumes later gets every
 * event recorded since exactly once, late ones included.
 */
export const auditExportRoutes: RouteGroup = {
  name: "audit-export",
  routes: [
    workspaceRoute({
      method: "GET",
      path: "/workspaces/{workspaceId}/export/audit",
      summary: "Export the workspace's audit trail, in recorded order, resumable",
      tag: "Audit",
      auth: "audit:read",
      params: workspaceParams,
      query: exportQuery,
      response: exportPage.meta({ examples: [auditExportPageExample] }),
      bare: true,
      async handler(input) {
        const { workspace, query } = input;
        const listing = `audit-export:${workspace.id}:${query.startTime ? new Date(query.startTime).toISOString() : ""}`;
        const after = query.pageToken ? readPageToken(input, query.pageToken, listing, exportCursor, "pageToken").after : 0;
        const notBefore = query.startTime ? new Date(query.startTime).toISOString() : undefined;
        const page = await input.stores.audit.listWorkspaceTrail(workspace.id, after, query.pageSize, notBefore);
        const last = page.at(-1)?.sequence ?? after;
        const value = page.map(({ event }) => {
          const { accountId: _account, ...contractFields } = event;
          return { ...contractFields, workspaceId: event.workspaceId ?? workspace.id };
        });
        return { bare: { value, nextPageToken: issuePageToken(input, listing, { after: last }) } };
      },
    }),
  ],
};
