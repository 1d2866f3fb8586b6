import { z } from "zod";
import { personRoute, personWorkspaceRoute, type RouteGroup } from "../../../platform/http/route";
import {
  ACROSS_WORKSPACES_MAX_BODY_BYTES,
  acrossWorkspacesPage,
  acrossWorkspacesQuery,
  listAcrossWorkspaces,
  PARTIAL_LISTING_DESCRIPTION,
} from "../../../domain/incidents/cross-workspace-listing";
import { incidentComments, incidentsByEntity, readIncident } from "../../../domain/incidents/incident-reads";
import { commentView, incidentSummaryView, incidentView } from "../../../domain/incidents/incident-view";
import { personWorkspaces } from "../../../domain/organizations/mapped-workspaces";
import { incidentParams } from "./incident-params";
import { incidentRuns } from "./incident-run-routes";
import { incidentRunSchema, incidentRunsExample } from "./incident-run-schemas";
import {
  acrossWorkspacesExample,
  acrossWorkspacesResultExample,
  commentsExample,
  incidentExample,
  incidentSummaryExample,
} from "../../../domain/examples/incident-examples";

const tag = "Portal: incidents";
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
 * Incidents in the portal: the cross-workspace listing of the contract (4.2) over the workspaces the
 * person may see, and one incident with what a person looks at beside it, in one answer. The same
 * domain reads as the contract's routes; nothing here changes an incident.
 */
export const portalIncidentRoutes: RouteGroup = {
  name: "portal-incidents",
  routes: [
    personRoute({
      method: "POST",
      path: "/portal/incidents/search",
      summary: "Incidents across the workspaces you may see, with the contract's filters and page tokens",
      description:
        "The body and the answer of `POST /incidents/across-workspaces` (contract 4.2), over the workspaces you may see: every workspace of your " +
        "organization with an organization-wide role (`Admin`, `WorkspaceAdmin`), otherwise those you hold a role on. Page as the contract says: " +
        "send `sourcePageTokens` back as `workspacePageTokens` with `isFirstCall` false until `moreIncidentsAvailable` is false. The tokens are " +
        "signed to you and to the filters; one changed, or sent by someone else, is 400. A read, sent as POST because the tokens of many workspaces " +
        "outgrow a URL.\n\n" + PARTIAL_LISTING_DESCRIPTION,
      tag,
      roles: "any",
      problems: ["EXTENSION_NOT_ENABLED"],
      // The page a person opens first: what is open and serious at two sources, every workspace they see.
      body: acrossWorkspacesQuery.meta({ examples: [{ ...acrossWorkspacesExample, sources: ["SourceB", "SourceC"] }] }),
      maxBodyBytes: ACROSS_WORKSPACES_MAX_BODY_BYTES,
      partial: "streams",
      response: acrossWorkspacesPage.meta({ examples: [acrossWorkspacesResultExample] }),
      async handler(input) {
        const { unavailable, ...data } = await listAcrossWorkspaces(input, await personWorkspaces(input, input.person), input.body);
        return { data, unavailable };
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
