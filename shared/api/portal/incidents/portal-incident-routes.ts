import { z } from "zod";
import { personRoute, personWorkspaceRoute } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import { ACROSS_WORKSPACES_MAX_BODY_BYTES, GIVE_UP_AFTER_FAILED_PAGES } from "../../../domain/incidents/cross-workspace-listing";
import { checkTimeFilter, incidentListingFilters } from "../../schemas/incident-listing-schemas";
import { incidentQueuePage, QUEUE_PAGE_SIZE, queueOrders } from "../../../domain/incidents/incident-queue";
import { incidentsByEntity } from "../../../domain/incidents/incident-reads";
import { readIncident } from "../../../domain/gamebooks/incident-with-gamebooks";
import { incidentComments } from "../../../domain/tickets/incident-comments";
import { commentView, incidentEtag, incidentSummaryView, incidentView } from "../../../domain/incidents/incident-view";
import { personWorkspaces } from "../../../domain/organizations/mapped-workspaces";
import { EXAMPLE_CUSTOMER_ACCOUNT_ID } from "../../../platform/http/examples";
import { applyBulkAction } from "./incident-bulk";
import { BULK_MAX_INCIDENTS, bulkActionBody, bulkActionResult } from "./incident-bulk-schemas";
import { incidentParams } from "./incident-params";
import { incidentRuns } from "./incident-run-view";
import { incidentRunSchema, incidentRunsExample } from "./incident-run-schemas";
import {
  acrossWorkspacesResultExample,
  commentsExample,
  incidentExample,
  incidentSummaryExample,
} from "../../examples/incident-examples";

const tag = "Portal: incidents";

/**
 * The portal's incident queue: the contract's listing filters over the workspaces a person may see,
 * narrowed to customers and workspaces as a provider's analyst narrows a queue (Defender XDR's tenant
 * filter), in one order across every workspace and source. The narrowing and the order are part of
 * the query the page token is signed to, as every filter is.
 */
const portalQueueQuery = z
  .object({
    ...incidentListingFilters,
    order: z
      .enum(queueOrders)
      .default("newest")
      .describe("`newest`: newest created first. `severity`: High first, then Medium, Low, Informational, each newest first. Ties by workspace, source and id."),
    accountIds: z
      .array(z.guid())
      .max(1000)
      .default([])
      .describe("Only these organizations' workspaces (a customer, or your own): empty, every organization you see. One you do not see narrows to nothing."),
    workspaceIds: z
      .array(z.guid())
      .max(1000)
      .default([])
      .describe("Only these workspaces: empty, every workspace you see (within `accountIds`). One you do not see is left out, as a workspace without your role is."),
    pageToken: z
      .string()
      .min(1)
      .max(ACROSS_WORKSPACES_MAX_BODY_BYTES)
      .optional()
      .describe("The previous answer's `nextPageToken`, with the same filters; absent for the first page."),
  })
  .strict()
  .superRefine((body, ctx) => checkTimeFilter(body.timeFilterSelection, ctx));

/**
 * A page of the queue: each incident with its version, which a change made from the list (a bulk
 * action) sends back so that an incident changed since is refused, not overwritten.
 */
const portalQueuePage = z
  .object({
    incidents: z.array(
      incidentSummaryView.extend({
        etag: z.string().describe("The incident's version: its `ETag` as a read of it answers, for `If-Match` or a bulk action's `etag`."),
      }),
    ),
    nextPageToken: z.string().nullable().describe("Send it back as `pageToken` for the next page; null at the end."),
    moreIncidentsAvailable: z.boolean().describe("Whether another page may hold incidents: false only when every stream has been read to its end or given up."),
    unreadStreams: z
      .int()
      .min(0)
      .describe(
        "Streams (workspace and source) not yet read at the level the queue has reached (in severity order, each severity is read when the queue " +
          "reaches it; newest first has one level). The first page reads every stream before it can say what comes first; past the page's time " +
          "budget it answers with what is certain so far (possibly nothing) and the count left: ask again with `nextPageToken`.",
      ),
  })
  .meta({
    examples: [
      {
        incidents: acrossWorkspacesResultExample.incidents.map((i) => ({ ...i, etag: '"kqj0Yb3Z9mF1uQx2c7WfEw"' })),
        nextPageToken: "fZBBbsIwEEX3nCJnjQ.qE1lW2i9rY0wX4dQ5Rr0pA",
        moreIncidentsAvailable: true,
        unreadStreams: 0,
      },
    ],
  });

