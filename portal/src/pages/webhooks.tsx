import { api, call, csrf } from "../api/client";
import type { paths } from "../api/openapi";
import { BASE, Link } from "../router";
import { hasRole, useMe } from "../session";
import { Badge, Empty, PageHeader, ProblemBanner, RefreshButton, TableScroll, Time, useAction, useResource } from "../ui";

type ListEnvelope = paths["/api/v2/portal/webhooks"]["get"]["responses"][200]["content"]["application/json"];
export type WebhookHealthSummary = ListEnvelope["data"][number];
export type StateAction = WebhookHealthSummary["actions"][number];

/** Who may pause, resume, enable and redeliver (the routes' roles; Admin holds every role). */
export const WEBHOOK_OPERATORS = ["WorkspaceAdmin"] as const;

export function statusTone(status: string): "ok" | "warn" | "bad" | "neutral" {
  if (status === "Active") return "ok";
  if (status === "Paused") return "warn";
  if (status === "Disabled") return "bad";
  return "neutral";
}

export function percent(rate: number | null | undefined): string {
  return rate === null || rate === undefined ? "—" : `${(rate * 100).toFixed(rate === 1 ? 0 : 1)}%`;
}

const ACTION_LABELS: Record<StateAction, string> = { pause: "Pause", resume: "Resume", enable: "Enable" };

/** Pause, resume or enable: the buttons a webhook's state allows. */
export function StateButtons(props: { webhookId: string; actions: readonly StateAction[]; onChanged(): void }) {
  const me = useMe();
  const change = useAction(async (action: StateAction) => {
    const path = { webhookId: props.webhookId };
    const request =
      action === "pause"
        ? api.POST("/api/v2/portal/webhooks/{webhookId}/pause", { params: { path, header: csrf() } })
        : action === "resume"
          ? api.POST("/api/v2/portal/webhooks/{webhookId}/resume", { params: { path, header: csrf() } })
          : api.POST("/api/v2/portal/webhooks/{webhookId}/enable", { params: { path, header: csrf() } });
    await call(request);
    props.onChanged();
  });
  if (!hasRole(me, WEBHOOK_OPERATORS)) return null;
  return (
    <>
      {props.actions.map((action) => (
        <button type="button" class={`button${action === "pause" ? " button-secondary" : ""}`} disabled={change.busy} data-action={action} onClick={() => void change.run(action)}>
          {ACTION_LABELS[action]}
        </button>
      ))}
      <ProblemBanner problem={change.problem} title="The webhook's state was not changed" />
    </>
  );
}

/** Every webhook of the organization with its last day's figures, like Svix's and Stripe's endpoint lists. */
export function WebhooksPage() {
  const list = useResource(async () => (await call(api.GET("/api/v2/portal/webhooks"))).data, []);
  return (
    <section>
      <PageHeader title="Webhooks">
        <RefreshButton busy={list.loading} onRefresh={() => void list.reload()} />
      </PageHeader>
      <p class="lead">Your organization's endpoints and how their deliveries went in the last 24 hours. Open one for its figures, its delivery log and redelivery.</p>
      <ProblemBanner problem={list.problem} />
      {list.value && list.value.length === 0 && <Empty>No webhook yet. Integrations create them with POST /api/v2/webhooks.</Empty>}
      {list.value && list.value.length > 0 && (
        <TableScroll label="Webhooks">
          <table>
            <thead>
              <tr>
                <th scope="col">Webhook</th>
                <th scope="col">State</th>
                <th scope="col">Succeeded (24 h)</th>
                <th scope="col">Failed (24 h)</th>
                <th scope="col">Pending</th>
                <th scope="col">Success rate</th>
                <th scope="col">Last failure</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.value.map(({ webhook, last24h, actions }) => (
                <tr data-webhook-id={webhook.id}>
                  <td>
                    <Link href={`${BASE}/webhooks/${webhook.id}`}>{webhook.name}</Link>
                    <div class="muted url">{webhook.url}</div>
                  </td>
                  <td>
                    <Badge tone={statusTone(webhook.status)}>{webhook.status}</Badge>
                    {webhook.disableReason && <div class="muted">{webhook.disableReason}</div>}
                  </td>
                  <td>{last24h.succeeded}</td>
                  <td>{last24h.failed}</td>
                  <td>{last24h.pending}</td>
                  <td>{percent(last24h.successRate)}</td>
                  <td>
                    <Time at={last24h.lastFailureAt} />
                  </td>
                  <td>
                    <div class="buttons">
                      <StateButtons webhookId={webhook.id} actions={actions} onChanged={() => void list.reload()} />
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
