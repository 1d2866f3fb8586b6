import { ApiError, isApiError, notFound, type FieldErrors } from "../../platform/errors/api-error";
import { derivedGuid } from "../../platform/ids/derived-guid";
import type { Uses } from "../operation-context";
import type { GamebookRunRecord, PlaybookEntryRecord, RunLink, RunRequester } from "../../model/gamebooks/gamebook-run";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { isEnabled, type CataloguePlaybook, type PlaybookCatalogueRecord } from "../../model/gamebooks/playbook-catalogue-record";
import { catalogueOf } from "./gamebook-settings";
import type { RunGamebookRequest } from "./run-request";
import { isFinal } from "./run-state";
import { submitRun } from "./run-submission";

/*
 * Runs made from another run by a person: a retry (its failed and skipped playbooks again,
 * `isRetryGamebook`) and an undo (the catalogue's undo playbooks of what it did, `isRecover`). Each is
 * a new run, submitted like any other (the approval policy applies, the person is its requester),
 * linked to the run it comes from. The rules are pure functions of the run and the runs made from it
 * (`followUpsOf`), so that the incident's run list says what a person may do with the same words the
 * refusal would.
 */

/** The other runs on an incident read when looking for those made from one run (the by-incident listing's bound). */
export const FOLLOW_UP_SCAN_LIMIT = 500;

/** The runs made from `run` among `others`: its retries and its undos, oldest first. */
export function followUpsOf(run: Pick<GamebookRunRecord, "id">, others: readonly GamebookRunRecord[]): { retries: GamebookRunRecord[]; undos: GamebookRunRecord[] } {
  const oldestFirst = [...others].sort((a, b) => (a.creationDate < b.creationDate ? -1 : a.creationDate > b.creationDate ? 1 : a.id < b.id ? -1 : 1));
  return {
    retries: oldestFirst.filter((r) => r.retryOf?.runId === run.id),
    undos: oldestFirst.filter((r) => r.undoOf?.runId === run.id),
  };
}

/** Why the run cannot be retried now (in words for the person), or null when it can. */
export function retryRefusal(run: GamebookRunRecord, retries: readonly GamebookRunRecord[]): string | null {
  if (run.status !== "Failed" && run.status !== "PartiallySucceeded") {
    return `Only a failed or partly failed run can be retried; this one is ${describeStatus(run)}.`;
  }
  const inFlight = retries.find((r) => !isFinal(r.status));
  if (inFlight) return `It is being retried already: run ${inFlight.id} is ${describeStatus(inFlight)}.`;
  return null;
}

/** The playbooks a retry runs again: the failed and the skipped ones, in their order. */
export function retriedPlaybooks(run: GamebookRunRecord): PlaybookEntryRecord[] {
  return [...run.playbooks].filter((p) => p.status === "Failed" || p.status === "Skipped").sort((a, b) => a.sequence - b.sequence);
}

/** One step of a run that can be undone: the step, and the catalogue's playbook that undoes it. */
export interface UndoableStep {
  step: PlaybookEntryRecord;
  undo: CataloguePlaybook;
}

/**
 * What of the run can be undone now: its succeeded steps whose catalogue playbook names an undo
 * playbook (switched on, and runnable without a parameter nobody can give it), less those undone or
 * being undone by an earlier undo run. `refusal` says why nothing can be, when nothing can.
 */
