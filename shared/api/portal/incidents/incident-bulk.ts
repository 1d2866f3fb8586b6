import { setMaxListeners } from "node:events";
import { ApiError, isApiError, notFound } from "../../../platform/errors/api-error";
import { settleWithin } from "../../../platform/concurrency/settle-within";
import type { Person } from "../../../platform/auth/person";
import type { Uses } from "../../../domain/operation-context";
import { satisfiesWorkspaceRole } from "../../../model/organizations/roles";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";
import { changeAssignee, changeStatus } from "../../../domain/incidents/incident-writes";
import type { IncidentTarget } from "../../../domain/incidents/incident-access";
import type { BulkActionBody, BulkActionResult, BulkChangeName, BulkChangeResult, BulkChanges, BulkIncident, BulkItemResult, BulkOutcome } from "./incident-bulk-schemas";

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

/** One change of the request, as the single write makes it. */
interface Step {
  change: BulkChangeName;
  make(ctx: BulkContext, target: IncidentTarget): Promise<void>;
}

/**
 * A person's changes to many incidents: each incident changed on its own, each change through the
 * same domain operation as its single write (`changeAssignee`, then `changeStatus`), with its own
 * commit, events and audit record, never one all-or-nothing transaction, and each reported: made, or
 * refused with the problem the same change alone would have answered. A refused change stops that
 * incident's later ones, and undoes none made before it (they were committed, their events are out).
 * An incident of a workspace outside the person's organization (or of none) is `NOT_FOUND`, one where
 * they hold no `Analyst` or `Owner` role `INSUFFICIENT_WORKSPACE_ROLE`, like the single writes'
 * routes. No change starts once too little of the request's time is left to finish it
 * (`NotAttempted`), and the answer goes out before the deadline, naming any change still under way
 * (`InProgress`).
 */
export async function applyBulkAction(ctx: BulkContext, body: BulkActionBody): Promise<BulkActionResult> {
  const steps = stepsOf(body.changes);
  const workspaces = await organizationWorkspaces(ctx, body.incidents);
  // Each incident's changes as they stand, written as they happen: what the answer reports, even of an incident still under way.
  const progress = body.incidents.map(() => steps.map((step): BulkChangeResult => notStarted(step.change)));
  const runnable: { index: number; target: IncidentTarget }[] = [];
  body.incidents.forEach((incident, index) => {
    const workspace = workspaces.get(incident.workspaceId.toLowerCase());
    if (!workspace) refuse(progress[index]!, 0, notFound("The workspace", "workspaceId"));
    else if (!satisfiesWorkspaceRole(ctx.person.workspaceRoles.get(workspace.id), "Analyst")) {
      refuse(progress[index]!, 0, new ApiError("INSUFFICIENT_WORKSPACE_ROLE", "This needs the Analyst role on this workspace.", { target: "workspaceId" }));
    } else {
      runnable.push({ index, target: { workspace, source: incident.source, incidentId: incident.incidentId, ifMatch: incident.etag } });
    }
  });

  const deadline = ctx.deadline;
  let answered = false;
  if (ctx.signal) setMaxListeners(BULK_CONCURRENCY * LISTENERS_PER_CHANGE, ctx.signal);
  await settleWithin(
    runnable,
    BULK_CONCURRENCY,
    deadline ? { totalMs: Math.max(0, deadline.remainingMs() - ANSWER_MARGIN_MS) } : {},
    async ({ index, target }) => {
      const changes = progress[index]!;
      for (const [i, step] of steps.entries()) {
        // A change starts only with the time a write needs still ahead of it, so none is cut off
        // halfway, and none after the answer has gone out saying it was not started.
        if (answered || (deadline && deadline.remainingMs() < deadline.reserveMs)) return;
        changes[i] = { change: step.change, outcome: "InProgress", problem: problemOf(STILL_UNDER_WAY) };
        try {
          // The version named is the one the first change acts on; a later one follows on what the change before it left.
          await step.make(ctx, i === 0 ? target : { ...target, ifMatch: undefined });
        } catch (error) {
          refuse(changes, i, refusalOf(ctx, body.incidents[index]!, error));
          return;
        }
        changes[i] = { change: step.change, outcome: "Succeeded", problem: null };
      }
    },
    ctx.signal,
  );
  answered = true;

  const results = body.incidents.map((incident, index): BulkItemResult => ({ ...identity(incident), ...summed(progress[index]!), changes: [...progress[index]!] }));
  const count = (outcome: BulkOutcome) => results.filter((r) => r.outcome === outcome).length;
  return { results, succeeded: count("Succeeded"), refused: count("Refused"), notAttempted: count("NotAttempted"), inProgress: count("InProgress") };
}

