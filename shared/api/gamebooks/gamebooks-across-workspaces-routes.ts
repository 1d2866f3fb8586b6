import { organizationRoute } from "../route-kinds";
import type { RouteGroup } from "../../platform/http/route";
import { toGamebookRunView } from "../../domain/gamebooks/gamebook-views";
import { mappedWorkspaces } from "../../domain/organizations/mapped-workspaces";
import { ACROSS_PAGE_SIZE, acrossWorkspacesHistory } from "../../domain/gamebooks/run-history";
import { acrossHistoryQuery, acrossHistoryView } from "../schemas/run-history-schemas";

export const gamebooksAcrossWorkspacesRoutes: RouteGroup = {
  name: "gamebooks-across-workspaces",
  routes: [
    organizationRoute({
      method: "GET",
      path: "/gamebooks/across-workspaces/history",
      summary: "Gamebook runs across the workspaces mapped to your credential, by page number",
      description:
        `Newest first across the workspaces, ${ACROSS_PAGE_SIZE} runs a page. Only workspaces mapped to the credential are read; others named in \`workspaces\` are left out. ` +
        `\`pagination.continuationToken\` starts the next page: send it as \`pageToken\` with \`currentPage\` + 1, and each page costs the same however deep it is. Any \`currentPage\` is answered without a token too: the page's start is found by counting the runs before it in each workspace, not by reading them, so a deep page costs a few counts per workspace more than the next page by its token. A page past the last is empty, with \`hasMore\` false. No total count is returned.\n\n` +
        "**When a workspace's runs cannot be read** (the data store throttled or unreachable for it, or slower than the deployment's budget, 2.5 s by default), the page holds the runs of the other workspaces, " +
        "as if that workspace had none, and `meta.unavailable` names it with the problem code (`UPSTREAM_ERROR`, `TIMEOUT`, `RATE_LIMITED`) and, where known, `retryAfterSeconds`. " +
        "Such a page lacks those workspaces' runs: reading the same page again (the same `currentPage` and `pageToken`) tries them again. Its `continuationToken` leads on after the runs shown, " +
        "so their runs that belong on this page are not on later pages. `meta.unavailable` is empty when every workspace was read.",
      tag: "Gamebooks",
      auth: "gamebooks:read",
      query: acrossHistoryQuery,
      paginated: true,
      partial: "workspaces",
      response: acrossHistoryView,
      async handler(input) {
        const { page, pagination, unavailable } = await acrossWorkspacesHistory(input, await mappedWorkspaces(input, input.query.workspaces), input.query);
        return { data: { ...page, runs: page.runs.map(toGamebookRunView) }, pagination, unavailable };
      },
    }),
  ],
};