export function undoOffer(run: GamebookRunRecord, catalogue: PlaybookCatalogueRecord, undos: readonly GamebookRunRecord[]): { steps: UndoableStep[]; refusal: string | null; notOffered: { sequence: number; reason: string }[] } {
  if (!isFinal(run.status)) return { steps: [], refusal: "The run has not ended: wait for it to end, or cancel it, then undo what it did.", notOffered: [] };
  const playbooks = new Map(catalogue.playbooks.map((p) => [p.id, p]));
  const undone = undoneSequences(undos);
  const steps: UndoableStep[] = [];
  const notOffered: { sequence: number; reason: string }[] = [];
  const succeeded = [...run.playbooks].filter((p) => p.status === "Succeeded").sort((a, b) => a.sequence - b.sequence);
  for (const step of succeeded) {
    const why = (reason: string) => notOffered.push({ sequence: step.sequence, reason });
    const recoverId = playbooks.get(step.referenceId)?.recoverPlaybookId ?? null;
    const undo = recoverId === null ? undefined : playbooks.get(recoverId);
    if (!undo) {
      why(`${step.name} has no undo playbook in the catalogue.`);
      continue;
    }
    if (!isEnabled(undo)) {
      why(`Its undo playbook, ${undo.name}, is switched off in the catalogue.`);
      continue;
    }
    const needed = undo.parameters.filter((p) => p.required && p.default === undefined).map((p) => p.name);
    if (needed.length > 0) {
      why(`Its undo playbook, ${undo.name}, needs ${needed.join(", ")}, which have no default: run it from "Run a playbook" instead.`);
      continue;
    }
    const by = undone.get(step.sequence);
    if (by) {
      why(`Undone already by run ${by}.`);
      continue;
    }
    steps.push({ step, undo });
  }
  if (steps.length > 0) return { steps, refusal: null, notOffered };
  if (succeeded.length === 0) return { steps, refusal: "None of its playbooks succeeded: there is nothing to undo.", notOffered };
  const reasons = [...new Set(notOffered.map((n) => n.reason))];
  return { steps, refusal: reasons.length === 1 ? reasons[0]! : `Nothing it did can be undone here: ${reasons.join(" ")}`, notOffered };
}

/**
 * The run's steps that earlier undo runs have undone or are undoing, each with the run that does: a
 * step whose undo was denied, cancelled before it ran, or failed can be undone again.
 */
function undoneSequences(undos: readonly GamebookRunRecord[]): Map<number, string> {
  const undone = new Map<number, string>();
  for (const undo of undos) {
    undo.undoOf!.sequences.forEach((original, i) => {
      const step = undo.playbooks.find((p) => p.sequence === i + 1);
      const counts = step !== undefined && (step.status === "Succeeded" || step.status === "Running" || (step.status === "Pending" && !isFinal(undo.status)));
      if (counts && !undone.has(original)) undone.set(original, undo.id);
    });
  }
  return undone;
}

export interface FollowUpRequest {
  workspace: WorkspaceRecord;
  runId: string;
  /** The person asking. */
  requestedBy: RunRequester;
  tracingId: string;
}

/**
 * Retries a failed or partly failed run (409 CONFLICT otherwise, and while an earlier retry of it
 * has not ended): a new run of its failed and skipped playbooks, on the same entities with the same
 * parameters, resequenced 1..N, `isRetryGamebook`, linked to it, through the approval policy like any
 * run. Its id derives from the run and how many retries came before, so two people retrying at once
 * make one retry (the second is 409).
 */
export async function retryRun(ctx: Uses<"actor" | "events" | "now" | "playbookActions" | "sources" | "stores">, request: FollowUpRequest): Promise<GamebookRunRecord> {
  const { run, others } = await runAndOthers(ctx, request);
  const { retries } = followUpsOf(run, others);
  const refusal = retryRefusal(run, retries);
  if (refusal) throw new ApiError("CONFLICT", refusal, { target: "runId" });
  const playbooks = retriedPlaybooks(run);
  const link: RunLink = { runId: run.id, sequences: playbooks.map((p) => p.sequence) };
  return submitFollowUp(ctx, request, run, `retry/${retries.length + 1}`, {
    playbooks: playbooks.map((p, i) => ({ id: p.referenceId, sequence: i + 1, entityId: p.entityId, parameters: { ...p.parameters } })),
    link: { retryOf: link },
  });
}

/**
 * Undoes what a run did: a new run of the catalogue's undo playbooks of its succeeded steps (all that
 * can be, or those of `sequences`), on the same entities, in reverse order, `isRecover`, linked to it.
 * A run that has not ended, or with nothing to undo, is 409 CONFLICT saying why; a chosen step that
 * cannot be undone is 400 at `sequences[i]`.
 */