/** Related incidents one detail shows, newest first. */
export const RELATED_INCIDENTS_LIMIT = 20;
/** Runs one detail shows: the newest created, ordered by latest activity. */
export const INCIDENT_RUNS_LIMIT = 100;

const incidentDetail = z
  .object({
    incident: incidentView.describe("The incident as `GET /workspaces/{workspaceId}/incidents/{source}/{incidentId}` has it: entities, alerts, evidence."),
    comments: z.array(commentView).describe("Oldest first, linked tickets' notes among them."),
    ticketNotesAvailable: z.boolean().describe("False when linked tickets' notes could not be read: `comments` lacks them."),
    runs: z
      .array(incidentRunSchema)
      .describe(
        `Every gamebook run on the incident (at this source), newest activity first, at most ${INCIDENT_RUNS_LIMIT} (the newest created): who asked, who decided, ` +
          "each step's outcome, the runs it retries or undoes, and what you may do with each now (retry, cancel, undo) or why not.",
      ),
    related: z
      .array(incidentSummaryView)
      .describe(
        `Other incidents of the workspace at the same source sharing at least one entity with this one (the contract's by-entity search with ` +
          `\`IncidentId\`), newest first, at most ${RELATED_INCIDENTS_LIMIT}.`,
      ),
  })
  .meta({
    examples: [
      {
        incident: incidentExample,
        comments: commentsExample,
        ticketNotesAvailable: true,
        runs: incidentRunsExample,
        related: [incidentSummaryExample],
      },
    ],
  });

/**
 * Incidents in the portal: the cross-workspace listing of the contract (docs/contract.md §4.2) over the workspaces the
 * person may see, one incident with what a person looks at beside it, in one answer, and the list's
 * bulk action. The same domain reads and writes as the contract's routes.
 */
