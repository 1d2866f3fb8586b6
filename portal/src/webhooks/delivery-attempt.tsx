import { useEffect, useId, useRef } from "preact/hooks";
import { api, call } from "../api/client";
import type { paths } from "../api/openapi";
import { Badge, ProblemBanner, Time, useResource } from "../ui";

type AttemptEnvelope = paths["/api/v2/portal/webhooks/{webhookId}/delivery-logs/{logId}"]["get"]["responses"][200]["content"]["application/json"];
type Attempt = AttemptEnvelope["data"];
type BodySource = Attempt["request"]["bodySource"];

/** Which attempt is open: an entry is found by its id and its time, as listed. */
export interface AttemptRef {
  id: string;
  createdAt: string;
}

/** What the request body shown is, in words: the log keeps no copy of an event. */
const BODY_SOURCES: Record<BodySource, string> = {
  sample: "The test event's sample data with this attempt's event id and time: the body that was sent.",
  rebuilt: "Rebuilt now from the incident as it stands, with the event's id and time, as a redelivery would send it. The incident may have changed since this attempt: the body sent then is not kept.",
  withheld: "The incident is in a workspace you hold no role on: the event is not shown.",
  unavailable: "Not kept, and this event cannot be rebuilt (it was built from a change, or its incident no longer exists). The incident as it stands now is below, where it exists.",
};

/** A JSON text indented for reading; anything else as it is. */
function readable(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function outcomeTone(status: Attempt["status"]): "ok" | "bad" | "warn" {
  return status === "Succeeded" ? "ok" : status === "Failed" ? "bad" : "warn";
}

/**
 * One delivery attempt, as Svix's and Stripe's attempt views show it: the request as sent (headers
 * with credentials and signatures redacted, a body labelled with where it comes from) and the
 * receiver's answer (status, time taken, error, and for a test event the start of its body).
 */
export function DeliveryAttemptPanel(props: { webhookId: string; attempt: AttemptRef; onClose(): void }) {
  const { webhookId, attempt: ref } = props;
  const attempt = useResource(
    async () => (await call(api.GET("/api/v2/portal/webhooks/{webhookId}/delivery-logs/{logId}", { params: { path: { webhookId, logId: ref.id }, query: { createdAt: ref.createdAt } } }))).data,
    [webhookId, ref.id, ref.createdAt],
  );
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [ref.id]);
  const a = attempt.value;
  return (
    <section class="card attempt" aria-labelledby={headingId} data-attempt-id={ref.id} data-loaded={a ? "true" : undefined}>
      <div class="card-header">
        <h2 id={headingId} tabIndex={-1} ref={heading}>
          {a ? `Attempt ${a.attempt} of ${a.eventType}` : "Delivery attempt"}
        </h2>
        <button type="button" class="button button-secondary button-small" onClick={props.onClose} data-action="close-attempt">
          Close
        </button>
      </div>
      <ProblemBanner problem={attempt.problem} title="The attempt could not be read" />
      {!a && attempt.loading && <p class="muted">Loading…</p>}
      {a && (
        <>
          <dl class="facts">
            <div>
              <dt>When</dt>
              <dd>
                <Time at={a.createdAt} />
              </dd>
            </div>
            <div>
              <dt>Outcome</dt>
              <dd>
                <Badge tone={outcomeTone(a.status)}>{a.status}</Badge> {a.isTest && <Badge>test</Badge>} {a.redelivered && <Badge>redelivered</Badge>}
              </dd>
            </div>
            <div>
              <dt>Event id</dt>
              <dd>
                <code>{a.eventId}</code>
              </dd>
            </div>
          </dl>

          <h3>Request</h3>
          <p>
            POST <code class="url">{a.request.url}</code>
          </p>
          {Object.keys(a.request.headers).length === 0 ? (
            <p class="muted">Not sent: no headers.</p>
          ) : (
            <dl class="headers" aria-label="Request headers" data-request-headers>
              {Object.entries(a.request.headers).map(([name, value]) => (
                <div>
                  <dt>
                    <code>{name}</code>
                  </dt>
                  <dd>
                    <code>{value}</code>
                  </dd>
                </div>
              ))}
            </dl>
          )}
          <h4>Body</h4>
          <p class="hint" data-body-source={a.request.bodySource}>
            {BODY_SOURCES[a.request.bodySource]}
          </p>
          {a.request.body !== null && (
            <pre class="code-block" data-request-body>
              {readable(a.request.body)}
            </pre>
          )}

          <h3>Response</h3>
          <dl class="facts">
            <div>
              <dt>HTTP status</dt>
              <dd data-response-status>{a.response.httpStatusCode === 0 ? <span class="muted">no answer</span> : a.response.httpStatusCode}</dd>
            </div>
            <div>
              <dt>Time taken</dt>
              <dd>{a.response.durationMs} ms</dd>
            </div>
            {a.response.error && (
              <div>
                <dt>What happened</dt>
                <dd>{a.response.error}</dd>
              </div>
            )}
          </dl>
          <h4>Body</h4>
          {a.response.body && a.response.body.excerpt !== "" ? (
            <>
              <p class="hint">
                {a.response.body.truncated ? "The first 2 KiB of the answer" : "The answer"}, as text; control characters are shown as <code>{"\\uXXXX"}</code> and credentials it sent back are masked.
              </p>
              <pre class="code-block" data-response-body>
                {a.response.body.excerpt}
              </pre>
            </>
          ) : (
            <p class="hint" data-response-body-absent>
              {a.isTest ? "The answer had no body." : "Not kept: an event delivery's answer is read and dropped. Send a test event to see what the endpoint answers."}
            </p>
          )}

          {a.eventPayload && (
            <details class="attempt-incident">
              <summary>The incident as it stands now</summary>
              <pre class="code-block">{JSON.stringify(a.eventPayload, null, 2)}</pre>
            </details>
          )}
        </>
      )}
    </section>
  );
}
