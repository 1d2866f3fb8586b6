import { z } from "zod";
import { directoryAuditsExample, signInsExample } from "./investigation-examples";
import { ApiError } from "../../platform/errors/api-error";
import type { DirectoryLogQuery, LogPage } from "../../systems/directory-logs/port";
import { workspaceRoute, type WorkspaceInput } from "../route-kinds";
import type { RouteGroup } from "../../platform/http/route";
import { issuePageToken, readPageToken } from "../../platform/http/paging";
import { requireIntegration } from "../../domain/organizations/integration-switches";
import { directoryAuditView, logQuery, MAX_LOG_WINDOW_DAYS, signInView, workspaceParams } from "./investigation-schemas";

const tag = "Investigation";
const base = "/workspaces/{workspaceId}/investigation/users";
const DAY_MS = 86_400_000;

type Query = z.output<typeof logQuery>;

/** What a log page token holds: the window fixed at the first page, and the directory adapter's own cursor. */
const logCursor = z.object({ from: z.iso.datetime(), to: z.iso.datetime(), cursor: z.string().min(1).max(6000) }).strict();

/**
 * The identity logs of the workspace's tenant (Microsoft Graph sign-ins and directory audits), newest
 * first. Needs the workspace's directory logs integration.
 */
export const investigationRoutes: RouteGroup = {
  name: "investigation",
  routes: [
    workspaceRoute({
      method: "GET",
      path: `${base}/signin-logs`,
      summary: "Sign-ins of the workspace's tenant, newest first, by user and time window",
      tag,
      auth: "investigation:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      params: workspaceParams,
      query: logQuery,
      response: z.array(signInView).meta({ examples: [signInsExample] }),
      paginated: true,
      handler: (input) => readLog(input, "signins", (q) => input.directoryLogs.listSignIns(q, input.signal)),
    }),
    workspaceRoute({
      method: "GET",
      path: `${base}/directory-logs`,
      summary: "Directory audit events of the workspace's tenant, newest first, by initiating user and time window",
      tag,
      auth: "investigation:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      params: workspaceParams,
      query: logQuery,
      response: z.array(directoryAuditView).meta({ examples: [directoryAuditsExample] }),
      paginated: true,
      handler: (input) => readLog(input, "directory-audits", (q) => input.directoryLogs.listDirectoryAudits(q, input.signal)),
    }),
  ],
};

async function readLog<T>(input: WorkspaceInput<unknown, Query, unknown>, log: string, read: (q: DirectoryLogQuery) => Promise<LogPage<T>>) {
  const { workspace, query } = input;
  await requireIntegration(input, workspace, "directoryLogs");
  // The token is bound to the query as given; the window it resolved to travels inside it.
  const listing = `${log}:${workspace.id}:${query.user ?? ""}:${query.from ?? ""}:${query.to ?? ""}:${query.pageSize}`;
  const resumed = query.pageToken ? readPageToken(input, query.pageToken, listing, logCursor, "pageToken") : undefined;
  const window = resumed ?? resolveWindow(query, input.now());
  const page = await read({ tenantId: workspace.tenantId, user: query.user, from: window.from, to: window.to, pageSize: query.pageSize, cursor: resumed?.cursor });
  const pagination = page.cursor
    ? { hasMore: true, continuationToken: issuePageToken(input, listing, { from: window.from, to: window.to, cursor: page.cursor }) }
    : { hasMore: false };
  return { data: page.items, pagination };
}

function resolveWindow(query: Query, now: Date): { from: string; to: string } {
  // The end is exclusive, so it stops just after now: a record stamped in this very millisecond is
  // included (a sign-in made "now" is listed by the request that follows it at once).
  const latest = now.getTime() + 1;
  const to = query.to ? Math.min(Date.parse(query.to), latest) : latest;
  const from = query.from ? Date.parse(query.from) : to - DAY_MS;
  const problems: Record<string, string[]> = {};
  if (from < now.getTime() - MAX_LOG_WINDOW_DAYS * DAY_MS) problems.from = [`At most ${MAX_LOG_WINDOW_DAYS} days ago (the directory keeps its logs that long).`];
  else if (!(from < to)) problems.from = ["Must be before to (and before now)."];
  const fields = Object.keys(problems);
  if (fields.length > 0) throw new ApiError("VALIDATION_ERROR", "The time window is invalid.", { target: fields[0], errors: problems });
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}
