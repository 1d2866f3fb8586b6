import { useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import type { paths } from "../api/openapi";
import { takeFlash } from "../flash";
import { BASE, Link } from "../router";
import { hasRole, useMe } from "../session";
import { Badge, DataTable, Empty, Notice, PageHeader, ProblemBanner, RefreshButton, SubmitButtons, SubmitForm, Time, useAction, useResource } from "../ui";
import { credentialBody, CredentialFields, SigningSecret, useOrganizations, WebhookFields, type CredentialDraft, type WebhookDraft } from "./webhook-form";

type ListEnvelope = paths["/api/v2/portal/webhooks"]["get"]["responses"][200]["content"]["application/json"];
export type WebhookHealthSummary = ListEnvelope["data"][number];
export type StateAction = WebhookHealthSummary["actions"][number];

/** Who may create, change, test and delete webhooks, pause, resume, enable and redeliver (the routes' roles; Admin holds every role). */
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
  const me = useMe();
  const [notice] = useState(takeFlash);
  const list = useResource(async () => (await call(api.GET("/api/v2/portal/webhooks"))).data, []);
  return (
    <section>
      <PageHeader title="Webhooks">
        {hasRole(me, WEBHOOK_OPERATORS) && (
          <Link class="button" href={`${BASE}/webhooks/new`}>
            New webhook
          </Link>
        )}
        <RefreshButton busy={list.loading} onRefresh={() => void list.reload()} />
      </PageHeader>
      <p class="lead">Your organization's endpoints and how their deliveries went in the last 24 hours. Open one for its figures, its delivery log, a test event and its settings.</p>
      {notice && <Notice kind="success">{notice}</Notice>}
      <ProblemBanner problem={list.problem} />
      {list.value && list.value.length === 0 && <Empty>No webhook yet.{hasRole(me, WEBHOOK_OPERATORS) ? " Create one with New webhook, or with POST /api/v2/webhooks." : ""}</Empty>}
      {list.value && list.value.length > 0 && (
        <DataTable label="Webhooks" columns={["Webhook", "State", "Succeeded (24 h)", "Failed (24 h)", "Pending", "Success rate", "Last failure", <span class="visually-hidden">Actions</span>]}>
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
        </DataTable>
      )}
    </section>
  );
}

/** `/webhooks/new`: a new endpoint; its signing secret is shown once, here. */
export function NewWebhookPage() {
  const me = useMe();
  const organizations = useOrganizations();
  const [draft, setDraft] = useState<WebhookDraft>({ name: "", url: "", eventTypes: ["incident.created.v1"], monitoredAccountIds: [] });
  const [credential, setCredential] = useState<CredentialDraft>({ authenticationType: "None", token: "" });
  const [created, setCreated] = useState<{ id: string; name: string; signingSecret?: string } | undefined>(undefined);
  const create = useAction(async () => {
    const answer = (await call(api.POST("/api/v2/portal/webhooks", { params: { header: csrf() }, body: { ...draft, ...credentialBody(credential) } }))).data;
    setCreated({ id: answer.webhook.id, name: answer.webhook.name, signingSecret: answer.signingSecret });
  });
  const open = created && (
    <Link class="button" href={`${BASE}/webhooks/${created.id}`}>
      {created.signingSecret ? `I have stored the secret: open ${created.name}` : `Open ${created.name}`}
    </Link>
  );
  return (
    <section>
      <p class="breadcrumb">
        <Link href={`${BASE}/webhooks`}>Webhooks</Link>
      </p>
      <PageHeader title={created ? `${created.name} is created` : "New webhook"} />
      {!hasRole(me, WEBHOOK_OPERATORS) && <Notice>Creating webhooks is for WorkspaceAdmins and Admins. You are {me.organizationalRole}.</Notice>}
      {created?.signingSecret && (
        <SigningSecret secret={created.signingSecret} title="Its signing secret">
          <div class="buttons">{open}</div>
        </SigningSecret>
      )}
      {created && !created.signingSecret && <div class="buttons">{open}</div>}
      {hasRole(me, WEBHOOK_OPERATORS) && !created && (
        <section class="card form-card" aria-labelledby="new-webhook-heading">
          <h2 id="new-webhook-heading">The endpoint and what it receives</h2>
          <SubmitForm class="webhook-form" data-form="new-webhook" action={create}>
            <ProblemBanner problem={create.problem} title="The webhook was not created" />
            <WebhookFields draft={draft} onChange={setDraft} problem={create.problem} organizations={organizations} />
            <CredentialFields draft={credential} onChange={setCredential} problem={create.problem} />
            <SubmitButtons busy={create.busy} busyLabel="Creating…" label="Create webhook" />
          </SubmitForm>
        </section>
      )}
    </section>
  );
}