export async function undoRun(
  ctx: Uses<"actor" | "events" | "now" | "playbookActions" | "sources" | "stores">,
  request: FollowUpRequest & { sequences?: readonly number[] },
): Promise<GamebookRunRecord> {
  const { run, others } = await runAndOthers(ctx, request);
  const { undos } = followUpsOf(run, others);
  const catalogue = await catalogueOf(ctx, request.workspace.id);
  const offer = undoOffer(run, catalogue, undos);
  if (!isFinal(run.status)) throw new ApiError("CONFLICT", offer.refusal!, { target: "runId" });
  let chosen = offer.steps;
  if (request.sequences) {
    const errors: FieldErrors = {};
    request.sequences.forEach((sequence, i) => {
      if (offer.steps.some((s) => s.step.sequence === sequence)) return;
      const known = run.playbooks.find((p) => p.sequence === sequence);
      const reason = !known
        ? "The run has no playbook with this sequence."
        : known.status !== "Succeeded"
          ? `${known.name} did not succeed (${known.status}): there is nothing to undo.`
          : (offer.notOffered.find((n) => n.sequence === sequence)?.reason ?? "It cannot be undone.");
      errors[`sequences[${i}]`] = [reason];
    });
    const fields = Object.keys(errors);
    if (fields.length > 0) throw new ApiError("VALIDATION_ERROR", `These steps cannot be undone: ${fields.join(", ")}.`, { errors, target: fields.length === 1 ? fields[0] : undefined });
    const wanted = new Set(request.sequences);
    chosen = offer.steps.filter((s) => wanted.has(s.step.sequence));
  } else if (chosen.length === 0) {
    throw new ApiError("CONFLICT", offer.refusal!, { target: "runId" });
  }
  // Undone in reverse: what was done last is taken back first (release the host before re-enabling its user).
  const reversed = [...chosen].sort((a, b) => b.step.sequence - a.step.sequence);
  return submitFollowUp(ctx, request, run, `undo/${undos.length + 1}`, {
    playbooks: reversed.map((s, i) => ({ id: s.undo.id, sequence: i + 1, entityId: s.step.entityId, parameters: {} })),
    link: { undoOf: { runId: run.id, sequences: reversed.map((s) => s.step.sequence) } },
    catalogue,
  });
}

async function runAndOthers(ctx: Uses<"stores">, request: FollowUpRequest): Promise<{ run: GamebookRunRecord; others: GamebookRunRecord[] }> {
  const found = await ctx.stores.gamebookRuns.get(request.workspace.id, request.runId);
  if (!found) throw notFound("The gamebook run", "runId");
  const run = found.value;
  const others = await ctx.stores.gamebookRuns.listForIncident(request.workspace.id, run.incidentId, run.source, FOLLOW_UP_SCAN_LIMIT);
  return { run, others };
}

async function submitFollowUp(
  ctx: Uses<"actor" | "events" | "now" | "playbookActions" | "sources" | "stores">,
  request: FollowUpRequest,
  run: GamebookRunRecord,
  kind: string,
  made: { playbooks: RunGamebookRequest["playbooks"]; link: { retryOf: RunLink } | { undoOf: RunLink }; catalogue?: PlaybookCatalogueRecord },
): Promise<GamebookRunRecord> {
  const runId = derivedGuid(`gamebook-run/${kind}/${request.workspace.id}/${run.id}`);
  try {
    return await submitRun(ctx, {
      workspace: request.workspace,
      request: { incidentId: run.incidentId, incidentTitle: run.incidentTitle, source: run.source, playbooks: made.playbooks, isQueued: false },
      tracingId: request.tracingId,
      runId,
      requestedBy: request.requestedBy,
      catalogue: made.catalogue,
      ...made.link,
    });
  } catch (error) {
    // Someone else made the same follow-up a moment before (the same derived id).
    if (isApiError(error) && error.code === "CONFLICT" && error.target !== "runId") {
      throw new ApiError("CONFLICT", `Someone else has just made a ${kind.split("/")[0]} of this run (run ${runId}): read the run again to see what is left to ${kind.split("/")[0]}.`, { target: "runId" });
    }
    throw error;
  }
}

/** A run's status in words: "waiting for approval", "dispatched", or the status. */
export function describeStatus(run: Pick<GamebookRunRecord, "status" | "isQueued">): string {
  if (run.status === "Pending") return run.isQueued ? "waiting for approval" : "dispatched";
  return run.status === "PartiallySucceeded" ? "partly succeeded" : run.status.toLowerCase();
}
