import { useState } from "preact/hooks";
import { api } from "../api/client";
import { hasRole, useMe } from "../session";
import { Badge, Empty, Notice, PageHeader, ProblemBanner, Time, readThenClose, useResource } from "../ui";
import { withEtag } from "../etag";
import { useWorkspaceChoice, type Workspace } from "../ui/workspace-select";
import { Card, BoundWebhook, CLASSIFICATIONS, EVENT_TYPE, readOrganizationWebhooks } from "./agent-configuration";
import { ConfigurationEditor } from "./configuration-editor";

/**
 * The investigation agent's classification cards: per classification an investigation can end in,
 * the webhooks that hear of it. `AgentAdmin` (and `Admin`) reads and changes them.
 */
export function AgentsPage() {
  const me = useMe();
  const { workspace, picker } = useWorkspaceChoice();
  const allowed = hasRole(me, ["AgentAdmin"]);
  return (
    <section>
      <PageHeader title="Agent classification cards" />
      <p class="lead">
        When the investigation agent ends an investigation, the card of its classification names the webhooks that hear of it (<code>{EVENT_TYPE}</code>). A classification without a card sends
        nothing.
      </p>
      {!allowed ? (
        <Notice>The agent configuration is for agent administrators; your role is {me.organizationalRole}.</Notice>
      ) : (
        <>
          {picker}
          {workspace && <AgentConfiguration key={workspace.id} workspace={workspace} />}
        </>
      )}
    </section>
  );
}

function AgentConfiguration({ workspace }: { workspace: Workspace }) {
  const path = { workspaceId: workspace.id };
  const configuration = useResource(() => withEtag(api.GET("/api/v2/portal/workspaces/{workspaceId}/agent-configuration", { params: { path } })), [workspace.id]);
  const webhooks = useResource(() => readOrganizationWebhooks().catch(() => undefined), []);
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  const value = configuration.value?.value.data;
  return (
    <>
      <ProblemBanner problem={configuration.problem} title="The agent configuration could not be read" />
      {value && !editing && (
        <>
          <div class="card-header">
            <h2>
              {value.agentName} <span class="muted">in {workspace.name}</span>
            </h2>
            <button
              type="button"
              class="button"
              onClick={() => {
                setEditing(true);
                setSaved(false);
              }}
            >
              Edit the cards
            </button>
          </div>
          <p class="muted">{value.updatedAt ? <>Last changed <Time at={value.updatedAt} />.</> : "Not configured yet: no classification sends anything."}</p>
          {saved && <Notice kind="success">The agent configuration was saved.</Notice>}
          <ul class="grid cards-grid" aria-label="Classification cards">
            {CLASSIFICATIONS.map((c) => (
              <li key={c.value}>
                <ClassificationCard classification={c} card={value.cards.find((x) => x.classification === c.value)} />
              </li>
            ))}
          </ul>
        </>
      )}
      {value && editing && (
        <ConfigurationEditor
          workspace={workspace}
          configuration={value}
          etag={configuration.value?.etag}
          webhooks={webhooks.value ?? undefined}
          onDone={(changed) =>
            readThenClose(changed, configuration.reload, () => {
              setEditing(false);
              if (changed) setSaved(true);
            })
          }
        />
      )}
    </>
  );
}

function webhookTone(w: BoundWebhook): "ok" | "warn" | "bad" | "neutral" {
  if (w.status === null) return "bad";
  if (w.status === "Active") return w.subscribed ? "ok" : "warn";
  return "warn";
}

function ClassificationCard({ classification, card }: { classification: (typeof CLASSIFICATIONS)[number]; card: Card | undefined }) {
  const headingId = `card-${classification.value}`;
  return (
    <article class="card classification" aria-labelledby={headingId} data-classification={classification.value}>
      <header class="card-header">
        <h3 id={headingId}>{classification.label}</h3>
        <Badge tone={card && card.webhookIds.length > 0 ? "ok" : "neutral"}>{card && card.webhookIds.length > 0 ? `${card.webhookIds.length} webhook(s)` : "Sends nothing"}</Badge>
      </header>
      <p class="muted">{classification.meaning}</p>
      {!card || card.webhooks.length === 0 ? (
        <Empty>No webhook hears of this classification.</Empty>
      ) : (
        <ul class="plain webhook-list">
          {card.webhooks.map((w) => (
            <li key={w.id}>
              <strong>{w.name ?? "Unknown webhook"}</strong> <Badge tone={webhookTone(w)}>{w.status ?? "Removed or not yours"}</Badge>
              {w.name === null && (
                <div class="muted">
                  <code>{w.id}</code>
                </div>
              )}
              {w.subscribed === false && <div class="field-error">Not subscribed to {EVENT_TYPE}: its deliveries are recorded Failed and send nothing.</div>}
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}

