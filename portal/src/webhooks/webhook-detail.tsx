import { useState } from "preact/hooks";
import { api, call } from "../api/client";
import { withEtag } from "../etag";
import { BASE, Link } from "../router";
import { hasRole, useMe } from "../session";
import { Badge, Notice, PageHeader, ProblemBanner, RefreshButton, Time, useResource } from "../ui";
import { DeliveryAttemptPanel, type AttemptRef } from "./delivery-attempt";
import { DeliveryChart } from "./delivery-chart";
import { WebhookSettings } from "./webhook-settings";
import { StateButtons, statusTone, WEBHOOK_OPERATORS } from "./webhooks";
import { DeliveryLog } from "./delivery-log";
import { RedeliverFailed } from "./redeliver-failed";
import { FiguresCard, RecentFailures } from "./webhook-figures";
import { SendTest } from "./send-test";

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
