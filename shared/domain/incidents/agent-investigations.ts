import { randomUUID } from "node:crypto";
import { ApiError, type FieldErrors } from "../../platform/errors/api-error";
import { auditRecord } from "../../platform/events/audit-record";
import { eventRecord } from "../../platform/events/event-record";
import type { Uses } from "../operation-context";
import { commit } from "../../platform/store/commit";
import type { Versioned } from "../../platform/store/ports";
import type { Classification } from "../../model/incidents/incident";
import { sourceDisplayName, type Source } from "../../model/sources";
import { outboxScope } from "../../platform/store/outbox-scope";
import { AGENT_CONFIGURATION_ID, type AgentConfigurationRecord } from "../../model/incidents/agent-configuration";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import type { WebhookRecord } from "../../model/webhooks/webhook";

/** The agent's name in events when the workspace's configuration names none. */
export const DEFAULT_AGENT_NAME = "Triage agent";

export interface InvestigationResult {
  workspace: WorkspaceRecord;
  source: Source;
  incidentId: string;
  classification: Classification;
  /** 0–100, high is more malicious; null on the legacy agent path. */
  maliciousScore: number | null;
  summary: string | null;
  /**
   * The agent's own id for the investigation, so that reporting it again (after a timeout, say) is
   * the same event; a fresh one when the agent gives none.
   */
  investigationId?: string;
}

/**
 * An agent investigation completed (docs/contract.md §6.1, §6.2.2): when the workspace's agent configuration
 * has a card for the classification naming webhooks, `agent.investigation.completed.v1` goes to those
 * webhooks — each only if it also subscribes to the type; one bound but not subscribed gets a Failed
 * delivery record. Without such a card nothing is sent. The event id comes from the investigation, so
 * a repeat of the same completion is the same event. The report itself joins the workspace's audit
 * trail, event or not, with the actor who made it (the agent's service account).
 */
export async function completeInvestigation(
  ctx: Uses<"actor" | "events" | "now" | "sources" | "stores">,
  input: InvestigationResult,
): Promise<{ investigationId: string; eventId: string | null; webhookIds: string[] }> {
  const { workspace } = input;
  const incident = await ctx.sources.gateway(input.source).getIncident(workspace.id, input.incidentId, ctx.signal);
  const configuration = (await ctx.stores.agentConfigurations.get(workspace.id))?.value;
  const card = configuration?.cards.find((c) => c.classification === input.classification);
  const investigationId = input.investigationId?.toLowerCase() ?? randomUUID();
  const now = ctx.now();
  const completedAt = now.toISOString();
  const scope = outboxScope.workspace(workspace.id);
  const event =
    configuration && card && card.webhookIds.length > 0
      ? eventRecord(
          "agent.investigation.completed.v1",
          {
            scope,
            accountId: workspace.accountId,
            occurredAt: completedAt,
            subject: `${workspace.id}/investigation/${investigationId}`,
            incident: { workspaceId: workspace.id, source: incident.source, incidentId: incident.id },
            routing: { boundWebhookIds: card.webhookIds },
          },
          {
            investigationId,
            incidentId: incident.id,
            source: incident.source.toLowerCase(),
            sourceDisplayName: sourceDisplayName(incident.source),
            workspaceId: workspace.id,
            accountId: workspace.accountId,
            incidentNumber: incident.number,
            title: incident.title,
            severity: incident.severity,
            agentName: configuration.agentName,
            completedAt,
            classificationBucket: input.classification,
            // The key is always there: null on the legacy path, which has no score.
            verdict: { maliciousScore: input.maliciousScore, summary: input.summary },
          },
        )
      : undefined;
  const eventId = event ? event.message.envelope.id : null;
  const webhookIds = event ? card!.webhookIds : [];
  const audit = auditRecord(
    ctx.actor,
    {
      activityType: "AgentInvestigation",
      activityAction: "Create",
      targetResourceType: "Incident",
      targetResourceId: incident.id,
      targetResourceName: incident.title,
      metadata: { investigationId, source: incident.source, classification: input.classification, maliciousScore: input.maliciousScore, eventId, webhookIds },
      workspaceId: workspace.id,
      accountId: workspace.accountId,
    },
    scope,
    now,
  );
  await ctx.events.outbox.record(event ? [event, audit] : [audit], ctx.deadline);
  return { investigationId, eventId, webhookIds };
}

/** What an agent configuration is set to: the agent's name and one card per classification. */
export interface AgentConfigurationChange {
  agentName: string;
  cards: { classification: Classification; webhookIds: string[] }[];
}

export interface AgentConfigurationOptions {
  /** The caller's `If-Match`: the version they read (409 when it is no longer current). */
  ifMatch?: string;
  /**
   * The accounts whose webhooks the caller may bind (a person's organization). A webhook already on a
   * card stays allowed, so that someone with a narrower view can change the rest without losing it.
   * Absent: any webhook that can receive the workspace's events.
   */
  visibleAccountIds?: readonly string[];
}

/**
 * Sets a workspace's agent configuration (the portal's agent settings),
 * audited in the same commit. Each classification has at most one card; every webhook a card names
 * must exist and be able to receive the workspace's events (docs/contract.md §6.2.1: the workspace's own
 * account's, or its provider's monitoring it), else 400 naming `cards[i].webhookIds[j]`. A webhook
 * need not subscribe to `agent.investigation.completed.v1`: docs/contract.md §6.2.2 records such a delivery
 * as Failed, which is how an operator learns the subscription is missing.
 */
