import { useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import { hasRole, useMe } from "../session";
import { ShowMore, usePages } from "../ui/paging";
import { Badge, DataTable, Empty, Notice, ProblemBanner, Select, Time, useAction } from "../ui";
import { type AttemptRef } from "./delivery-attempt";
import { WEBHOOK_OPERATORS } from "./webhooks";
import { LogQuery, LogEntry, OUTCOMES, STATUS_CLASSES } from "./detail-types";

export function DeliveryLog(props: { webhookId: string; version: number; opened?: string; onOpen(attempt: AttemptRef): void; onRedelivered(): void }) {
  const { webhookId, version, onRedelivered } = props;
  const me = useMe();
  const [outcome, setOutcome] = useState("");
  const [statusClass, setStatusClass] = useState("");
  const [queued, setQueued] = useState<string | undefined>(undefined);
  const query = (continuationToken?: string): LogQuery => ({
    pageSize: 25,
    ...(outcome ? { outcome: outcome as LogQuery["outcome"] } : {}),
    ...(statusClass ? { statusClass: statusClass as LogQuery["statusClass"] } : {}),
    ...(continuationToken ? { continuationToken } : {}),
  });
  const read = (continuationToken?: string) => call(api.GET("/api/v2/portal/webhooks/{webhookId}/delivery-logs", { params: { path: { webhookId }, query: query(continuationToken) } }));
  const { first, items: entries, more: next, loadMore: more } = usePages(read, [webhookId, outcome, statusClass, version]);
  const redeliver = useAction(async (entry: LogEntry) => {
    setQueued(undefined);
    await call(
      api.POST("/api/v2/portal/webhooks/{webhookId}/delivery-logs/{logId}/redeliver", {
        params: { path: { webhookId, logId: entry.id }, query: { createdAt: entry.createdAt }, header: csrf() },
      }),
    );
    setQueued(entry.eventId);
    // The new attempt is written once the worker has delivered it: read the log again shortly.
    for (const ms of [500, 1500, 4000]) setTimeout(onRedelivered, ms);
  });
  const operator = hasRole(me, WEBHOOK_OPERATORS);
  return (
    <>
      <h2>Delivery log</h2>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter the delivery log">
        <Select label="Outcome" name="outcome" value={outcome} options={OUTCOMES} onValue={setOutcome} />
        <Select label="HTTP status" name="statusClass" value={statusClass} options={STATUS_CLASSES} onValue={setStatusClass} />
      </form>
      <ProblemBanner problem={first.problem ?? redeliver.problem} />
      {queued && <Notice kind="success">Event {queued} queued for redelivery: its new attempt appears below once delivered.</Notice>}
      {first.value && entries.length === 0 && <Empty>No delivery matches.</Empty>}
      {entries.length > 0 && (
        <DataTable label="Delivery log" class="delivery-log" columns={["When", "Event", "Outcome", "HTTP status", "Duration", "Attempt", <span class="visually-hidden">Actions</span>]}>
          {entries.map((e) => (
            <tr data-log-id={e.id} data-status={e.status} data-event-id={e.eventId} data-redelivered={String(e.redelivered)}>
              <td>
                <Time at={e.createdAt} />
              </td>
              <td>
                {e.eventType}
                {e.isTest && <Badge>test</Badge>}
                <div class="muted">{e.eventId}</div>
              </td>
              <td>
                <Badge tone={e.status === "Succeeded" ? "ok" : e.status === "Failed" ? "bad" : "warn"}>{e.status}</Badge>
                {e.redelivered && <Badge>redelivered</Badge>}
                {e.error && <div class="muted">{e.error}</div>}
              </td>
              <td>{e.httpStatusCode === 0 ? <span class="muted">none</span> : e.httpStatusCode}</td>
              <td>{e.durationMs} ms</td>
              <td>{e.attempt}</td>
              <td>
                <div class="buttons buttons-tight">
                  <button
                    type="button"
                    class="button button-secondary button-small"
                    aria-pressed={props.opened === e.id}
                    data-action="open-attempt"
                    onClick={() => props.onOpen({ id: e.id, createdAt: e.createdAt })}
                  >
                    Details<span class="visually-hidden"> of {e.eventType} at {new Date(e.createdAt).toLocaleString()}</span>
                  </button>
                  {operator && e.status === "Failed" && (
                    <button type="button" class="button button-secondary button-small" data-action="redeliver" disabled={redeliver.busy} onClick={() => void redeliver.run(e)}>
                      Redeliver<span class="visually-hidden"> {e.eventType} of {new Date(e.createdAt).toLocaleString()}</span>
                    </button>
                  )}
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <ShowMore more={!!next} action={more} />
    </>
  );
}
