import { randomUUID } from "node:crypto";
import { z } from "zod";
import { ApiError, notFound } from "../../platform/errors/api-error";
import type { Uses } from "../operation-context";
import { commit } from "../../platform/store/commit";
import type { Versioned } from "../../platform/store/ports";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { workspaceAudit } from "../organizations/workspace-audit";
import { catalogueOf } from "./gamebook-settings";
import type { PreAuthorizationRecord, RunPreAuthorization } from "../../model/gamebooks/pre-authorization-record";

export type { PreAuthorizationAct, PreAuthorizationRecord, RunPreAuthorization } from "../../model/gamebooks/pre-authorization-record";

/*
 * Standing pre-authorizations: a workspace's own organization records, with an end date, that
 * certain playbooks may run without asking on the workspace ("isolate hosts without asking until
 * 30 June"). The approval decision applies them to the workspace's own policy (approval-policy.ts):
 * never to the managing provider's partner setting, nor to a caller who asked for approval. They end
 * by themselves, by comparing their end with the time of each submission: no timer. Kept on the
 * workspace record, which every submission has in hand, so applying them costs no read.
 */

/** At most this many kept on a workspace; ended ones are dropped a while after their end first. */
export const MAX_PRE_AUTHORIZATIONS = 50;
/** How long ahead an end date may be: a standing leave is renewed at least yearly. */
const MAX_DAYS_AHEAD = 366;
/** Ended (expired or revoked) ones stay listed this long, then go (the audit trail keeps them). */
const KEEP_ENDED_DAYS = 90;
const DAY_MS = 86_400_000;

/** Whether it applies at `now`: not revoked, and its end still ahead. */
export function inEffect(p: Pick<PreAuthorizationRecord, "revoked" | "endsAt">, now: Date): boolean {
  return p.revoked === null && Date.parse(p.endsAt) > now.getTime();
}

/** `Active`, `Expired` (its end has passed) or `Revoked`, at `now`. */
export function preAuthorizationState(p: PreAuthorizationRecord, now: Date): "Active" | "Expired" | "Revoked" {
  return p.revoked ? "Revoked" : inEffect(p, now) ? "Active" : "Expired";
}

/**
 * The pre-authorization that lets a run of these playbooks through at `now`: one in effect that names
 * every one of them (a run is let through whole or not at all, so the card can name what let it),
 * the one ending last when several do. Null when none does.
 */
export function preAuthorizationFor(workspace: Pick<WorkspaceRecord, "preAuthorizations">, playbookIds: readonly string[], now: Date): PreAuthorizationRecord | null {
  const covering = (workspace.preAuthorizations ?? []).filter((p) => inEffect(p, now) && playbookIds.every((id) => p.playbookIds.includes(id)));
  covering.sort((a, b) => b.endsAt.localeCompare(a.endsAt) || a.created.at.localeCompare(b.created.at));
  return covering[0] ?? null;
}

/** What a run keeps of it. */
export function runPreAuthorizationOf(p: PreAuthorizationRecord): RunPreAuthorization {
  return { id: p.id, endsAt: p.endsAt, note: p.note, createdBy: { userId: p.created.byUserId, name: p.created.byName } };
}

export const preAuthorizationInput = z.strictObject({
  playbookIds: z
    .array(z.guid())
    .min(1)
    .max(50)
    .describe("The workspace's catalogue playbooks that may run without asking (their ids); a run is let through when it runs only these."),
  endsAt: z.iso.datetime({ offset: true }).describe(`When it stops applying: a time ahead, at most ${MAX_DAYS_AHEAD} days away.`),
  note: z.string().trim().min(1).max(500).optional().describe("Why, in a sentence: shown with it and on the runs it lets through."),
});

export type PreAuthorizationInput = z.output<typeof preAuthorizationInput>;

/**
 * Records a pre-authorization on the workspace, audited (`PreAuthorization`, Create) in the same
 * commit. Each playbook must be in the workspace's catalogue (400 at `playbookIds[i]`); the end must
 * be ahead and within a year (400 at `endsAt`). Who may is the route's to say.
 */
