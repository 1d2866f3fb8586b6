import { z } from "zod";
import { personWorkspaceRoute } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import type { Uses } from "../../../domain/operation-context";
import { classifications } from "../../../model/incidents/incident";
import { webhookStatuses } from "../../../model/webhooks/webhook";
import { DEFAULT_AGENT_NAME, setAgentConfiguration } from "../../../domain/incidents/agent-investigations";
import type { AgentConfigurationRecord } from "../../../model/incidents/agent-configuration";
import { EXAMPLE_WEBHOOK_ID, EXAMPLE_WORKSPACE_ID } from "../../../platform/http/examples";

const tag = "Portal: agents";
const EVENT_TYPE = "agent.investigation.completed.v1";

const params = z.strictObject({ workspaceId: z.guid().describe("The workspace's id.").meta({ examples: [EXAMPLE_WORKSPACE_ID] }) });

const cardInput = z.strictObject({
  classification: z.enum(classifications),
  webhookIds: z.array(z.guid()).max(20).describe("The webhooks that hear of an investigation ending in this classification."),
});

const exampleCards = [{ classification: "TruePositive", webhookIds: [EXAMPLE_WEBHOOK_ID] }];

const configurationBody = z
  .strictObject({
    agentName: z.string().trim().min(1).max(200).default(DEFAULT_AGENT_NAME).describe("The agent's name, as the events carry it."),
    cards: z.array(cardInput).max(classifications.length).describe("At most one card per classification; a classification without one sends nothing."),
  })
  .meta({ examples: [{ agentName: DEFAULT_AGENT_NAME, cards: exampleCards }] });

const configurationView = z
  .object({
    workspaceId: z.guid(),
    agentName: z.string(),
    cards: z.array(
      z.object({
        classification: z.enum(classifications),
        webhookIds: z.array(z.string()),
        webhooks: z
          .array(
            z.object({
              id: z.string(),
              name: z.string().nullable(),
              status: z.enum(webhookStatuses).nullable(),
              subscribed: z.boolean().nullable().describe(`Whether it subscribes to ${EVENT_TYPE}: one that does not is recorded Failed and sent nothing.`),
            }),
          )
          .describe("`webhookIds` as they stand now; name, status and subscribed are null for a webhook removed since, or outside your organization."),
      }),
    ),
    updatedAt: z.string().nullable().describe("null while the workspace has no configuration."),
  })
  .meta({
    examples: [
      {
        workspaceId: EXAMPLE_WORKSPACE_ID,
        agentName: DEFAULT_AGENT_NAME,
        cards: [{ classification: "TruePositive", webhookIds: [EXAMPLE_WEBHOOK_ID], webhooks: [{ id: EXAMPLE_WEBHOOK_ID, name: "SOAR incident intake", status: "Active", subscribed: false }] }],
        updatedAt: "2026-03-02T09:00:00.000Z",
      },
    ],
  });

/** The configuration as the portal shows it: each bound webhook as it stands, if the person may see it. */
async function viewOf(ctx: Uses<"stores">, workspaceId: string, record: AgentConfigurationRecord | undefined, visibleAccountIds: readonly string[]) {
  const ids = [...new Set(record?.cards.flatMap((c) => c.webhookIds) ?? [])];
  const found = await Promise.all(ids.map((id) => ctx.stores.webhooks.get(id)));
  const webhooks = new Map(found.flatMap((w) => (w && visibleAccountIds.includes(w.value.targetAccountId) ? [[w.value.id, w.value] as const] : [])));
  return {
    workspaceId,
    agentName: record?.agentName ?? DEFAULT_AGENT_NAME,
    cards: (record?.cards ?? []).map((card) => ({
      classification: card.classification,
      webhookIds: card.webhookIds,
      webhooks: card.webhookIds.map((id) => {
        const webhook = webhooks.get(id);
        return { id, name: webhook?.name ?? null, status: webhook?.status ?? null, subscribed: webhook ? webhook.eventTypes.includes(EVENT_TYPE) : null };
      }),
    })),
    updatedAt: record?.updatedAt ?? null,
  };
}

/**
 * The investigation agent's classification cards (docs/contract.md §6.2.2): which webhooks hear of an
 * investigation ending in each classification. `AgentAdmin` reads and changes them.
 */
export const portalAgentConfigurationRoutes: RouteGroup = {
  name: "portal-agent-configuration",
  routes: [
    personWorkspaceRoute({
      method: "GET",
      path: "/portal/workspaces/{workspaceId}/agent-configuration",
      responseHeaders: [{ name: "ETag", when: "the workspace has an agent configuration" }],
      summary: "The workspace's agent configuration: per classification, the webhooks its card names",
      description: "With its `ETag`, which `PUT` may send back as `If-Match`. A workspace without one answers the defaults (no cards), without an `ETag`.",
      tag,
      roles: ["AgentAdmin"],
      params,
      response: configurationView,
      async handler(input) {
        const found = await input.stores.agentConfigurations.get(input.workspace.id);
        const data = await viewOf(input, input.workspace.id, found?.value, input.person.organizationAccountIds);
        const headers: Record<string, string> = found ? { ETag: found.etag } : {};
        return { data, headers };
      },
    }),
    personWorkspaceRoute({
      method: "PUT",
      path: "/portal/workspaces/{workspaceId}/agent-configuration",
      responseHeaders: ["ETag"],
      ifMatch: true,
      summary: "Set the workspace's agent configuration",
      description:
        `The whole configuration. Checked: one card per classification; every webhook exists in your organization and can receive the workspace's events ` +
        `(the workspace's own account's, or its provider's monitoring it); 400 names \`cards[i].webhookIds[j]\`. A webhook already on a card stays allowed. ` +
        `A webhook need not subscribe to ${EVENT_TYPE} to be bound (its deliveries are then recorded Failed): the answer says which do. Audited with what ` +
        "changed. Optional `If-Match` with the `ETag` of `GET` (409 when it changed since).",
      tag,
      roles: ["AgentAdmin"],
      params,
      body: configurationBody,
      response: configurationView,
      problems: ["CONFLICT"],
      async handler(input) {
        const { workspace, person } = input;
        const saved = await setAgentConfiguration(input, workspace, input.body, { ifMatch: input.header("if-match"), visibleAccountIds: person.organizationAccountIds });
        return { data: await viewOf(input, workspace.id, saved.value, person.organizationAccountIds), headers: { ETag: saved.etag } };
      },
    }),
  ],
};
