import { useEffect, useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import { Notice, ProblemBanner, useAction } from "../ui";
import { type AttemptRef } from "./delivery-attempt";

/** How long the page looks for a test event's attempt before saying it has not landed yet. */
const TEST_WAIT_MS = 30_000;

/**
 * "Send test event": a `webhook.test.v1` goes out at once; its attempt is written when the endpoint has
 * answered, so the page looks for it in the log and opens it when it lands.
 */
export function SendTest(props: { webhookId: string; onLanded(attempt: AttemptRef): void }) {
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

