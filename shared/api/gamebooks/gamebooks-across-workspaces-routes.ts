import { z } from "zod";
import { organizationRoute, type RouteGroup } from "../../platform/http/route";
import { gamebookRunExample } from "../../domain/examples/gamebook-examples";
import { gamebookRunView, toGamebookRunView } from "../../domain/gamebooks/gamebook-views";
import { ACROSS_PAGE_SIZE, MAX_PAGES_SKIPPED, acrossHistoryQuery, acrossWorkspacesHistory } from "./run-history";

const acrossHistoryView = z
  .object({
    runs: z.array(gamebookRunView).describe("The page's runs, newest first across the workspaces."),
    currentPage: z.int().describe("The page returned, 1-based."),
    pageSize: z.int().describe(`Runs per page (server-controlled: ${ACROSS_PAGE_SIZE}).`),
    hasMore: z.boolean().describe("True when a next page exists."),
  })
  .meta({ examples: [{ runs: [gamebookRunExample], currentPage: 1, pageSize: ACROSS_PAGE_SIZE, hasMore: true }] });

export const gamebooksAcrossWorkspacesRoutes: RouteGroup = {
  name: "gamebooks-across-workspaces",
  routes: [
    organizationRoute({
      method: "GET",
      path: "/gamebooks/across-workspaces/history",
      summary: "Gamebook runs across the workspaces mapped to your credential, by page number",
      description:
        `Newest first across the workspaces, ${ACROSS_PAGE_SIZE} runs a page. Only workspaces mapped to the credential are read; others named in \`workspaces\` are left out. ` +
        `\`pagination.continuationToken\` starts the next page: send it as \`pageToken\` with \`currentPage\` + 1, and each page costs the same however deep it is. Without a token a page is found by reading the pages before it, at most ${MAX_PAGES_SKIPPED} of them. No total count is returned.`,
      tag: "Gamebooks",
      auth: "gamebooks:read",
      query: acrossHistoryQuery,
      paginated: true,
      response: acrossHistoryView,
      async handler(input) {
        const { page, pagination } = await acrossWorkspacesHistory(input, input.query);
        return { data: { ...page, runs: page.runs.map(toGamebookRunView) }, pagination };
      },
    }),
  ],
};
