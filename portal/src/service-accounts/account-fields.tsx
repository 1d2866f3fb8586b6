import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";
import { fieldError, type Problem } from "../api/client";
import type { OrganizationalRole } from "../session";
import { Checkbox, CopyButton, Field, ORGANIZATIONAL_ROLES, useResource } from "../ui";
import { readWorkspaces, type Workspace } from "../workspaces/workspace-model";
import { Scope, SCOPE_GROUPS } from "./model";

/** A new client id and secret, shown once: nothing keeps the secret beyond this view's state. */
export function SecretBox(props: { clientId: string; clientSecret: string; title: string; children?: ComponentChildren }) {
  const ref = useRef<HTMLDivElement>(null);
  const headingId = useId();
  useEffect(() => {
    ref.current?.focus();
  }, [props.clientSecret]);
  return (
    <div class="secret secret-box" role="region" aria-labelledby={headingId} tabIndex={-1} ref={ref} data-secret-box>
      <h2 id={headingId}>{props.title}</h2>
      <p>
        <strong>Copy the client secret now: it will not be shown again.</strong> The service keeps only its hash. If it is lost, add a new credential and revoke this one.
      </p>
      <dl class="secret-values">
        <div>
          <dt>Client id (HTTP Basic user name)</dt>
          <dd>
            <code class="secret-value" data-client-id>
              {props.clientId}
            </code>
            <CopyButton text={props.clientId} label="Copy the client id" />
          </dd>
        </div>
        <div>
          <dt>Client secret (HTTP Basic password)</dt>
          <dd>
            <code class="secret-value" data-client-secret>
              {props.clientSecret}
            </code>
            <CopyButton text={props.clientSecret} label="Copy the client secret" />
          </dd>
        </div>
      </dl>
      {props.children}
    </div>
  );
}

/** Checkboxes of the contract's scopes, grouped; the server's problem at `scopes` shown with them. */
export function ScopePicker(props: { selected: readonly Scope[]; onChange(scopes: Scope[]): void; problem?: Problem }) {
  const id = useId();
  const error = fieldError(props.problem, "scopes");
  const toggle = (scope: Scope, on: boolean) => props.onChange(on ? [...props.selected, scope] : props.selected.filter((s) => s !== scope));
  return (
    <fieldset class={`scopes${error ? " field-invalid" : ""}`} aria-describedby={error ? `${id}-error` : `${id}-hint`} aria-invalid={error ? "true" : undefined}>
      <legend>Scopes of the credential</legend>
      <p class="hint" id={`${id}-hint`}>
        What the credential may call. Grant the fewest that work.
      </p>
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
      <div class="scope-groups">
        {SCOPE_GROUPS.map((group) => (
          <fieldset class="scope-group">
            <legend>{group.label}</legend>
            {group.scopes.map((s) => (
              <Checkbox label={`${s.label} (${s.scope})`} name="scopes" checked={props.selected.includes(s.scope)} onValue={(on) => toggle(s.scope, on)} />
            ))}
          </fieldset>
        ))}
      </div>
    </fieldset>
  );
}

export function ExpirationField(props: { value: string; onValue(value: string): void; problem?: Problem }) {
  return <Field label="Expiration date" name="expirationDate" type="date" value={props.value} onValue={props.onValue} problem={props.problem} hint="The credential stops working after this day. Empty: one year from now; at most two years." />;
}

/** The words of a service account's workspace assignments. */
export const ASSIGNMENT_WORDS = {
  legend: "Workspace assignments",
  hint: "The workspaces the account acts on, and its role on each.",
  none: "No workspace assignment.",
  remove: "Remove assignment",
  add: "Add a workspace assignment",
};

export function useWorkspaces(): Workspace[] {
  return useResource(() => readWorkspaces().catch(() => [] as Workspace[]), []).value ?? [];
}

/** The roles a person may grant: only an Admin grants Admin. */
export function grantableRoles(myRole: string, current?: OrganizationalRole) {
  return ORGANIZATIONAL_ROLES.filter((r) => r.value !== "Admin" || myRole === "Admin" || current === "Admin");
}

