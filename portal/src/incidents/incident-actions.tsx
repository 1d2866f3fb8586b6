import { useState } from "preact/hooks";
import { call } from "../api/client";
import { useMe } from "../session";
import { Detail, IncidentPath, COMMENT_SOURCES } from "./incident-types";
import { Tickets, TriggerWebhook } from "./ticket-actions";
import { AssignForm, StatusForm, CloseForm, ClosedNote, CommentForm } from "./action-forms";
import { ActionContext } from "./action-form";

/**
 * The incident's actions, for a person with the Analyst or Owner role on its workspace (anyone else
 * reads the page without them): assign, change status, close, comment, link tickets, Trigger webhook.
 * Every write sends the incident's `ETag` as `If-Match`; a change made meanwhile is refused (409) and
 * shown at the form, whose draft stays. After a write the page reads the incident again.
 */
export function IncidentActions(props: { detail: Detail; etag: string | undefined; path: IncidentPath; onChanged(): Promise<void> }) {
  const me = useMe();
  // Which form made the last change: only its note of what it did stays, the others' are out of date.
  const [lastWriter, setLastWriter] = useState<string | undefined>(undefined);
  const role = me.workspaceRoles.find((r) => r.workspaceId.toLowerCase() === props.path.workspaceId.toLowerCase())?.role;
  if (role !== "Owner" && role !== "Analyst") {
    return (
      <p class="muted" data-read-only="true">
        You read this incident; working it needs the Analyst role on its workspace.
      </p>
    );
  }
  const context: ActionContext = {
    ...props,
    lastWriter,
    async write(by, pending) {
      await call(pending);
      setLastWriter(by);
      await props.onChanged();
    },
  };
  const incident = props.detail.incident;
  return (
    <section class="card incident-actions" aria-labelledby="actions-heading" data-incident-actions="true">
      <h2 id="actions-heading">Work this incident</h2>
      <div class="action-grid">
        <AssignForm {...context} />
        <StatusForm {...context} />
        {incident.incident.status === "Closed" ? <ClosedNote incident={incident} /> : <CloseForm {...context} />}
        {COMMENT_SOURCES.includes(props.path.source) ? (
          <CommentForm {...context} />
        ) : (
          <p class="muted">Comments on {props.path.source} incidents are not added through the service.</p>
        )}
      </div>
      <Tickets {...context} />
      <TriggerWebhook {...context} />
    </section>
  );
}
