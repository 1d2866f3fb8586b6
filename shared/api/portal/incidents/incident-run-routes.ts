import { z } from "zod";
import { notFound } from "../../../platform/errors/api-error";
import { personWorkspaceRoute, type PersonWorkspaceInput } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import type { Uses } from "../../../domain/operation-context";
import type { Person } from "../../../platform/auth/person";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";
import type { GamebookRunRecord, RunRequester } from "../../../model/gamebooks/gamebook-run";
import type { Source } from "../../../model/sources";
import { catalogueOf } from "../../../domain/gamebooks/gamebook-settings";
import { approvalReasonViews } from "../approval-request-view";
import { cancelGamebookRun } from "../../../domain/gamebooks/run-cancellation";
import { FOLLOW_UP_SCAN_LIMIT, retryRun, undoRun } from "../../../domain/gamebooks/run-follow-ups";
import { previewRun, submitRun } from "../../../domain/gamebooks/run-submission";
import type { RunGamebookRequest } from "../../../domain/gamebooks/run-request";
import {
  EXAMPLE_APPROVAL_WORKSPACE_ID,
  EXAMPLE_RUN_TO_CANCEL_ID,
  EXAMPLE_RUN_TO_RETRY_ID,
  EXAMPLE_RUN_TO_UNDO_ID,
} from "../../examples/gamebook-examples";
import { EXAMPLE_GAMEBOOK_RUN_ID, EXAMPLE_WORKSPACE_ID } from "../../../platform/http/examples";
import { incidentParams } from "./incident-params";
import { incidentPlaybookOffer } from "./incident-playbook-offer";
import { incidentRuns, incidentRunViews, mayActOn, type IncidentRunView } from "./incident-run-view";
import { cancelBody, incidentPlaybookOfferView, incidentRunSchema, runPreviewView, runRequestBody, undoBody } from "./incident-run-schemas";

const tag = "Portal: incident runs";
const incidentPath = "/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}";
const runPath = "/portal/workspaces/{workspaceId}/gamebook-runs/{runId}";
const runParams = (workspaceId: string, runId: string) =>
  z.strictObject({
    workspaceId: z.guid().describe("The workspace's id.").meta({ examples: [workspaceId] }),
    runId: z.guid().describe("The run's id.").meta({ examples: [runId] }),
  });
const RUN_STATES = "Run statuses as the contract's run record has them: `Pending` (waiting for approval, or dispatched), `Running`, `Succeeded`, `PartiallySucceeded`, `Failed`, `Denied`, `Cancelled`.";

/** The person as a run's requester. */
const requesterOf = (person: Person): RunRequester => ({ kind: "User", id: person.userId, name: person.name });

/** One run as the incident's page shows it, worked out among the other runs on its incident. */
async function runView(ctx: Uses<"stores">, workspace: WorkspaceRecord, run: GamebookRunRecord, person: Person): Promise<IncidentRunView> {
  const views = await incidentRuns(ctx, workspace, run.source, run.incidentId, person, FOLLOW_UP_SCAN_LIMIT);
  // A run older than the newest the incident listing reads is shown on its own.
  return views.find((v) => v.id === run.id) ?? incidentRunViews([run], workspace, await catalogueOf(ctx, workspace.id), { mayAct: mayActOn(person, workspace) })[0]!;
}

/** A new run's answer: 201, where it is, and the run as the incident's page shows it. */
async function created(input: PersonWorkspaceInput<unknown, unknown, unknown>, run: GamebookRunRecord) {
  return {
    status: 201 as const,
    data: await runView(input, input.workspace, run, input.person),
    headers: { Location: `${input.origin}/api/v2/portal/workspaces/${input.workspace.id}/gamebook-runs/${run.id}` },
  };
}

/** The portal's run request as the contract's run request: the incident's id and source from the path, its title from the source (the run records the source's title anyway). */
function runRequest(params: { source: Source; incidentId: string }, body: { playbooks: RunGamebookRequest["playbooks"]; isQueued: boolean }, title: string): RunGamebookRequest {
  return { incidentId: params.incidentId, incidentTitle: title, source: params.source, playbooks: body.playbooks, isQueued: body.isQueued };
}