export async function createPreAuthorization(
  ctx: Uses<"actor" | "events" | "now" | "stores">,
  workspace: WorkspaceRecord,
  input: PreAuthorizationInput,
  by: { userId: string; name: string },
  /** A chosen id (the demo seed's, so that a restart records nothing twice); default a fresh GUID. */
  id: string = randomUUID(),
): Promise<{ record: PreAuthorizationRecord; workspace: Versioned<WorkspaceRecord> }> {
  const now = ctx.now();
  const ends = Date.parse(input.endsAt);
  if (!(ends > now.getTime())) throw fieldProblem("endsAt", "The end must be ahead: a pre-authorization that has ended lets nothing through.");
  if (ends > now.getTime() + MAX_DAYS_AHEAD * DAY_MS) throw fieldProblem("endsAt", `The end may be at most ${MAX_DAYS_AHEAD} days ahead: record it again to renew it.`);
  const catalogue = await catalogueOf(ctx, workspace.id);
  const known = new Set(catalogue.playbooks.map((p) => p.id));
  const ids = input.playbookIds.map((id) => id.toLowerCase());
  ids.forEach((id, i) => {
    if (!known.has(id)) throw fieldProblem(`playbookIds[${i}]`, "Not a playbook of the workspace's catalogue.");
    if (ids.indexOf(id) !== i) throw fieldProblem(`playbookIds[${i}]`, "Named twice.");
  });
  const record: PreAuthorizationRecord = {
    id,
    playbookIds: ids,
    endsAt: new Date(ends).toISOString(),
    note: input.note ?? null,
    created: { at: now.toISOString(), byUserId: by.userId, byName: by.name },
    revoked: null,
  };
  const saved = await change(ctx, workspace.id, (draft) => {
    const kept = (draft.preAuthorizations ?? []).filter((p) => !endedLongAgo(p, now));
    if (kept.length >= MAX_PRE_AUTHORIZATIONS) {
      throw new ApiError("CONFLICT", `The workspace holds ${MAX_PRE_AUTHORIZATIONS} pre-authorizations: revoke one first.`, { target: "workspaceId" });
    }
    draft.preAuthorizations = [...kept, record];
    return workspaceAudit(ctx, draft, "PreAuthorization", "Create", { preAuthorization: record, playbooks: namesOf(catalogue.playbooks, ids) });
  });
  return { record, workspace: saved };
}

/**
 * Revokes one, audited (`PreAuthorization`, Delete): it stays listed, revoked. 404 for an unknown id;
 * 409 for one revoked already or past its end (nothing left to stop).
 */
export async function revokePreAuthorization(
  ctx: Uses<"actor" | "events" | "now" | "stores">,
  workspace: WorkspaceRecord,
  id: string,
  by: { userId: string; name: string },
): Promise<PreAuthorizationRecord> {
  let revoked: PreAuthorizationRecord | undefined;
  await change(ctx, workspace.id, (draft) => {
    const now = ctx.now();
    const found = (draft.preAuthorizations ?? []).find((p) => p.id === id.toLowerCase());
    if (!found) throw notFound("The pre-authorization", "preAuthorizationId");
    if (!inEffect(found, now)) throw new ApiError("CONFLICT", `The pre-authorization is ${preAuthorizationState(found, now).toLowerCase()} already.`, { target: "preAuthorizationId" });
    revoked = { ...found, revoked: { at: now.toISOString(), byUserId: by.userId, byName: by.name } };
    draft.preAuthorizations = draft.preAuthorizations!.map((p) => (p.id === found.id ? revoked! : p));
    return workspaceAudit(ctx, draft, "PreAuthorization", "Delete", { preAuthorization: revoked });
  });
  return revoked!;
}

/** One change of the workspace record with its audit event, on a fresh read (a lost race runs again). */
function change(
  ctx: Uses<"actor" | "events" | "now" | "stores">,
  workspaceId: string,
  apply: (draft: WorkspaceRecord) => ReturnType<typeof workspaceAudit>,
): Promise<Versioned<WorkspaceRecord>> {
  return commit({
    deadline: ctx.deadline,
    read: async () => {
      const found = await ctx.stores.workspaces.read(workspaceId);
      if (!found || found.value.offboarded) throw notFound("The workspace", "workspaceId");
      return found;
    },
    change: (draft) => [apply(draft)],
    write: (draft, etag, outbox) => ctx.stores.workspaces.replace(draft, etag!, outbox),
    outbox: ctx.events.outbox,
  });
}

function endedLongAgo(p: PreAuthorizationRecord, now: Date): boolean {
  const ended = p.revoked ? Date.parse(p.revoked.at) : Date.parse(p.endsAt);
  return !inEffect(p, now) && ended < now.getTime() - KEEP_ENDED_DAYS * DAY_MS;
}

function namesOf(playbooks: readonly { id: string; name: string }[], ids: readonly string[]): string[] {
  return ids.map((id) => playbooks.find((p) => p.id === id)?.name ?? id);
}

function fieldProblem(field: string, message: string): ApiError {
  return new ApiError("VALIDATION_ERROR", message, { target: field, errors: { [field]: [message] } });
}
