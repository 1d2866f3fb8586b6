import type { Uses } from "../../domain/operation-context";
import { deliveryLogEntry, type LogInput } from "../../platform/delivery/delivery-worker";
import type { DeliveryMessage } from "../../platform/delivery/delivery-message";
import { generateSigningSecret } from "../../platform/delivery/signer";
import { RETRY_SCHEDULED, type IncidentRef } from "../../model/webhooks/delivery-log";
import type { WebhookRecord, WebhookStatus } from "../../model/webhooks/webhook";
import { demoId, type DemoData } from "./demo-data";

type SeedContext = Uses<"config" | "now" | "secretBox" | "sources" | "stores">;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * What the portal's "Webhooks and their health" page shows in the demo: a week of deliveries to the
 * SOAR intake (mostly delivered, slow now and then, an outage three hours ago whose deliveries were
 * dead-lettered, an endpoint that refused one event for good), a healthy data-lake export, a change
 * board paused with deliveries held, and a chat-ops bridge auto-disabled after five incidents failed.
 * Those three are also the targets of the portal's pause, resume and enable examples. Entries expire,
 * so a history is written whenever a webhook's last week holds next to nothing.
 */
export async function seedDemoWebhookHealth(services: SeedContext, demo: DemoData): Promise<void> {
  const id = (name: string) => demoId(services.config.demoSeed, name);
  const intake = (await services.stores.webhooks.get(id("webhook/soar-intake")))?.value;
  const workspace = demo.workspaces[0];
  if (!intake || !workspace) return;
  const now = services.now();
  const disabledAt = new Date(now.getTime() - 2 * HOUR).toISOString();
  const webhook = (key: string, name: string, url: string, status: WebhookStatus, eventTypes: string[]): WebhookRecord => ({
    ...intake,
    id: id(`webhook/${key}`),
    name,
    url,
    status,
    eventTypes,
    signingKeys: [{ sealed: services.secretBox.seal(generateSigningSecret()), createdAt: now.toISOString(), retiresAt: null }],
    sealedToken: services.secretBox.seal(`demo-${key}-token`),
    disableReason: status === "Disabled" ? "Final delivery failed for 5 distinct incidents within 24 hours." : null,
    disabledAt: status === "Disabled" ? disabledAt : null,
    finalFailures: [],
    createdAt: new Date(now.getTime() - 30 * DAY).toISOString(),
    lastModifiedAt: now.toISOString(),
  });
  const dataLake = webhook("data-lake-export", "Security data lake export", "https://ingest.datalake.contoso-mssp.example/secops", "Active", ["incident.closed.v1"]);
  const changeBoard = webhook("change-board", "Change advisory board feed", "https://cab.contoso-mssp.example/hooks/incidents", "Paused", ["incident.created.v1"]);
  const chatOps = webhook("soc-chatops", "SOC chat-ops bridge", "https://chatops.contoso-mssp.example/secops/events", "Disabled", ["incident.created.v1", "incident.closed.v1"]);
  for (const record of [dataLake, changeBoard, chatOps]) {
    if (!(await services.stores.webhooks.get(record.id))) await services.stores.webhooks.create(record).catch(() => undefined);
  }

  const page = await services.sources.gateway("SourceA").listIncidents({
    workspaceId: workspace.id,
    field: "createdAt",
    from: new Date(now.getTime() - 30 * DAY).toISOString(),
    to: now.toISOString(),
    limit: 20,
  });
  const incidents: IncidentRef[] = page.items.map((i) => ({ workspaceId: i.workspaceId, source: i.source, incidentId: i.id }));
  if (incidents.length === 0) return;
  const history = new History(services, now, incidents);
  await history.write(intake, (h) => h.intake());
  await history.write(dataLake, (h) => h.healthy());
  await history.write(changeBoard, (h) => h.held());
  await history.write(chatOps, (h) => h.autoDisabled(disabledAt));
}

type Attempt = { status: number; ms: number; error?: "timeout" };

/** Deliveries written as the worker logs them: one entry per attempt, retries 30 s apart. */
class History {
  private entries: ReturnType<typeof deliveryLogEntry>[] = [];
  private webhook!: WebhookRecord;
  private random = 1;

  constructor(
    private readonly services: SeedContext,
    private readonly now: Date,
    private readonly incidents: IncidentRef[],
  ) {}

  async write(webhook: WebhookRecord, plan: (h: History) => void): Promise<void> {
    const week = { from: new Date(this.now.getTime() - 7 * DAY).toISOString(), to: this.now.toISOString(), notBefore: new Date(0).toISOString() };
    if ((await this.services.stores.deliveryLogs.outcomes(webhook.id, week, 5)).items.length >= 5) return;
    this.webhook = webhook;
    this.entries = [];
    this.random = 1;
    plan(this);
    for (const entry of this.entries) await this.services.stores.deliveryLogs.put(entry);
  }

