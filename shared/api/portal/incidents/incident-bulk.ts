import { setMaxListeners } from "node:events";
import { ApiError, isApiError, notFound } from "../../../platform/errors/api-error";
import { settleWithin, type Settled } from "../../../platform/concurrency/settle-within";
import type { Person } from "../../../platform/auth/person";
import type { Uses } from "../../../domain/operation-context";
import { satisfiesWorkspaceRole } from "../../../model/organizations/roles";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";
import { changeAssignee, changeStatus } from "../../../domain/incidents/incident-writes";
import type { IncidentTarget } from "../../../domain/incidents/incident-access";
import type { BulkAction, BulkActionBody, BulkActionResult, BulkIncident, BulkItemResult, BulkOutcome } from "./incident-bulk-schemas";

/**
 * Incidents changed at once. Each is a vendor read and a vendor write before its commit: eight in
 * flight keep a vendor's API (and its rate limit) as busy as a person clicking through a list would
 * not, and still finish 100 in a few seconds.
 */
const BULK_CONCURRENCY = 8;
/** Time kept back from the request's deadline for writing the answer. */
const ANSWER_MARGIN_MS = 250;
/**
 * Abort listeners one change may hang on the request's signal at once (its store reads, its vendor
 * call): the request's signal carries those of every change in flight, past Node's default warning at 10.
 */
const LISTENERS_PER_CHANGE = 4;

export type BulkContext = Uses<"actor" | "events" | "logger" | "now" | "sources" | "stores"> & { person: Person };

/** What became of one incident's change, before it is put into words. */
type Ran = "changed" | "not-started";

/**
 * A person's action on many incidents: each incident its own change through the same domain
 * operation as a single write (`changeAssignee`, `changeStatus`), with its own commit, events and
 * audit record, never one all-or-nothing transaction, and each reported: changed, or refused with
 * the problem the same change alone would have answered. An incident of a workspace outside the
 * person's organization (or of none) is `NOT_FOUND`, one where they hold no `Analyst` or `Owner`
 * role `INSUFFICIENT_WORKSPACE_ROLE`, like the single writes' routes. No change starts once too
 * little of the request's time is left to finish it (`NotAttempted`), and the answer goes out before
 * the deadline, naming any change still under way (`InProgress`).
 */
export async function applyBulkAction(ctx: BulkContext, body: BulkActionBody): Promise<BulkActionResult> {
  const workspaces = await organizationWorkspaces(ctx, body.incidents);
  const results = new Array<BulkItemResult>(body.incidents.length);
  const runnable: { index: number; target: IncidentTarget }[] = [];
  body.incidents.forEach((incident, index) => {
    const workspace = workspaces.get(incident.workspaceId.toLowerCase());
    if (!workspace) results[index] = refused(incident, notFound("The workspace", "workspaceId"));
    else if (!satisfiesWorkspaceRole(ctx.person.workspaceRoles.get(workspace.id), "Analyst")) {
      results[index] = refused(incident, new ApiError("INSUFFICIENT_WORKSPACE_ROLE", "This needs the Analyst role on this workspace.", { target: "workspaceId" }));
    } else {
      runnable.push({ index, target: { workspace, source: incident.source, incidentId: incident.incidentId, ifMatch: incident.etag } });
    }
  });

  const deadline = ctx.deadline;
  if (ctx.signal) setMaxListeners(BULK_CONCURRENCY * LISTENERS_PER_CHANGE, ctx.signal);
  const settled = await settleWithin(
    runnable,
    BULK_CONCURRENCY,
    deadline ? { totalMs: Math.max(0, deadline.remainingMs() - ANSWER_MARGIN_MS) } : {},
    async ({ target }): Promise<Ran> => {
      // A change starts only with the time a write needs still ahead of it, so none is cut off halfway.
      if (deadline && deadline.remainingMs() < deadline.reserveMs) return "not-started";
      await apply(ctx, target, body.action);
      return "changed";
    },
    ctx.signal,
  );
  settled.forEach((outcome, i) => {
    const { index } = runnable[i]!;
    results[index] = reported(ctx, body.incidents[index]!, outcome);
  });

  const count = (outcome: BulkOutcome) => results.filter((r) => r.outcome === outcome).length;
  return { results, succeeded: count("Succeeded"), refused: count("Refused"), notAttempted: count("NotAttempted"), inProgress: count("InProgress") };
}

/** The action on one incident: the single write's own operation. */
function apply(ctx: BulkContext, target: IncidentTarget, action: BulkAction): Promise<void> {
  switch (action.type) {
    case "Assign":
      return changeAssignee(ctx, target, { userId: action.userId, email: action.email });
    case "SetStatus":
      return changeStatus(ctx, target, { status: action.status });
    case "Close":
      // A close the person did not see happen is theirs to look at, not to overwrite.
      return changeStatus(ctx, { ...target, refuseIfClosed: true }, { status: "Closed", classification: action.classification, closingComment: action.closingComment });
  }
}

/** The named workspaces that are in the person's organization, by id: one store read. Any other is not there for them. */
async function organizationWorkspaces(ctx: BulkContext, incidents: readonly BulkIncident[]): Promise<Map<string, WorkspaceRecord>> {
  const found = await ctx.stores.workspaces.getMany([...new Set(incidents.map((i) => i.workspaceId.toLowerCase()))]);
  return new Map(found.filter((w) => ctx.person.organizationAccountIds.includes(w.accountId)).map((w) => [w.id, w]));
}

function reported(ctx: BulkContext, incident: BulkIncident, outcome: Settled<Ran>): BulkItemResult {
  switch (outcome.status) {
    case "fulfilled":
      return outcome.value === "changed" ? { ...identity(incident), outcome: "Succeeded", problem: null } : notAttempted(incident);
    case "unstarted":
      return notAttempted(incident);
    case "late":
      return {
        ...identity(incident),
        outcome: "InProgress",
        problem: problemOf(new ApiError("TIMEOUT", "The change was still being made when the time ran out, and completes on its own: read the incident before sending it again.")),
      };
    case "rejected": {
      if (isApiError(outcome.reason)) return refused(incident, outcome.reason);
      // A fault of the service, not of the incident: logged, and that incident alone reported so.
      ctx.logger.error("bulk incident action failed", {
        workspaceId: incident.workspaceId,
        source: incident.source,
        incidentId: incident.incidentId,
        error: outcome.reason instanceof Error ? { name: outcome.reason.name, message: outcome.reason.message, stack: outcome.reason.stack } : String(outcome.reason),
      });
      return refused(incident, new ApiError("INTERNAL_ERROR", "An unexpected error occurred while changing this incident."));
    }
  }
}

function notAttempted(incident: BulkIncident): BulkItemResult {
  return {
    ...identity(incident),
    outcome: "NotAttempted",
    problem: problemOf(new ApiError("TIMEOUT", "Not started: the request's time ran out first. Nothing was changed; send it again.")),
  };
}

function refused(incident: BulkIncident, error: ApiError): BulkItemResult {
  return { ...identity(incident), outcome: "Refused", problem: problemOf(error) };
}

function identity(incident: BulkIncident): Pick<BulkItemResult, "workspaceId" | "source" | "incidentId"> {
  return { workspaceId: incident.workspaceId, source: incident.source, incidentId: incident.incidentId };
}

function problemOf(error: ApiError): NonNullable<BulkItemResult["problem"]> {
  return { code: error.code, status: error.status, detail: error.message, ...(error.target === undefined ? {} : { target: error.target }) };
}
