import { isApiError } from "../../platform/errors/api-error";
import type { OutboxMessageRecordFor } from "../../platform/events/outbox-record";
import { derivedGuid } from "../../platform/ids/derived-guid";
import { serviceActor, type Actor } from "../../platform/actor";
import type { Uses } from "../operation-context";
import { queueNames } from "../../platform/queue/queue-names";
import { outboxScope } from "../../platform/store/outbox-scope";
import type { VendorIncident } from "../../model/incidents/incident";
import type { AutoRunMessage } from "../../model/gamebooks/gamebook-run";
import { catalogueOf } from "./gamebook-settings";
import { actsOn } from "./playbook-catalogue";
import type { CataloguePlaybook, PlaybookCatalogueRecord } from "../../model/gamebooks/playbook-catalogue-record";
import { ruleMatches } from "./playbook-rules";
import { MAX_RUN_PLAYBOOKS, type RunGamebookRequest } from "./run-request";
import { submitRun } from "./run-submission";

/*
 * Automation rules (`autoRun` on a playbook rule): the service runs the rule's playbooks by itself
 * on a new incident whose title matches, as Microsoft Sentinel's automation rules run a playbook on
 * incident creation. The trigger is the incident's arrival as the reconciler ingests it (its
 * `incident.created.v1`), never an incident that was there at the baseline. The arrival commits an
 * `autoRun` message on the `gamebook-runs` queue with the incident's state (only when a rule
 * matches), so no arrival loses its run; the queue's handler submits one run, `isAutoRun`, requested
 * by the service ("Automation rule"), through the approval policy like any run, under an id derived
 * from the incident, so a redelivered message finds its run made and submits nothing twice.
 */

/** The name the service asks under for an automation rule's run (its requester, its audit events). */
export const AUTOMATION_RULE_NAME = "Automation rule";
/** An automation rule's playbook acts on at most this many of the incident's entities of its kind. */
export const MAX_AUTO_RUN_ENTITIES = 10;

/** Who an automation rule's run is asked by: the service itself, on the workspace's account. */
export function automationRuleActor(accountId: string): Actor {
  return { ...serviceActor("gamebook", AUTOMATION_RULE_NAME), accountId };
}

/** Whether a playbook can run without a person choosing its parameters: every required one has a default. */
export function runsUnattended(playbook: Pick<CataloguePlaybook, "parameters">): boolean {
  return playbook.parameters.every((p) => !p.required || p.default !== undefined);
}

/**
 * The run the workspace's automation rules make for an incident, or null when none applies: the
 * playbooks of the matching rules marked `autoRun` (most specific pattern first, each playbook once),
 * each on every incident entity of its kind (at most `MAX_AUTO_RUN_ENTITIES`; a playbook on the
 * incident itself once), with the declared defaults, at most `MAX_RUN_PLAYBOOKS` steps. A playbook
 * switched off, with a required parameter that has no default, or with no entity to act on is left
 * out.
 */
export function autoRunRequest(catalogue: PlaybookCatalogueRecord, incident: Pick<VendorIncident, "id" | "source" | "title" | "entities">): RunGamebookRequest | null {
  const seen = new Set<string>();
  const playbooks: RunGamebookRequest["playbooks"] = [];
  for (const match of ruleMatches(catalogue.rules, catalogue.playbooks, incident.title)) {
    const playbook = match.playbook;
    if (!match.definition.autoRun || seen.has(playbook.id) || !runsUnattended(playbook)) continue;
    seen.add(playbook.id);
    const targets = playbook.entityType === "Incident" ? [incident.id] : incident.entities.filter((e) => actsOn(playbook, e)).slice(0, MAX_AUTO_RUN_ENTITIES).map((e) => e.id);
    for (const entityId of targets) {
      if (playbooks.length >= MAX_RUN_PLAYBOOKS) break;
      playbooks.push({ id: playbook.id, sequence: playbooks.length + 1, entityId, parameters: {} });
    }
  }
  if (playbooks.length === 0) return null;
  return { incidentId: incident.id, incidentTitle: incident.title, source: incident.source, playbooks, isQueued: false };
}

/** The id of the automation rules' run on an incident: one per incident, whatever delivers its message. */
export function autoRunId(workspaceId: string, incident: Pick<VendorIncident, "source" | "id">): string {
  return derivedGuid(`gamebook-run/auto-run/${workspaceId}/${incident.source}/${incident.id}`);
}

/** The `autoRun` message an incident's arrival commits with its state when an automation rule matches it. */
export function autoRunMessageRecord(workspaceId: string, incident: Pick<VendorIncident, "source" | "id">, at: string): OutboxMessageRecordFor<"gamebook-runs"> {
  const messageId = `gamebook-auto-run/${autoRunId(workspaceId, incident)}`;
  return {
    id: `outbox-${messageId.replaceAll("/", "-")}`,
    docType: "outbox",
    kind: "message",
    scope: outboxScope.workspace(workspaceId),
    createdAt: at,
    publishedAt: null,
    queue: queueNames.gamebookRuns,
    message: { messageId, body: { kind: "autoRun", workspaceId, source: incident.source, incidentId: incident.id } },
  };
}

/**
 * The `autoRun` message's handling: the incident as its source holds it now and the catalogue as it
 * is now make the run (rules changed since the arrival are honoured; none left, nothing runs). A run
 * made already (a redelivery) is the answer; so is a refusal that will not change by trying again (the
 * incident gone, a playbook no longer runnable, automation not enabled), which is logged. A system
 * that cannot be reached throws, and the message is delivered again.
 */
export async function submitAutoRun(ctx: Uses<"events" | "logger" | "now" | "playbookActions" | "sources" | "stores">, message: AutoRunMessage): Promise<"submitted" | "exists" | "nothing" | "refused"> {
  const workspace = await ctx.stores.workspaces.get(message.workspaceId);
  if (!workspace) return "nothing";
  const runId = autoRunId(workspace.id, { source: message.source, id: message.incidentId });
  if (await ctx.stores.gamebookRuns.get(workspace.id, runId)) return "exists";
  try {
    const incident = await ctx.sources.gateway(message.source).getIncident(workspace.id, message.incidentId);
    const catalogue = await catalogueOf(ctx, workspace.id);
    const request = autoRunRequest(catalogue, incident);
    if (!request) return "nothing";
    await submitRun(
      { ...ctx, actor: automationRuleActor(workspace.accountId) },
      { workspace, request, incident, catalogue, runId, tracingId: runId, isAutoRun: true },
    );
    return "submitted";
  } catch (error) {
    if (!isApiError(error)) throw error;
    if (error.code === "CONFLICT") return "exists";
    if (error.code === "TIMEOUT" || error.code === "UPSTREAM_ERROR" || error.code === "RATE_LIMITED" || error.code === "INTERNAL_ERROR") throw error;
    ctx.logger.warn("automation rule run refused", { ...message, code: error.code, error: error.message });
    return "refused";
  }
}