/**
 * Running playbooks from an incident in the portal, as Splunk SOAR and Cortex XSOAR run them from a
 * case: what can run on the incident, whether a run would wait for approval, the run itself, and
 * retry, cancel and undo of a run. Acting needs the `Analyst` (or `Owner`) role on the workspace; the
 * person is the run's requester, so never its approver. The same domain operations as the contract's
 * run, audited with the person as actor. Service accounts cannot reach these (docs/contract.md §4.1 rule 5).
 */
export const incidentRunRoutes: RouteGroup = {
  name: "portal-incident-runs",
  routes: [
    personWorkspaceRoute({
      method: "GET",
      path: `${incidentPath}/playbooks`,
      summary: "What can run on an incident: the catalogue's playbooks and gamebooks, recommended first, each with the entities it can act on",
      description:
        "The workspace catalogue's playbooks and gamebooks that are switched on, recommended first: by the workspace's rules matching the incident's title " +
        "(most specific first), then by the incident's source. Each playbook with the incident's entities of its kind (a run's `entityId`; the incident " +
        "itself for a playbook on the incident), its declared parameters (a run's `parameters`), whether it needs an administrator and its undo playbook. " +
        "404 for an incident the source does not have.",
      tag,
      roles: "any",
      params: incidentParams,
      response: incidentPlaybookOfferView,
      async handler(input) {
        const { workspace, params } = input;
        const incident = await input.sources.gateway(params.source).getIncident(workspace.id, params.incidentId, input.signal);
        const offer = incidentPlaybookOffer(await catalogueOf(input, workspace.id), incident);
        return { data: { incident: { id: incident.id, source: incident.source, number: incident.number, title: incident.title }, ...offer } };
      },
    }),
    personWorkspaceRoute({
      method: "POST",
      path: `${incidentPath}/runs/preview`,
      summary: "Whether a run would wait for approval, and why, before it is submitted",
      description:
        "The same body as `POST …/runs`, checked the same way (the same 400 at `playbooks[i]...`, 404, `EXTENSION_NOT_ENABLED`), and nothing stored: whether " +
        "the run would wait for approval, the reasons (you asked; the workspace's policy; the managing provider's setting), how many people would have to " +
        "approve it and when the request would expire, and the playbooks as they would run (defaults filled in).",
      tag,
      roles: "any",
      workspaceRole: "Analyst",
      params: incidentParams,
      body: runRequestBody,
      response: runPreviewView,
      problems: ["EXTENSION_NOT_ENABLED"],
      async handler(input) {
        const { workspace, params, body } = input;
        const incident = await input.sources.gateway(params.source).getIncident(workspace.id, params.incidentId, input.signal);
        const preview = await previewRun(input, { workspace, request: runRequest(params, body, incident.title), incident });
        return { data: { ...preview, reasons: approvalReasonViews(preview.reasons) } };
      },
    }),
    personWorkspaceRoute({
      method: "POST",
      path: `${incidentPath}/runs`,
      idempotencyKey: true,
      summary: "Run playbooks on the incident, as yourself",
      description:
        "The contract's run (`POST /workspaces/{workspaceId}/gamebooks/run`) asked for by you: the incident's title and source come from the incident; " +
        "`playbooks` and `isQueued` are the contract's, checked the same way. The approval policy applies as to any run: when it waits, you cannot " +
        "approve it yourself. `gamebook.run.v1` when it is dispatched, never while it waits. Audited with you as actor. 201 with the run as the " +
        `incident's page shows it. ${RUN_STATES}`,
      tag,
      roles: "any",
      workspaceRole: "Analyst",
      params: incidentParams,
      body: runRequestBody,
      response: incidentRunSchema,
      successStatus: 201,
      responseHeaders: ["Location"],
      problems: ["EXTENSION_NOT_ENABLED"],
      async handler(input) {
        const { workspace, params, body, person } = input;
        const incident = await input.sources.gateway(params.source).getIncident(workspace.id, params.incidentId, input.signal);
        const run = await submitRun(input, { workspace, request: runRequest(params, body, incident.title), incident, tracingId: input.requestId, requestedBy: requesterOf(person) });
        return created(input, run);
      },
    }),
    personWorkspaceRoute({
      method: "GET",
      path: runPath,
      summary: "One gamebook run as the incident's page shows it",
      description: "Who asked, who decided, each step's outcome, the runs it comes from and those made from it, and what you may do with it now. 404 for a run the workspace does not have.",
      tag,
      roles: "any",
      params: runParams(EXAMPLE_WORKSPACE_ID, EXAMPLE_GAMEBOOK_RUN_ID),
      response: incidentRunSchema,
      async handler(input) {
        const found = await input.stores.gamebookRuns.get(input.workspace.id, input.params.runId.toLowerCase());
        if (!found) throw notFound("The gamebook run", "runId");
        return { data: await runView(input, input.workspace, found.value, input.person) };
      },
    }),
    personWorkspaceRoute({
      method: "POST",
      path: `${runPath}/retry`,
      idempotencyKey: true,
      summary: "Retry a failed or partly failed run: a new run of its failed and skipped playbooks",
      description:
        "A new run of the run's failed and skipped playbooks, on the same entities with the same parameters, resequenced 1..N, with `isRetryGamebook` " +
        "true and linked to the run it retries (`retryOf`). It goes through the approval policy like any run, and you are its requester. Audited with " +
        "you as actor. 409 for a run that did not fail, and while an earlier retry of it has not ended.",
      tag,
      roles: "any",
      workspaceRole: "Analyst",
      params: runParams(EXAMPLE_WORKSPACE_ID, EXAMPLE_RUN_TO_RETRY_ID),
      response: incidentRunSchema,
      successStatus: 201,
      responseHeaders: ["Location"],
      problems: ["CONFLICT", "EXTENSION_NOT_ENABLED"],
      async handler(input) {
        const run = await retryRun(input, { workspace: input.workspace, runId: input.params.runId.toLowerCase(), requestedBy: requesterOf(input.person), tracingId: input.requestId });
        return created(input, run);
      },
    }),
    personWorkspaceRoute({
      method: "POST",
      path: `${runPath}/cancel`,
      summary: "Cancel a run waiting for approval, dispatched or running",
      description:
        "Playbooks not started are skipped and never start; a waiting run leaves the approval queue. A playbook already running in the automation backend " +
        "cannot be called back: its outcome is still recorded when it arrives. Any Analyst or Owner of the workspace may cancel any run there. Audited " +
        "with you as actor and the optional reason. 409 once the run has ended.",
      tag,
      roles: "any",
      workspaceRole: "Analyst",
      params: runParams(EXAMPLE_APPROVAL_WORKSPACE_ID, EXAMPLE_RUN_TO_CANCEL_ID),
      body: cancelBody,
      response: incidentRunSchema,
      problems: ["CONFLICT"],
      async handler(input) {
        const { person, workspace } = input;
        const run = await cancelGamebookRun(input, {
          workspace,
          runId: input.params.runId.toLowerCase(),
          cancelledBy: { userId: person.userId, name: person.name },
          reason: input.body.reason ?? null,
        });
        return { data: await runView(input, workspace, run, person) };
      },
    }),
    personWorkspaceRoute({
      method: "POST",
      path: `${runPath}/undo`,
      idempotencyKey: true,
      summary: "Undo what a run did: run the catalogue's undo playbooks of its succeeded steps",
      description:
        "A new run of the undo playbooks the catalogue names (`recoverPlaybookId`) for the run's succeeded steps, on the same entities, in reverse order, " +
        "with `isRecover` true and linked to the run it undoes (`undoOf`); `sequences` chooses which steps. Offered only where the catalogue names an undo " +
        "playbook: a run with nothing to undo, or one that has not ended, is 409 saying why; a chosen step that cannot be undone is 400 at `sequences[i]`. " +
        "Through the approval policy like any run; audited with you as actor.",
      tag,
      roles: "any",
      workspaceRole: "Analyst",
      params: runParams(EXAMPLE_WORKSPACE_ID, EXAMPLE_RUN_TO_UNDO_ID),
      body: undoBody,
      response: incidentRunSchema,
      successStatus: 201,
      responseHeaders: ["Location"],
      problems: ["CONFLICT", "EXTENSION_NOT_ENABLED"],
      async handler(input) {
        const run = await undoRun(input, {
          workspace: input.workspace,
          runId: input.params.runId.toLowerCase(),
          requestedBy: requesterOf(input.person),
          tracingId: input.requestId,
          sequences: input.body.sequences,
        });
        return created(input, run);
      },
    }),
  ],
};
