import { z } from "zod";
import { notFound } from "../../platform/errors/api-error";
import { workspaceRoute } from "../route-kinds";
import type { RouteGroup } from "../../platform/http/route";
import { commentPathSources, sourceSchema } from "../../model/sources";
import { EXAMPLE_GAMEBOOK_RUN_ID, EXAMPLE_INCIDENT } from "../../platform/http/examples";
import { EXAMPLE_INCIDENT_TITLE, EXAMPLE_WORKSPACE_ID, gamebookRunExample, playbookEntryExample, playbookRuleExample, runRequestExample, runSubmittedExample } from "../examples/gamebook-examples";
import { catalogueOf } from "../../domain/gamebooks/gamebook-settings";
import { gamebookRunView, playbookEntryView, playbookRuleView, RUN_STATES_DESCRIPTION, runSubmittedView, toGamebookRunView, toPlaybookEntryView } from "../../domain/gamebooks/gamebook-views";
import { matchingRules } from "../../domain/gamebooks/playbook-rules";
import { workspaceHistory } from "../../domain/gamebooks/run-history";
import { historyQuery } from "../schemas/run-history-schemas";
import { DETECTION_SOURCE_FIELD, runGamebookBody } from "../../domain/gamebooks/run-request";
import { submitRun } from "../../domain/gamebooks/run-submission";

const tag = "Gamebooks";
const base = "/workspaces/{workspaceId}/gamebooks";
const workspaceId = z.guid().describe("The workspace's id.").meta({ examples: [EXAMPLE_WORKSPACE_ID] });
/** Runs listed for one incident at most (all of them, in practice: an incident gets a handful). */
export const BY_INCIDENT_LIMIT = 500;

const RUN_DESCRIPTION = [
  "Runs playbooks against an incident, in `sequence` order.",
  `The detection source, which the contract leaves unnamed, is the body's \`${DETECTION_SOURCE_FIELD}\` property (SourceA to SourceG, case-insensitive).`,
  "Rules: `sequence` values are exactly 1..N (400 `VALIDATION_ERROR` naming each offending `playbooks[i].sequence`); only the documented fields are accepted (portal approval, retry and state fields such as `approvedBy`, `isRetryGamebook`, `status`, `isAdminRequired`, `tracingId` are 400, each named); the incident must exist at that source in the workspace (404 `NOT_FOUND`); each `playbooks[i].id` must be in the workspace's catalogue and each `playbooks[i].entityId` an entity of the incident that the playbook acts on, or the incident's own id for a playbook on the incident (400 at that path); parameters are the playbook's declared ones.",
  "When the caller sends `isQueued: true`, or the workspace's approval policy or the managing provider's partner approval setting requires it, the run is stored `Pending` with `isQueued` true: nothing runs and no `gamebook.run.v1` is sent until it is approved in the portal. `isQueued: false` never waives a policy. Otherwise the run is dispatched at once (`gamebook.run.v1`) and the executor carries the playbooks out; poll `history/{gamebookId}/playbooks` or `by-incident` with `gamebooks:read`. Service accounts cannot approve, deny, retry or cancel runs.",
  RUN_STATES_DESCRIPTION,
].join("\n\n");

export const gamebookRoutes: RouteGroup = {
  name: "gamebooks",
  routes: [
    workspaceRoute({
      method: "GET",
      path: `${base}/rules/{incidentTitle}`,
      summary: "The playbook rules matching an incident title",
      description:
        "A rule's `incidentTitle` is a pattern matched against the whole title, case-insensitively, `*` standing for any run of characters. The most specific rules come first. Percent-encode the title as one path segment (`/` as `%2F`, a space as `%20`).",
      tag,
      auth: "gamebooks:read",
      params: z.object({ workspaceId, incidentTitle: z.string().trim().min(1).max(1000).describe("The incident's title, percent-encoded as one path segment.").meta({ examples: [EXAMPLE_INCIDENT_TITLE] }) }),
      response: z.array(playbookRuleView).meta({ examples: [[playbookRuleExample]] }),
      async handler(input) {
        const catalogue = await catalogueOf(input, input.workspace.id);
        return { data: matchingRules(catalogue.rules, catalogue.playbooks, input.params.incidentTitle) };
      },
    }),
    workspaceRoute({
      method: "GET",
      path: `${base}/history`,
      summary: "The workspace's gamebook runs, newest first",
      tag,
      auth: "gamebooks:read",
      params: z.object({ workspaceId }),
      query: historyQuery,
      paginated: true,
      response: z.array(gamebookRunView).meta({ examples: [[gamebookRunExample]] }),
      async handler(input) {
        const { runs, pagination } = await workspaceHistory(input, input.workspace, input.query);
        return { data: runs.map(toGamebookRunView), pagination };
      },
    }),
    workspaceRoute({
      method: "GET",
      path: `${base}/history/{gamebookId}/playbooks`,
      summary: "The playbooks of one gamebook run, in sequence order",
      tag,
      auth: "gamebooks:read",
      params: z.object({ workspaceId, gamebookId: z.guid().describe("The run's `id`.").meta({ examples: [EXAMPLE_GAMEBOOK_RUN_ID] }) }),
      response: z.array(playbookEntryView).meta({ examples: [[playbookEntryExample]] }),
      async handler(input) {
        const found = await input.stores.gamebookRuns.get(input.workspace.id, input.params.gamebookId.toLowerCase());
        if (!found) throw notFound("The gamebook run", "gamebookId");
        return { data: [...found.value.playbooks].sort((a, b) => a.sequence - b.sequence).map(toPlaybookEntryView) };
      },
    }),
    workspaceRoute({
      method: "GET",
      path: `${base}/by-incident/{incidentId}`,
      summary: "Every gamebook run on an incident, newest first",
      description: `Runs on the incident id at any source, or at \`source\` (SourceA to SourceF) when given; at most ${BY_INCIDENT_LIMIT}. An incident without runs answers an empty array.`,
      tag,
      auth: "gamebooks:read",
      params: z.object({ workspaceId, incidentId: z.string().trim().min(1).max(256).describe("The source's own incident id.").meta({ examples: [EXAMPLE_INCIDENT.id] }) }),
      query: z.strictObject({ source: sourceSchema(commentPathSources).optional() }),
      response: z.array(gamebookRunView).meta({ examples: [[gamebookRunExample]] }),
      async handler(input) {
        const runs = await input.stores.gamebookRuns.listForIncident(input.workspace.id, input.params.incidentId, input.query.source, BY_INCIDENT_LIMIT);
        return { data: runs.map(toGamebookRunView) };
      },
    }),
    workspaceRoute({
      method: "POST",
      path: `${base}/run`,
      idempotencyKey: true,
      summary: "Run a gamebook against an incident",
      description: RUN_DESCRIPTION,
      tag,
      auth: "gamebooks:execute",
      problems: ["EXTENSION_NOT_ENABLED"],
      params: z.object({ workspaceId }),
      body: runGamebookBody.meta({ examples: [runRequestExample] }),
      response: runSubmittedView.meta({ examples: [runSubmittedExample] }),
      async handler(input) {
        const run = await submitRun(input, { workspace: input.workspace, request: input.body, tracingId: input.requestId });
        return { data: { id: run.id, status: run.status, isQueued: run.isQueued } };
      },
    }),
  ],
};
