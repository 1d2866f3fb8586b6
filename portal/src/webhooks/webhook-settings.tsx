import { useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import type { paths } from "../api/openapi";
import { Confirmation, DeleteZone, useConfirming } from "../confirmation";
import { ifMatch } from "../etag";
import { setFlash } from "../flash";
import { BASE, navigate } from "../router";
import { SaveProblem, SubmitButtons, SubmitForm, useAction } from "../ui";
import { credentialBody, CredentialFields, SigningSecret, useOrganizations, WebhookFields, type CredentialDraft, type EventType, type WebhookDraft } from "./webhook-form";

type HealthEnvelope = paths["/api/v2/portal/webhooks/{webhookId}"]["get"]["responses"][200]["content"]["application/json"];
type Webhook = HealthEnvelope["data"]["webhook"];

interface SettingsProps {
  webhook: Webhook;
  /** The version the page read, sent as `If-Match`: a change made over someone else's is refused (409). */
  etag: string | undefined;
  /** After a change: read the webhook again, and say what was done. */
  onChanged(notice?: string): void;
  /** After a refused change, at the person's request: read it again and start the forms over. */
  onReload(): Promise<void>;
}

/**
 * A webhook's settings for those who run the integrations, as on Svix's and Stripe's endpoint pages:
 * its configuration, the credential its deliveries carry, its signing secret, and its deletion.
 * The configuration form is keyed by the webhook's version, so it starts over from what the server
 * holds once that changes; until then a refused save keeps the person's draft.
 */
export function WebhookSettings(props: SettingsProps & { fresh: number }) {
  const { webhook } = props;
  return (
    <>
      <h2 class="section-heading">Settings</h2>
      <EditWebhook key={`${webhook.id}:${webhook.lastModifiedAt}:${props.fresh}`} {...props} />
      <EndpointCredential key={`credential:${webhook.id}:${props.fresh}`} {...props} />
      <RotateSigningSecret {...props} />
      <DeleteWebhook {...props} />
    </>
  );
}

function EditWebhook({ webhook, etag, onChanged, onReload }: SettingsProps) {
  const organizations = useOrganizations();
  const [draft, setDraft] = useState<WebhookDraft>({
    name: webhook.name,
    url: webhook.url,
    eventTypes: webhook.eventTypes as EventType[],
    monitoredAccountIds: webhook.monitoredAccountIds,
  });
  const save = useAction(async () => {
    await call(api.PUT("/api/v2/portal/webhooks/{webhookId}", { params: { path: { webhookId: webhook.id }, header: csrf() }, body: draft, headers: ifMatch(etag) }));
    onChanged(`${draft.name} is saved.`);
  });
  return (
    <section class="card form-card" aria-labelledby="edit-webhook-heading">
      <h3 id="edit-webhook-heading">The endpoint and what it receives</h3>
      <SubmitForm class="webhook-form" data-form="edit-webhook" action={save}>
        <SaveProblem problem={save.problem} title="The webhook was not saved" onReload={onReload} />
        <WebhookFields draft={draft} onChange={setDraft} problem={save.problem} organizations={organizations} />
        <SubmitButtons busy={save.busy} busyLabel="Saving…" label="Save changes" />
      </SubmitForm>
    </section>
  );
}

function EndpointCredential({ webhook, etag, onChanged, onReload }: SettingsProps) {
  const [draft, setDraft] = useState<CredentialDraft>({ authenticationType: webhook.authenticationType, token: "" });
  const change = useAction(async () => {
    await call(api.POST("/api/v2/portal/webhooks/{webhookId}/credentials", { params: { path: { webhookId: webhook.id }, header: csrf() }, body: credentialBody(draft), headers: ifMatch(etag) }));
    setDraft({ ...draft, token: "" });
    onChanged("The endpoint credential is replaced: deliveries carry it from the next attempt.");
  });
  return (
    <section class="card form-card" aria-labelledby="credential-heading">
      <h3 id="credential-heading">Endpoint authentication</h3>
      <p class="muted">
        What each delivery carries for the endpoint to check, beside the signature. Now: <strong>{webhook.authenticationType}</strong>. A token is never shown again: type the new one to
        replace it.
      </p>
      <SubmitForm data-form="endpoint-credential" action={change}>
        <SaveProblem problem={change.problem} title="The credential was not replaced" onReload={onReload} />
        <CredentialFields draft={draft} onChange={setDraft} problem={change.problem} />
        <SubmitButtons busy={change.busy} busyLabel="Replacing…" label="Replace the credential" class="button button-secondary" />
      </SubmitForm>
    </section>
  );
}

function RotateSigningSecret({ webhook, etag, onChanged }: SettingsProps) {
  const [rotated, setRotated] = useState<{ secret: string; previousRetiresAt: string | null } | undefined>(undefined);
  const rotate = useAction(async () => {
    const answer = (await call(api.POST("/api/v2/portal/webhooks/{webhookId}/rotate-signing-secret", { params: { path: { webhookId: webhook.id }, header: csrf() }, headers: ifMatch(etag) }))).data;
    confirming.close();
    setRotated({ secret: answer.signingSecret, previousRetiresAt: answer.previousSecretRetiresAt });
    onChanged();
  });
  const confirming = useConfirming(rotate);
  return (
    <section class="card form-card" aria-labelledby="signing-heading">
      <h3 id="signing-heading">Signing secret</h3>
      <p class="muted">
        Every delivery is signed with it (the <code>webhook-signature</code> and <code>X-Svc-Signature</code> headers). Rotating issues a new one, shown once; the current one keeps signing beside it for 24
        hours, so the endpoint can switch without missing a delivery.
      </p>
      {rotated && <SigningSecret secret={rotated.secret} previousRetiresAt={rotated.previousRetiresAt} title="The new signing secret" headingLevel={4} />}
      {confirming.key ? (
        <Confirmation
          layout="panel"
          question="Rotate the signing secret?"
          confirmLabel="Rotate it"
          busyLabel="Rotating…"
          busy={rotate.busy}
          problem={rotate.problem}
          problemTitle="The signing secret was not rotated"
          confirmData={{ "data-action": "confirm-rotate" }}
          onConfirm={() => void rotate.run()}
          onCancel={confirming.cancel}
        >
          <p>A new secret is shown once. The current one stops signing after 24 hours: the endpoint must verify with the new one by then.</p>
        </Confirmation>
      ) : (
        <div class="buttons">
          <button type="button" class="button button-secondary" data-action="rotate" {...confirming.opener("rotate")}>
            Rotate the secret…
          </button>
        </div>
      )}
    </section>
  );
}

function DeleteWebhook({ webhook, etag }: SettingsProps) {
  const remove = useAction(async () => {
    await call(api.DELETE("/api/v2/portal/webhooks/{webhookId}", { params: { path: { webhookId: webhook.id }, header: csrf() }, headers: ifMatch(etag) }));
    setFlash(`${webhook.name} is deleted: nothing more is delivered to it.`);
    navigate(`${BASE}/webhooks`);
  });
  return (
    <DeleteZone
      headingId="delete-webhook-heading"
      heading="Delete the webhook"
      level={3}
      lead="Deliveries stop at once, those queued included. Pause it instead to hold them."
      action={remove}
      name="delete"
      question={`Delete ${webhook.name}?`}
      confirmLabel={`Delete ${webhook.name}`}
      busyLabel="Deleting…"
      problemTitle="The webhook was not deleted"
      opener={`Delete ${webhook.name}…`}
      openerData={{ "data-action": "delete" }}
      confirmData={{ "data-action": "confirm-delete" }}
    >
      <p>
        <strong>{webhook.url}</strong> receives nothing more. <strong>This cannot be undone.</strong>
      </p>
    </DeleteZone>
  );
}
