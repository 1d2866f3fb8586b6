import type { ComponentChildren } from "preact";
import { type Problem } from "../api/client";
import { Notice, SaveProblem, SubmitForm } from "../ui";
import { Detail, IncidentPath } from "./incident-types";

export interface ActionContext {
  detail: Detail;
  etag: string | undefined;
  path: IncidentPath;
  onChanged(): Promise<void>;
  /** The form whose change was the last one made here. */
  lastWriter: string | undefined;
  /** Sends a change made by form `by`, then reads the incident again. */
  write(by: string, pending: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<void>;
}

/**
 * One action's form: its heading, its problem (a 409 as a SaveProblem with Reload), what it did, its
 * fields, and its submit button (`data-action` its id), which says so while the change is sent.
 */
export function ActionForm(props: {
  id: string;
  title: string;
  ctx: ActionContext;
  /** Run by the submit button; its problem shows at the top of the form. */
  action: { problem: Problem | undefined; busy: boolean; run(): Promise<boolean> };
  submit: { label: string; busyLabel: string; danger?: boolean; disabled?: boolean };
  done?: string;
  children: ComponentChildren;
}) {
  const { action, submit } = props;
  return (
    <SubmitForm class="action" aria-labelledby={`${props.id}-heading`} data-action-form={props.id} action={action}>
      <h3 id={`${props.id}-heading`}>{props.title}</h3>
      <SaveProblem problem={action.problem} title={`${props.title}: not done`} onReload={props.ctx.onChanged} />
      {props.done && !action.problem && props.ctx.lastWriter === props.id && <Notice kind="success">{props.done}</Notice>}
      {props.children}
      <div class="buttons">
        <button type="submit" class={submit.danger ? "button button-danger" : "button"} data-action={props.id} disabled={action.busy || submit.disabled}>
          {action.busy ? submit.busyLabel : submit.label}
        </button>
      </div>
    </SubmitForm>
  );
}

