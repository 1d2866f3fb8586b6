import { useEffect, useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import type { paths } from "../api/openapi";
import { withEtag } from "../etag";
import { BASE, Link } from "../router";
import { hasRole, useMe } from "../session";
import { ShowMore, usePages } from "../ui/paging";
import { Badge, Empty, Field, Notice, PageHeader, ProblemBanner, RefreshButton, Select, TableScroll, Time, useAction, useResource } from "../ui";
import { DeliveryAttemptPanel, type AttemptRef } from "./delivery-attempt";
import { DeliveryChart } from "./delivery-chart";
import { WebhookSettings } from "./webhook-settings";
import { percent, StateButtons, statusTone, WEBHOOK_OPERATORS } from "./webhooks";

type HealthEnvelope = paths["/api/v2/portal/webhooks/{webhookId}"]["get"]["responses"][200]["content"]["application/json"];
type Figures = HealthEnvelope["data"]["last24h"];
type LogQuery = NonNullable<paths["/api/v2/portal/webhooks/{webhookId}/delivery-logs"]["get"]["parameters"]["query"]>;
type LogEnvelope = paths["/api/v2/portal/webhooks/{webhookId}/delivery-logs"]["get"]["responses"][200]["content"]["application/json"];
type LogEntry = LogEnvelope["data"][number];
type RedeliveredFailed = paths["/api/v2/portal/webhooks/{webhookId}/redeliver-failed"]["post"]["responses"][202]["content"]["application/json"]["data"];

const OUTCOMES = [
  { value: "", label: "Any outcome" },
  { value: "Succeeded", label: "Succeeded" },
  { value: "Failed", label: "Failed" },
  { value: "Pending", label: "Pending" },
];
const STATUS_CLASSES = [
  { value: "", label: "Any status" },
  { value: "2xx", label: "2xx" },
  { value: "3xx", label: "3xx" },
  { value: "4xx", label: "4xx" },
  { value: "5xx", label: "5xx" },
  { value: "none", label: "No HTTP answer" },
];

/** How long the page looks for a test event's attempt before saying it has not landed yet. */
const TEST_WAIT_MS = 30_000;

/**
 * One webhook, the model of Svix's and Stripe's endpoint pages: figures, chart, failures, the log and
 * one attempt's detail, redelivery; for those who run the integrations, a test event and the settings.
 */
export function WebhookDetailPage({ params }: { params: Record<string, string> }) {
  const me = useMe();
  const operator = hasRole(me, WEBHOOK_OPERATORS);
  const webhookId = params.webhookId!;
  const path = { webhookId };
  const health = useResource(async () => {
    const read = await withEtag(api.GET("/api/v2/portal/webhooks/{webhookId}", { params: { path } }));
    return { ...read.value.data, etag: read.etag };
  }, [webhookId]);
  const [window, setWindow] = useState<"24h" | "7d">("24h");
  const chart = useResource(async () => (await call(api.GET("/api/v2/portal/webhooks/{webhookId}/delivery-chart", { params: { path, query: { window } } }))).data, [webhookId, window]);
  const [logVersion, setLogVersion] = useState(0);
  const [attempt, setAttempt] = useState<AttemptRef | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  // Bumped when the person asks to read the webhook again after a refused change: the forms start over.
  const [fresh, setFresh] = useState(0);
  const refreshAll = () => {
    void health.reload();
    void chart.reload();
    setLogVersion((v) => v + 1);
  };
  const webhook = health.value?.webhook;
  return (
    <section>
      <PageHeader title={webhook ? webhook.name : "Webhook"}>
        {operator && webhook && (
          <SendTest
            webhookId={webhookId}
            onLanded={(landed) => {
              setAttempt(landed);
              refreshAll();
            }}
          />
        )}
        {health.value && <StateButtons webhookId={webhookId} actions={health.value.actions} onChanged={refreshAll} />}
        <RefreshButton onRefresh={refreshAll} />
      </PageHeader>
      <p>
        <Link href={`${BASE}/webhooks`}>All webhooks</Link>
      </p>
      <ProblemBanner problem={health.problem} />
      {notice && <Notice kind="success">{notice}</Notice>}
      {webhook && health.value && (
        <>
          <dl class="facts">
            <div>
              <dt>State</dt>
              <dd>
                <Badge tone={statusTone(webhook.status)}>{webhook.status}</Badge>
              </dd>
            </div>
            <div>
              <dt>Endpoint</dt>
              <dd class="url">{webhook.url}</dd>
            </div>
            <div>
              <dt>Events</dt>
              <dd>{webhook.eventTypes.join(", ")}</dd>
            </div>
            <div>
              <dt>Authentication</dt>
              <dd>{webhook.authenticationType}</dd>
            </div>
            {webhook.disableReason && (
              <div>
                <dt>Disabled</dt>
                <dd>
                  {webhook.disableReason} <Time at={webhook.disabledAt} />
                </dd>
              </div>
            )}
          </dl>
          {webhook.status === "Paused" && <Notice>Paused: new deliveries are held as Pending and go out when it is resumed.</Notice>}
          {webhook.status === "Disabled" && <Notice>Disabled after repeated failures: nothing is sent until it is enabled again.</Notice>}
          <div class="windows">
            <FiguresCard title="Last 24 hours" figures={health.value.last24h} />
            <FiguresCard title="Last 7 days" figures={health.value.last7d} />
          </div>
        </>
      )}
      <div class="page-header">
        <h2>Deliveries over time</h2>
        <div class="segmented" role="group" aria-label="Chart window">
          {(["24h", "7d"] as const).map((w) => (
            <button type="button" class={`button${w === window ? "" : " button-secondary"}`} aria-pressed={w === window} onClick={() => setWindow(w)}>
              {w === "24h" ? "24 hours" : "7 days"}
            </button>
          ))}
        </div>
      </div>
      <ProblemBanner problem={chart.problem} />
      {chart.value && <DeliveryChart chart={chart.value} />}
      {health.value && <RecentFailures failures={health.value.recentFailures} />}
      <RedeliverFailed webhookId={webhookId} onQueued={refreshAll} />
      <DeliveryLog webhookId={webhookId} version={logVersion} opened={attempt?.id} onOpen={setAttempt} onRedelivered={refreshAll} />
      {attempt && <DeliveryAttemptPanel webhookId={webhookId} attempt={attempt} onClose={() => setAttempt(undefined)} />}
      {operator && webhook && (
        <WebhookSettings
          webhook={webhook}
          etag={health.value?.etag}
          fresh={fresh}
          onChanged={(said) => {
            setNotice(said);
            refreshAll();
          }}
          onReload={async () => {
            setNotice(undefined);
            await health.reload();
            setFresh((n) => n + 1);
          }}
        />
      )}
    </section>
  );
}

/**
 * "Send test event": a `webhook.test.v1` goes out at once; its attempt is written when the endpoint has
 * answered, so the page looks for it in the log and opens it when it lands.
 */
function SendTest(props: { webhookId: string; onLanded(attempt: AttemptRef): void }) {
  const [waiting, setWaiting] = useState<{ eventId: string; since: number } | undefined>(undefined);
  const [late, setLate] = useState(false);
  const send = useAction(async () => {
    setLate(false);
    const { eventId } = (await call(api.POST("/api/v2/portal/webhooks/{webhookId}/test", { params: { path: { webhookId: props.webhookId }, header: csrf() } }))).data;
    setWaiting({ eventId, since: Date.now() });
  });
  useEffect(() => {
    if (!waiting) return;
    let stopped = false;
    const look = async () => {
      const listed = await call(api.GET("/api/v2/portal/webhooks/{webhookId}/delivery-logs", { params: { path: { webhookId: props.webhookId }, query: { pageSize: 25 } } })).catch(() => undefined);
      const landed = listed?.data.find((e) => e.eventId === waiting.eventId && e.status !== "Pending");
      if (stopped) return;
      if (landed) {
        setWaiting(undefined);
        props.onLanded({ id: landed.id, createdAt: landed.createdAt });
      } else if (Date.now() - waiting.since > TEST_WAIT_MS) {
        setWaiting(undefined);
        setLate(true);
      } else setTimeout(() => void look(), 500);
    };
    void look();
    return () => {
      stopped = true;
    };
  }, [waiting?.eventId]);
  return (
    <>
      <button type="button" class="button button-secondary" data-action="send-test" disabled={send.busy || !!waiting} onClick={() => void send.run()}>
        {send.busy ? "Sending…" : waiting ? "Waiting for the answer…" : "Send test event"}
      </button>
      <span class="visually-hidden" role="status">
        {waiting ? "Test event sent; waiting for the endpoint's answer." : ""}
      </span>
      {late && <Notice kind="warn">The test event's attempt has not landed yet: look for it in the delivery log shortly.</Notice>}
      <ProblemBanner problem={send.problem} title="The test event was not sent" />
    </>
  );
}

function FiguresCard({ title, figures }: { title: string; figures: Figures }) {
  return (
    <div class="card" data-window={title}>
      <h2>{title}</h2>
      <div class="stats">
        <Stat label="Success rate" value={percent(figures.successRate)} />
        <Stat label="Succeeded" value={figures.succeeded} />
        <Stat label="Failed attempts" value={figures.failed} />
        <Stat label="Pending" value={figures.pending} />
        <Stat label="Failed for good" value={figures.finalFailures} />
      </div>
      <p class="muted">
        Latency{" "}
        {figures.latencyMs
          ? `p50 ${figures.latencyMs.p50} ms · p95 ${figures.latencyMs.p95} ms · p99 ${figures.latencyMs.p99} ms (${figures.latencyMs.sampleSize} answers)`
          : "— (no HTTP answer in this window)"}
        {figures.truncated && " · over the newest 10,000 attempts only"}
      </p>
    </div>
  );
}

function Stat({ label, value }: { label: string; value: string | number }) {
  return (
    <div class="stat">
      <span class="value">{value}</span>
      <span class="label">{label}</span>
    </div>
  );
}

function RecentFailures({ failures }: { failures: HealthEnvelope["data"]["recentFailures"] }) {
  return (
    <>
      <h2>Last failures</h2>
      {failures.length === 0 ? (
        <Empty>No failed attempt in the last 7 days.</Empty>
      ) : (
        <TableScroll label="Last failures">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">HTTP status</th>
                <th scope="col">Attempt</th>
                <th scope="col">What happened</th>
              </tr>
            </thead>
            <tbody>
              {failures.map((f) => (
                <tr>
                  <td>
                    <Time at={f.createdAt} />
                  </td>
                  <td>{f.eventType}</td>
                  <td>{f.httpStatusCode === 0 ? <span class="muted">none</span> : f.httpStatusCode}</td>
                  <td>
                    {f.attempt}
                    {f.final ? " (final)" : ""}
                  </td>
                  <td>{f.error ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </>
  );
}

/** `datetime-local` works in local time without a zone: converted here both ways. */
function toLocalInput(at: Date): string {
  const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

function RedeliverFailed({ webhookId, onQueued }: { webhookId: string; onQueued(): void }) {
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
    <form
      class="card redeliver-failed"
      onSubmit={(e) => {
        e.preventDefault();
        void send.run();
      }}
    >
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
      <div class="buttons">
        <button type="submit" class="button" disabled={send.busy}>
          {send.busy ? "Queuing…" : "Redeliver failed"}
        </button>
      </div>
    </form>
  );
}

function DeliveryLog(props: { webhookId: string; version: number; opened?: string; onOpen(attempt: AttemptRef): void; onRedelivered(): void }) {
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
        <TableScroll label="Delivery log">
          <table class="delivery-log">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Outcome</th>
                <th scope="col">HTTP status</th>
                <th scope="col">Duration</th>
                <th scope="col">Attempt</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
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
            </tbody>
          </table>
        </TableScroll>
      )}
      <ShowMore more={!!next} action={more} />
    </>
  );
}