  /** Twelve events a day for a week; a slow answer now and then; an outage three hours ago; one event refused for good. */
  intake(): void {
    for (let i = 0; i < 84; i++) {
      const at = this.now.getTime() - 7 * DAY + i * 2 * HOUR + 17 * 60_000;
      const type = i % 3 === 2 ? "incident.closed.v1" : "incident.created.v1";
      if (i % 29 === 5) this.delivery(i, type, at, [{ status: 503, ms: 2_400 }, { status: 200, ms: 310 }]);
      else if (i === 40) this.delivery(i, "incident.closed.v1", at, [{ status: 410, ms: 95 }]);
      else this.delivery(i, type, at, [{ status: 200, ms: this.latency() }]);
    }
    for (let i = 0; i < 4; i++) {
      const at = this.now.getTime() - 3 * HOUR + i * 6 * 60_000;
      this.delivery(100 + i, "incident.created.v1", at, [{ status: 503, ms: 1_900 }, { status: 502, ms: 2_100 }, { status: 0, ms: 30_000, error: "timeout" }], true);
    }
  }

  healthy(): void {
    for (let i = 0; i < 28; i++) this.delivery(i, "incident.closed.v1", this.now.getTime() - 7 * DAY + i * 6 * HOUR, [{ status: 202, ms: this.latency() }]);
  }

  /** Delivered until paused a day ago; since then held as Pending. */
  held(): void {
    for (let i = 0; i < 10; i++) this.delivery(i, "incident.created.v1", this.now.getTime() - 5 * DAY + i * 8 * HOUR, [{ status: 200, ms: this.latency() }]);
    for (let i = 0; i < 3; i++) this.pending(20 + i, this.now.getTime() - 20 * HOUR + i * 5 * HOUR);
  }

  /** Healthy for days; then five incidents' deliveries dead-lettered, the fifth disabling it; since then nothing is sent. */
  autoDisabled(disabledAt: string): void {
    for (let i = 0; i < 18; i++) this.delivery(i, "incident.created.v1", this.now.getTime() - 6 * DAY + i * 7 * HOUR, [{ status: 200, ms: this.latency() }]);
    const end = Date.parse(disabledAt);
    for (let i = 0; i < 5; i++) this.delivery(30 + i, "incident.created.v1", end - (5 - i) * 40 * 60_000, [{ status: 500, ms: 640 }, { status: 500, ms: 610 }, { status: 500, ms: 655 }], true);
  }

  private delivery(n: number, eventType: string, at: number, attempts: Attempt[], exhausted = false): void {
    const message = this.message(n, eventType, at);
    attempts.forEach((a, i) => {
      const last = i === attempts.length - 1;
      const when = new Date(at + i * 30_000);
      const succeeded = a.status >= 200 && a.status < 300;
      const what = a.error ? `timeout: no answer within 30 s` : `HTTP ${a.status}`;
      const error = succeeded ? null : !last ? `${what}${RETRY_SCHEDULED}${new Date(when.getTime() + 30_000).toISOString()}` : `${what}; ${exhausted ? "retries exhausted" : "not retried"}, dead-lettered`;
      const outcome: LogInput["outcome"] = a.error
        ? { kind: "error", error: a.error, message: "no answer within 30 s", durationMs: a.ms }
        : { kind: "response", status: a.status, headers: {}, durationMs: a.ms, snippet: "", responseBytesRead: 0, truncated: false };
      this.entries.push(this.entry({ ...message, attempt: i + 1, firstAttemptAt: new Date(at).toISOString() }, { status: succeeded ? "Succeeded" : "Failed", createdAt: when, outcome, error }));
    });
  }

  private pending(n: number, at: number): void {
    this.entries.push(this.entry(this.message(n, "incident.created.v1", at), { status: "Pending", createdAt: new Date(at), error: "Held: the webhook is paused." }));
  }

  private message(n: number, eventType: string, at: number): DeliveryMessage {
    return {
      webhookId: this.webhook.id,
      eventId: demoId(this.services.config.demoSeed, `delivery/${this.webhook.id}/${n}`),
      eventType,
      occurredAt: new Date(at - 1_000).toISOString(),
      body: "",
      attempt: 1,
      firstAttemptAt: null,
      incident: this.incidents[n % this.incidents.length]!,
      isTest: false,
      redelivered: false,
    };
  }

  private entry(message: DeliveryMessage, input: LogInput): ReturnType<typeof deliveryLogEntry> {
    const headers = { "Content-Type": "application/json", "User-Agent": "SecOps-Webhooks/2", "X-Svc-Event-Id": message.eventId, "X-Svc-Event-Type": message.eventType };
    return deliveryLogEntry(message, this.webhook, { ...input, headers }, this.services.config.webhooks.deliveryLogTtlDays * 86_400);
  }

  /** Mostly 80–400 ms, one answer in fifteen between one and three seconds. */
  private latency(): number {
    this.random = (this.random * 48_271) % 2_147_483_647;
    const r = this.random / 2_147_483_647;
    return this.random % 15 === 0 ? Math.round(1_000 + r * 2_000) : Math.round(80 + r * 320);
  }
}