/** The request's changes as steps, in the order they are applied: the assignee, then the status. */
function stepsOf(changes: BulkChanges): Step[] {
  const steps: Step[] = [];
  const { assignee, status } = changes;
  if (assignee) steps.push({ change: "assignee", make: (ctx, target) => changeAssignee(ctx, target, assignee) });
  if (status === "Closed") {
    // A close the person did not see happen is theirs to look at, not to overwrite.
    const close = { status, classification: changes.classification, closingComment: changes.closingComment };
    steps.push({ change: "status", make: (ctx, target) => changeStatus(ctx, { ...target, refuseIfClosed: true }, close) });
  } else if (status) {
    steps.push({ change: "status", make: (ctx, target) => changeStatus(ctx, target, { status }) });
  }
  return steps;
}

/** The incident as a whole: its first change refused, else one under way, else one not started; else every change made. */
function summed(changes: readonly BulkChangeResult[]): Pick<BulkItemResult, "outcome" | "problem"> {
  const first = (outcome: BulkOutcome) => changes.find((c) => c.outcome === outcome);
  const unmade = first("Refused") ?? first("InProgress") ?? first("NotAttempted");
  return unmade ? { outcome: unmade.outcome, problem: unmade.problem } : { outcome: "Succeeded", problem: null };
}

/** Change `i` refused, and the incident's later ones not attempted because of it. */
function refuse(changes: BulkChangeResult[], i: number, error: ApiError): void {
  changes[i] = { change: changes[i]!.change, outcome: "Refused", problem: problemOf(error) };
  for (let later = i + 1; later < changes.length; later++) {
    changes[later] = {
      change: changes[later]!.change,
      outcome: "NotAttempted",
      problem: problemOf(new ApiError(error.code, `Not attempted: the ${changes[i]!.change} change before it was refused. ${error.message}`, { target: error.target })),
    };
  }
}

/** Why a change failed, as its single write would answer; a fault of the service, not of the incident, is logged and that change alone reported so. */
function refusalOf(ctx: BulkContext, incident: BulkIncident, error: unknown): ApiError {
  if (isApiError(error)) return error;
  ctx.logger.error("bulk incident action failed", {
    workspaceId: incident.workspaceId,
    source: incident.source,
    incidentId: incident.incidentId,
    error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
  });
  return new ApiError("INTERNAL_ERROR", "An unexpected error occurred while changing this incident.");
}

const STILL_UNDER_WAY = new ApiError("TIMEOUT", "The change was still being made when the time ran out, and completes on its own: read the incident before sending it again.");
const NOT_STARTED = new ApiError("TIMEOUT", "Not started: the request's time ran out first. This change was not made; send it again.");

function notStarted(change: BulkChangeName): BulkChangeResult {
  return { change, outcome: "NotAttempted", problem: problemOf(NOT_STARTED) };
}

/** The named workspaces that are in the person's organization, by id: one store read. Any other is not there for them. */
async function organizationWorkspaces(ctx: BulkContext, incidents: readonly BulkIncident[]): Promise<Map<string, WorkspaceRecord>> {
  const found = await ctx.stores.workspaces.getMany([...new Set(incidents.map((i) => i.workspaceId.toLowerCase()))]);
  return new Map(found.filter((w) => ctx.person.organizationAccountIds.includes(w.accountId)).map((w) => [w.id, w]));
}

function identity(incident: BulkIncident): Pick<BulkItemResult, "workspaceId" | "source" | "incidentId"> {
  return { workspaceId: incident.workspaceId, source: incident.source, incidentId: incident.incidentId };
}

function problemOf(error: ApiError): NonNullable<BulkChangeResult["problem"]> {
  return { code: error.code, status: error.status, detail: error.message, ...(error.target === undefined ? {} : { target: error.target }) };
}