export async function setAgentConfiguration(
  ctx: Uses<"actor" | "events" | "now" | "stores">,
  workspace: WorkspaceRecord,
  change: AgentConfigurationChange,
  options: AgentConfigurationOptions = {},
): Promise<Versioned<AgentConfigurationRecord>> {
  const { stores } = ctx;
  const providerId = (await stores.accounts.get(workspace.accountId))?.managedByAccountId ?? null;
  const wanted = [...new Set(change.cards.flatMap((c) => c.webhookIds.map((id) => id.toLowerCase())))];
  const webhooks = new Map((await Promise.all(wanted.map((id) => stores.webhooks.get(id)))).flatMap((w) => (w ? [[w.value.id, w.value] as const] : [])));
  const now = ctx.now();
  let existed = false;
  return commit({
    deadline: ctx.deadline,
    async read() {
      const found = await stores.agentConfigurations.get(workspace.id);
      existed = found !== undefined;
      return found ?? { value: agentConfiguration(workspace.id, DEFAULT_AGENT_NAME, [], now), etag: null };
    },
    ifMatch: options.ifMatch,
    change(draft) {
      const alreadyBound = new Set(draft.cards.flatMap((c) => c.webhookIds));
      const errors = configurationProblems(change, (id) => bindingProblem(webhooks.get(id), workspace, providerId, options.visibleAccountIds, alreadyBound.has(id)));
      const fields = Object.keys(errors);
      if (fields.length > 0) {
        throw new ApiError("VALIDATION_ERROR", `The agent configuration has invalid fields: ${fields.join(", ")}.`, { errors, target: fields.length === 1 ? fields[0] : undefined });
      }
      const before = { agentName: draft.agentName, cards: draft.cards };
      const next = agentConfiguration(workspace.id, change.agentName, change.cards, now);
      Object.assign(draft, next);
      return [
        auditRecord(
          ctx.actor,
          {
            activityType: "AgentConfiguration",
            activityAction: existed ? "Update" : "Create",
            targetResourceType: "Workspace",
            targetResourceId: workspace.id,
            targetResourceName: workspace.name,
            metadata: { before, after: { agentName: next.agentName, cards: next.cards } },
            workspaceId: workspace.id,
            accountId: workspace.accountId,
          },
          outboxScope.workspace(workspace.id),
          now,
        ),
      ];
    },
    write: (draft, etag, outbox) => (etag === null ? stores.agentConfigurations.create(draft, outbox) : stores.agentConfigurations.replace(draft, etag, outbox)),
    outbox: ctx.events.outbox,
  });
}

/** Every problem of a configuration, keyed by where it is: a classification twice, a webhook twice on a card, a webhook that cannot be bound. */
function configurationProblems(change: AgentConfigurationChange, webhookProblem: (id: string) => string | null): FieldErrors {
  const errors: FieldErrors = Object.create(null) as FieldErrors;
  const add = (path: string, message: string) => (errors[path] ??= []).push(message);
  const classifications = new Set<Classification>();
  change.cards.forEach((card, i) => {
    if (classifications.has(card.classification)) add(`cards[${i}].classification`, `${card.classification} has a card already: one card per classification.`);
    classifications.add(card.classification);
    const seen = new Set<string>();
    card.webhookIds.forEach((raw, j) => {
      const id = raw.toLowerCase();
      if (seen.has(id)) return add(`cards[${i}].webhookIds[${j}]`, "Named twice on this card.");
      seen.add(id);
      const problem = webhookProblem(id);
      if (problem) add(`cards[${i}].webhookIds[${j}]`, problem);
    });
  });
  return errors;
}

/** Why a webhook cannot be bound on the workspace's cards, or null when it can. */
function bindingProblem(
  webhook: WebhookRecord | undefined,
  workspace: WorkspaceRecord,
  providerId: string | null,
  visibleAccountIds: readonly string[] | undefined,
  alreadyBound: boolean,
): string | null {
  // Another organization's webhook is answered as one that does not exist: ids are not confirmed.
  const visible = webhook && (alreadyBound || visibleAccountIds === undefined || visibleAccountIds.includes(webhook.targetAccountId));
  if (!webhook || !visible) return "No webhook of your organization has this id.";
  if (webhook.targetAccountId === workspace.accountId) return null;
  if (webhook.targetAccountId !== providerId) return `${webhook.name} belongs to an account that does not receive this workspace's events.`;
  if (webhook.monitoredAccountIds.length > 0 && !webhook.monitoredAccountIds.includes(workspace.accountId)) {
    return `${webhook.name} monitors other accounts only (monitoredAccountIds): add this workspace's account to it first.`;
  }
  return null;
}

export function agentConfiguration(workspaceId: string, agentName: string, cards: AgentConfigurationRecord["cards"], now: Date): AgentConfigurationRecord {
  return {
    id: AGENT_CONFIGURATION_ID,
    docType: "agentConfiguration",
    workspaceId,
    agentName,
    cards: cards.map((c) => ({ classification: c.classification, webhookIds: c.webhookIds.map((id) => id.toLowerCase()) })),
    updatedAt: now.toISOString(),
  };
}
