import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";
import { fieldError, type Problem } from "../api/client";
import type { paths } from "../api/openapi";
import { Checkbox, CopyButton, Field, Select, Time, toggle, useResource } from "../ui";
import { readOrganizations, type Organization } from "../workspaces/workspace-model";

type CreateBody = NonNullable<paths["/api/v2/portal/webhooks"]["post"]["requestBody"]>["content"]["application/json"];
export type EventType = CreateBody["eventTypes"][number];
export type AuthenticationType = NonNullable<CreateBody["authenticationType"]>;

/** The event types a webhook subscribes to, in words (`webhook.test.v1` is sent by "Send test event" only). */
const EVENT_TYPES: Record<EventType, string> = {
  "incident.created.v1": "A new incident",
  "incident.status.changed.v1": "An incident's status changed",
  "incident.assignee.changed.v1": "An incident was assigned or unassigned",
  "incident.comment.added.v1": "A comment was added",
  "incident.closed.v1": "An incident was closed",
  "gamebook.run.v1": "A gamebook was dispatched",
  "agent.investigation.completed.v1": "An agent investigation completed",
};

const AUTHENTICATION: readonly { value: AuthenticationType; label: string; hint: string }[] = [
  { value: "None", label: "None: the signature only", hint: "" },
  { value: "Bearer", label: "Bearer token", hint: "Sent as Authorization: Bearer <token>." },
  { value: "Basic", label: "Basic (user:password)", hint: "Write it as user:password; sent as Authorization: Basic." },
  { value: "ApiKey", label: "API key", hint: "Sent in the X-Api-Key header." },
];

/** The organizations whose events a webhook may be limited to: the person's own and those it manages. */
export function useOrganizations(): Organization[] {
  return useResource(() => readOrganizations().catch(() => [] as Organization[]), []).value ?? [];
}

/** A webhook's configuration as its form edits it. */
export interface WebhookDraft {
  name: string;
  url: string;
  eventTypes: EventType[];
  monitoredAccountIds: string[];
}

/** The endpoint credential as its form edits it: the token is never read back, only typed in. */
export interface CredentialDraft {
  authenticationType: AuthenticationType;
  token: string;
}

/** The credential as the API takes it: a token only where the type uses one. */
export function credentialBody(draft: CredentialDraft): { authenticationType: AuthenticationType; token?: string } {
  return draft.authenticationType === "None" ? { authenticationType: "None" } : { authenticationType: draft.authenticationType, token: draft.token };
}

/** The problem's messages at `field` or any path inside it (`eventTypes[0]`). */
function errorsUnder(problem: Problem | undefined, field: string): string | undefined {
  const own = fieldError(problem, field);
  const inside = Object.entries(problem?.errors ?? {})
    .filter(([path]) => path.startsWith(`${field}[`))
    .flatMap(([, messages]) => messages);
  return [own, ...inside].filter(Boolean).join(" ") || undefined;
}

/** A group of checkboxes with a legend, a hint and the server's problem at its field. */
function CheckGroup(props: { legend: string; hint: string; field: string; problem?: Problem; children: ComponentChildren }) {
  const id = useId();
  const error = errorsUnder(props.problem, props.field);
  return (
    <fieldset class={`checks-group${error ? " field-invalid" : ""}`} aria-describedby={`${id}-hint${error ? ` ${id}-error` : ""}`} aria-invalid={error ? "true" : undefined} data-field={props.field}>
      <legend>{props.legend}</legend>
      <p class="hint" id={`${id}-hint`}>
        {props.hint}
      </p>
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
      <div class="checks">{props.children}</div>
    </fieldset>
  );
}

