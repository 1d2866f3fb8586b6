import { useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import { hasRole, useMe } from "../session";
import { Field, Notice, ProblemBanner, SubmitButtons, SubmitForm, useAction } from "../ui";
import { WEBHOOK_OPERATORS } from "./webhooks";
import { RedeliveredFailed } from "./detail-types";

/** `datetime-local` works in local time without a zone: converted here both ways. */
export function toLocalInput(at: Date): string {
  const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

export function RedeliverFailed({ webhookId, onQueued }: { webhookId: string; onQueued(): void }) {
  const me = useMe();
  const [since, setSince] = useState(() => toLocalInput(new Date(Date.now() - 24 * 3_600_000)));
  const [result, setResult] = useState<RedeliveredFailed | undefined>(undefined);
  const send = useAction(async () => {
    const at = new Date(since);
    const body = { since: Number.isNaN(at.getTime()) ? since : at.toISOString() };
    setResult((await call(api.POST("/api/v2/portal/webhooks/{webhookId}/redeliver-failed", { params: { path: { webhookId }, header: csrf() }, body }))).data);
    onQueued();
  });
  if (!hasRole(me, WEBHOOK_OPERATORS)) return null;
  return (
    <SubmitForm class="card redeliver-failed" action={send}>
      <h2>Redeliver failed deliveries</h2>
      <p class="muted">Sends again every event whose delivery failed for good since the time below (at most 7 days back), rebuilt from the incident as it is now, with its event id.</p>
      <Field label="Failed since" name="since" type="datetime-local" value={since} onValue={setSince} problem={send.problem} required />
      <ProblemBanner problem={send.problem?.errors?.since ? undefined : send.problem} title="Nothing was redelivered" />
      {result && (
        <Notice kind="success">
          {result.queued} event(s) queued for delivery.
          {result.notRedeliverable > 0 && ` ${result.notRedeliverable} failed event(s) of a type that cannot be rebuilt were left.`}
          {result.incidentGone > 0 && ` ${result.incidentGone} event(s) whose incident no longer exists were left.`}
          {result.nextSince && " More remain: send again to continue."}
        </Notice>
      )}
      <SubmitButtons busy={send.busy} busyLabel="Queuing…" label="Redeliver failed" />
    </SubmitForm>
  );
}