export const portalIncidentRoutes: RouteGroup = {
  name: "portal-incidents",
  routes: [
    personRoute({
      method: "POST",
      path: "/portal/incidents/search",
      summary: "The incident queue: every workspace you may see, in one order, with the listing's filters",
      description:
        "Incidents of every workspace you may see (every workspace of your organization with an organization-wide role, `Admin` or `WorkspaceAdmin`, " +
        "otherwise those you hold a role on), narrowed to customers (`accountIds`) and workspaces (`workspaceIds`) when you name them, with the filters " +
        `of \`POST /incidents/across-workspaces\`, ${QUEUE_PAGE_SIZE} a page in one order across every workspace and source: newest first, or severity ` +
        "then newest. The order is exact: an incident is on a page only once no workspace's source can hold one before it, so pages follow one another " +
        "in order to the end, each incident once. Page with `nextPageToken` until it is null. The token is signed to you and to the query; one changed, " +
        "or sent by someone else, is 400. The listing's window is fixed at the first page. A read, sent as POST because the token of a thousand " +
        "workspaces outgrows a URL.\n\n" +
        "**Cost.** Each workspace's source is a stream the vendor lists newest first; the first page reads every one of them once (at a thousand " +
        "workspaces, seven thousand vendor calls), so it may take more than one call: past the page's time budget the answer holds what is certain so " +
        "far and `unreadStreams` says how many are left. A later page reads only the streams whose next incident may belong on it.\n\n" +
        "**When a vendor fails.** A page holds what the healthy streams give, in order; `meta.unavailable` names each workspace and source it could not " +
        "read, with the problem code (`UPSTREAM_ERROR`, `TIMEOUT`, `RATE_LIMITED`) and, where known, `retryAfterSeconds`. A stream that failed keeps its " +
        "place in the token and is read again on the next page; when it answers, its incidents come on that page, ahead of where the pages before had " +
        `reached. After ${GIVE_UP_AFTER_FAILED_PAGES} failed pages in a row (at once, for a failure that will not pass) it is given up (\`gaveUp\`).`,
      tag,
      roles: "any",
      problems: ["EXTENSION_NOT_ENABLED"],
      // The page a person opens first: what is open and serious, every workspace they see, newest first.
      body: portalQueueQuery.meta({
        examples: [
          { statuses: ["New", "Active"], order: "newest" },
          { severities: ["High", "Medium"], order: "severity", accountIds: [EXAMPLE_CUSTOMER_ACCOUNT_ID] },
          { statuses: ["New", "Active"], assigneeEmails: ["nadia@contoso.example"], includeUnassigned: true, pageToken: "fZBBbsIwEEX3nCJnjQ.qE1lW2i9rY0wX4dQ5Rr0pA" },
        ],
      }),
      maxBodyBytes: ACROSS_WORKSPACES_MAX_BODY_BYTES,
      partial: "streams",
      response: portalQueuePage,
      async handler(input) {
        const { accountIds, workspaceIds } = input.body;
        const seen = await personWorkspaces(input, input.person, workspaceIds.length > 0 ? workspaceIds : undefined);
        const accounts = new Set(accountIds.map((id) => id.toLowerCase()));
        const narrowed = accounts.size > 0 ? seen.filter((w) => accounts.has(w.accountId)) : seen;
        const { unavailable, incidents, nextPageToken, unreadStreams } = await incidentQueuePage(input, narrowed, input.body);
        return {
          data: {
            incidents: incidents.map((i) => ({ ...i.summary, etag: incidentEtag(i.summary, i.stateEtag) })),
            nextPageToken,
            moreIncidentsAvailable: nextPageToken !== null,
            unreadStreams,
          },
          unavailable,
        };
      },
    }),
    personRoute({
      method: "POST",
      path: "/portal/incidents/bulk",
      summary: "Assign, set the status of or close many incidents at once, or assign and close them in one request, across workspaces",
      description:
        `Changes 1 to ${BULK_MAX_INCIDENTS} incidents of any workspaces of your organization, as the incident list's bulk action does: the assignee, ` +
        "the status (a close with its classification), or both in one request, as Sentinel's bulk update sets owner, status and classification " +
        "together. Each incident is changed on its own, and each of its changes exactly as the single write would make it (the same checks, the " +
        "source first, then the service's state with its events and its audit record, you as the actor): the assignee first, in its own commit, then " +
        "the status in another, so the incident's webhook events are those of the two single writes, in that order. Never all or nothing: partial " +
        "success is normal, so the answer is 200 whenever the request itself is valid, and reports every incident in the request's order, with each " +
        "change: `Succeeded`, or `Refused` with the problem that change alone would have answered (`INSUFFICIENT_WORKSPACE_ROLE` without the " +
        "`Analyst` or `Owner` role on its workspace; `NOT_FOUND` for an incident or workspace not there for you; `CONFLICT` when it changed since " +
        "the `etag` you sent, or, for a close, when it is closed already, saying when and by whom where known; `VALIDATION_ERROR` for a change it " +
        "cannot take, such as OnHold on a closed incident; `UPSTREAM_ERROR`, `TIMEOUT`, `RATE_LIMITED` from its source). A refused change stops that " +
        "incident's later change (`NotAttempted`, naming the refusal) and undoes nothing: an incident assigned and then refused the close stays " +
        "assigned, and says so. No change starts when too little of the request's time is left to finish it: those are `NotAttempted` (not made, " +
        "send them again); one still under way when the answer goes out is `InProgress`. An incident named twice, or a body asking for no change, is " +
        "400, before anything is changed.",
      tag,
      roles: "any",
      body: bulkActionBody,
      response: bulkActionResult,
      async handler(input) {
        return { data: await applyBulkAction(input, input.body) };
      },
    }),
    personWorkspaceRoute({
      method: "GET",
      path: "/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}",
      responseHeaders: ["ETag"],
      summary: "One incident with its comments, its gamebook runs and related incidents",
      description:
        "The incident live from its source with the service's state of it (as the contract's incident), its comments, every gamebook run on it, " +
        "and the incidents sharing an entity with it. `ETag` is the incident's version, as the contract's `If-Match` takes it. 404 for an incident " +
        "the source does not have, and for a workspace you may not see.",
      tag,
      roles: "any",
      params: incidentParams,
      response: incidentDetail,
      async handler(input) {
        const { workspace, params } = input;
        // Read first: an incident the source does not have is 404 before anything else is asked.
        const { view, etag } = await readIncident(input, workspace, params.source, params.incidentId);
        const [comments, runs, related] = await Promise.all([
          incidentComments(input, workspace, params.source, params.incidentId),
          incidentRuns(input, workspace, params.source, params.incidentId, input.person, INCIDENT_RUNS_LIMIT),
          incidentsByEntity(input, workspace, params.source, { incidentId: params.incidentId, limit: RELATED_INCIDENTS_LIMIT }),
        ]);
        return {
          data: { incident: view, comments: comments.comments, ticketNotesAvailable: comments.notesAvailable, runs, related },
          headers: { ETag: etag },
        };
      },
    }),
  ],
};