/** Name, HTTPS URL, event types and monitored accounts: what creating and changing a webhook share. */
export function WebhookFields(props: { draft: WebhookDraft; onChange(draft: WebhookDraft): void; problem?: Problem; organizations: readonly Organization[] }) {
  const { draft, onChange, problem } = props;
  return (
    <>
      <Field label="Name" name="name" value={draft.name} onValue={(name) => onChange({ ...draft, name })} problem={problem} required maxLength={200} autoComplete="off" />
      <Field
        label="Endpoint URL"
        name="url"
        type="url"
        value={draft.url}
        onValue={(url) => onChange({ ...draft, url })}
        problem={problem}
        required
        maxLength={2048}
        placeholder="https://"
        hint="HTTPS on a public address; it must answer within 30 seconds."
      />
      <CheckGroup legend="Event types" hint="What it is sent. At least one." field="eventTypes" problem={problem}>
        {(Object.keys(EVENT_TYPES) as EventType[]).map((type) => (
          <Checkbox label={`${EVENT_TYPES[type]} (${type})`} name="eventTypes" checked={draft.eventTypes.includes(type)} onValue={(on) => onChange({ ...draft, eventTypes: toggle(draft.eventTypes, type, on) })} />
        ))}
      </CheckGroup>
      {props.organizations.length > 1 && (
        <CheckGroup legend="Monitored accounts" hint="Only events of the organizations ticked; none ticked: every organization." field="monitoredAccountIds" problem={problem}>
          {props.organizations.map((o) => (
            <Checkbox
              label={o.name}
              name="monitoredAccountIds"
              checked={draft.monitoredAccountIds.includes(o.id)}
              onValue={(on) => onChange({ ...draft, monitoredAccountIds: toggle(draft.monitoredAccountIds, o.id, on) })}
            />
          ))}
        </CheckGroup>
      )}
    </>
  );
}

/** How deliveries authenticate to the endpoint, beside the signature: a type, and its token typed in. */
export function CredentialFields(props: { draft: CredentialDraft; onChange(draft: CredentialDraft): void; problem?: Problem }) {
  const { draft, onChange, problem } = props;
  const chosen = AUTHENTICATION.find((a) => a.value === draft.authenticationType)!;
  return (
    <>
      <Select
        label="Authentication"
        name="authenticationType"
        value={draft.authenticationType}
        options={AUTHENTICATION.map(({ value, label }) => ({ value, label }))}
        onValue={(value) => onChange({ ...draft, authenticationType: value as AuthenticationType })}
        problem={problem}
      />
      {draft.authenticationType !== "None" && (
        <Field label="Token" name="token" type="password" value={draft.token} onValue={(token) => onChange({ ...draft, token })} problem={problem} required maxLength={4096} autoComplete="new-password" hint={`${chosen.hint} Kept sealed; never shown again.`} />
      )}
    </>
  );
}

/** A signing secret, shown once: nothing keeps it beyond this view's state. */
export function SigningSecret(props: { secret: string; title: string; previousRetiresAt?: string | null; children?: ComponentChildren; headingLevel?: 2 | 4 }) {
  const ref = useRef<HTMLDivElement>(null);
  const headingId = useId();
  useEffect(() => {
    ref.current?.focus();
  }, [props.secret]);
  return (
    <div class="secret secret-box" role="region" aria-labelledby={headingId} tabIndex={-1} ref={ref} data-signing-secret-box>
      {props.headingLevel === 4 ? <h4 id={headingId}>{props.title}</h4> : <h2 id={headingId}>{props.title}</h2>}
      <p>
        <strong>Copy the signing secret now: it will not be shown again.</strong> Your endpoint verifies each delivery's signature with it (the Standard Webhooks
        libraries take it as it is).
      </p>
      {props.previousRetiresAt && (
        <p>
          The previous secret keeps signing beside it until <Time at={props.previousRetiresAt} />: move the endpoint to the new one before then.
        </p>
      )}
      <dl class="secret-values">
        <div>
          <dt>Signing secret</dt>
          <dd>
            <code class="secret-value" data-signing-secret>
              {props.secret}
            </code>
            <CopyButton text={props.secret} label="Copy the signing secret" />
          </dd>
        </div>
      </dl>
      {props.children}
    </div>
  );
}
