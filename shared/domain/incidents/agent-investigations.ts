import { randomUUID } from "node:crypto";
import { eventRecord } from "../../platform/events/event-record";
import type { Uses } from "../../platform/operation-context";
import type { Classification } from "../../systems/vendors/port";
import type { Source } from "../sources";
import { outboxScope } from "../../platform/store/outbox-scope";
import type { AgentConfigurationRecord } from "./agent-configuration";
import type { WorkspaceRecord } from "../organizations/workspace";

export interface InvestigationResult {
  workspace: WorkspaceRecord;
  source: Source;
  incidentId: string;
  classification: Classification;
  /** 0–100, high is more malicious; null on the legacy agent path. */
  maliciousScore: number | null;
  summary: string | null;
}

/**
 * An agent investigation completed (contract 6.1, 6.2.2): when the workspace's agent configuration
 * has a card for the classification naming webhooks, `agent.investigation.completed.v1` goes to those
 * webhooks — each only if it also subscribes to the type; one bound but not subscribed gets a Failed
 * delivery record. Without such a card nothing is sent. The id comes from the investigation, so a
 * repeat of the same completion is the same event.
 */
export async function completeInvestigation(ctx: Uses<"events" | "now" | "sources" | "stores">, input: InvestigationResult): Promise<{ investigationId: string; eventId: string | null; webhookIds: string[] }> {
  const { workspace } = input;
  const incident = await ctx.sources.gateway(input.source).getIncident(workspace.id, input.incidentId);
  const configuration = await ctx.stores.agentConfigurations.get(workspace.id);
  const card = configuration?.cards.find((c) => c.classification === input.classification);
  const investigationId = randomUUID();
  if (!configuration || !card || card.webhookIds.length === 0) return { investigationId, eventId: null, webhookIds: [] };

  const completedAt = ctx.now().toISOString();
  const record = eventRecord(
    "agent.investigation.completed.v1",
    {
      scope: outboxScope.workspace(workspace.id),
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
      sourceDisplayName: incident.source,
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
  );
  await ctx.events.outbox.record([record]);
  const eventId = record.message.envelope.id;
  return { investigationId, eventId, webhookIds: card.webhookIds };
}

export function agentConfiguration(workspaceId: string, agentName: string, cards: AgentConfigurationRecord["cards"], now: Date): AgentConfigurationRecord {
  return {
    id: workspaceId,
    workspaceId,
    agentName,
    cards: cards.map((c) => ({ classification: c.classification, webhookIds: c.webhookIds.map((id) => id.toLowerCase()) })),
    updatedAt: now.toISOString(),
  };
}
