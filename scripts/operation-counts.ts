/**
 * `node dist/scripts/operation-counts.js` (run by `npm run bench`): what one request costs the
 * stores and the queues, counted, on the local host's services (simulated vendors, 50 demo
 * workspaces, a fake clock). On Cosmos DB serverless and Service Bus these counts are the bill.
 *
 * - GET /service-accounts/{id} on a warm instance (its caller authenticated before), and the first
 *   one on a cold instance (nothing cached), with its `lastUsedAt` write;
 * - one status change (PUT .../status) delivered to one webhook: the request, the event fan-out and
 *   the delivery, until the queues are idle (the receiver answers 200; its HTTP POST is not counted);
 * - the first page of POST /incidents/across-workspaces over 50 workspaces;
 * - a reconciler pass in which nothing changed;
 * - one gamebook run of 5 playbooks (4 automation steps and a comment, no approval), from the request
 *   until its last playbook is recorded and its events delivered;
 * - a person's bulk assignment of 10 incidents across workspaces (POST /portal/incidents/bulk), until
 *   its events have been fanned out, and a bulk assignment and close of 10 others in one request;
 * - a webhook creation (POST /webhooks) without an `Idempotency-Key`, with a new one, and sent again
 *   with that key.
 *
 * A store operation is one call of a store port's method; a message is one message sent or scheduled
 * on a queue. `test/unit/operation-counts.test.ts` pins the counts, so a change that adds a round
 * trip fails it.
 */
import { randomBytes } from "node:crypto";
import { loadConfig } from "../shared/platform/config/config";
import type { GuardedSender } from "../shared/platform/delivery/guarded-sender";
import { createPipeline, type ApiRequest } from "../shared/platform/http/pipeline";
import { demoId, seedDemoData } from "../shared/hosts/local/demo-data";
import { seedDemoGamebooks } from "../shared/hosts/local/demo-gamebooks";
import { createLocalServices } from "../shared/hosts/local/local-services";
import type { QueueSender } from "../shared/platform/queue/queue";
import { ReconcileRunner } from "../shared/domain/reconciler/reconcile-runner";
import { allRoutes } from "../shared/api/route-groups";
import type { Services } from "../shared/domain/services";
import { createMemoryStores } from "../shared/platform/store/memory/memory-stores";
import type { Stores } from "../shared/platform/store/ports";

export interface OperationCount {
  /** Store port calls. */
  storeOperations: number;
  /** Messages sent or scheduled on any queue. */
  queueMessages: number;
  /** Per `store.method` and per `queue:name`. */
  detail: Record<string, number>;
}

export interface OperationCounts {
  authenticatedGet: OperationCount;
  coldAuthenticatedGet: OperationCount;
  statusChangeDelivered: OperationCount;
  crossWorkspacePage: OperationCount & { workspaces: number; incidents: number };
  reconcilerPassUnchanged: OperationCount & { workspaces: number };
  gamebookRun: OperationCount & { playbooks: number };
  bulkAssign: OperationCount & { incidents: number; workspaces: number };
  bulkAssignAndClose: OperationCount & { incidents: number; workspaces: number };
  webhookCreate: OperationCount;
  webhookCreateWithKey: OperationCount;
  webhookCreateReplayed: OperationCount;
}

export interface MeasureOptions {
  /** Stores to count on (default: the embedded memory stores). */
  stores?: Stores;
  /** Extra environment for the configuration (e.g. a Cosmos store). */
  env?: Record<string, string>;
}

const WORKSPACES = 50;

/** Counts every store call and every queue message from `reset()` on. */
export class Counter {
  private counts = new Map<string, number>();

  add(key: string, n = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + n);
  }

  reset(): void {
    this.counts = new Map();
  }

  snapshot(): OperationCount {
    const detail = Object.fromEntries([...this.counts].sort(([a], [b]) => a.localeCompare(b)));
    const sum = (queue: boolean) => [...this.counts].filter(([k]) => k.startsWith("queue:") === queue).reduce((n, [, v]) => n + v, 0);
    return { storeOperations: sum(false), queueMessages: sum(true), detail };
  }

  /** The same stores, each method counted under `store.method` (own methods and a class's alike). */
  stores(stores: Stores): Stores {
    const counted: Record<string, unknown> = {};
    for (const [name, store] of Object.entries(stores) as [string, object][]) {
      const wrappers = new Map<PropertyKey, unknown>();
      counted[name] = new Proxy(store, {
        get: (target, key) => {
          const member: unknown = Reflect.get(target, key);
          if (typeof member !== "function") return member;
          if (!wrappers.has(key)) {
            wrappers.set(key, (...args: unknown[]) => {
              this.add(`${name}.${String(key)}`);
              return (member as (...a: unknown[]) => unknown).apply(target, args);
            });
          }
          return wrappers.get(key);
        },
      });
    }
    return counted as unknown as Stores;
  }

  /** Counts the messages a queue sender sends or schedules, in place (its users hold this object). */
  queue(sender: QueueSender<unknown>): void {
    const send = sender.send.bind(sender);
    const schedule = sender.schedule.bind(sender);
    Object.assign(sender, {
      send: (messages: readonly unknown[]) => {
        this.add(`queue:${sender.queueName}`, messages.length);
        return send(messages as never);
      },
      schedule: (messages: readonly unknown[], at: Date) => {
        this.add(`queue:${sender.queueName}`, messages.length);
        return schedule(messages as never, at);
      },
    });
  }
}

/** A receiver that takes every delivery: the service's own work is what is counted. */
const acceptingReceiver: GuardedSender = {
  async send() {
    return { kind: "response", status: 200, headers: {}, durationMs: 1, snippet: "", responseBytesRead: 0, truncated: false };
  },
  async close() {},
};

export async function measureOperations(options: MeasureOptions = {}): Promise<OperationCounts> {
  const counter = new Counter();
  let clock = Date.parse("2026-03-02T09:00:00.000Z");
  const now = () => new Date(clock);
  const config = loadConfig({
    DEMO_WORKSPACES: String(WORKSPACES),
    LOCAL_ADMIN_CLIENT_SECRET: "soms_" + randomBytes(32).toString("base64url"),
    RATE_LIMIT_BURST: "1000000",
    RATE_LIMIT_PER_SECOND: "1000000",
    RECONCILE_INTERVAL_MS: "0",
    LOG_LEVEL: "error",
    ...options.env,
  });
  const { services } = createLocalServices(config, {
    now,
    stores: counter.stores(options.stores ?? createMemoryStores({ now: () => clock })),
    webhookSender: acceptingReceiver,
    resolveHost: async () => ["93.184.215.14"],
  });
  const inProcess = services.events.inProcess!;
  counter.queue(inProcess.events);
  counter.queue(inProcess.deliveries);
  counter.queue(inProcess.gamebookRuns);
  if (services.reconciler instanceof ReconcileRunner) counter.queue(services.reconciler.queue);
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      await inProcess.gamebookRuns.idle();
      await inProcess.events.idle();
      await inProcess.deliveries.idle();
    }
  };

  const { admin, data } = await seedDemoData(services);
  await seedDemoGamebooks(services, data);
  const call = requestMaker(services, { authorization: `Basic ${Buffer.from(`${admin.clientId}:${admin.clientSecret}`).toString("base64")}` });
  // The first pass records each workspace's baseline, as the local host does at start.
  await services.reconciler.runPass();
  await settle();

  // (a0) The caller's first request: nothing cached, its credential's use recorded.
  counter.reset();
  await call("GET", `/service-accounts/${admin.clientId}`);
  await new Promise((resolve) => setTimeout(resolve, 50)); // the lastUsedAt write, off the request path
  const coldAuthenticatedGet = counter.snapshot();

  // (a) The caller authenticated once before: the instance is warm.
  counter.reset();
  await call("GET", `/service-accounts/${admin.clientId}`);
  const authenticatedGet = counter.snapshot();

  // (c) The first page over every workspace of the caller.
  counter.reset();
  const page = (await call("POST", "/incidents/across-workspaces", { isFirstCall: true, workspacePageTokens: [] })) as {
    data: { incidents: { incident: { workspaceId: string; id: string; status: string }; source: string; assignee: { userId: string | null } | null }[] };
  };
  const crossWorkspacePage = {
    ...counter.snapshot(),
    workspaces: new Set(page.data.incidents.map((i) => i.incident.workspaceId)).size,
    incidents: page.data.incidents.length,
  };

  // (b) One status change, delivered to the one webhook subscribed to it.
  await call("POST", "/webhooks", { name: "operations probe", url: "https://receiver.example.com/hook", eventTypes: ["incident.status.changed.v1"], authenticationType: "None" });
  const open = page.data.incidents.find((i) => i.source === "SourceA" && (i.incident.status === "New" || i.incident.status === "Active"));
  if (!open) throw new Error("no open SourceA incident on the first page");
  await settle();
  counter.reset();
  const to = open.incident.status === "New" ? "Active" : "New";
  await call("PUT", `/workspaces/${open.incident.workspaceId}/incidents/SourceA/${open.incident.id}/status`, { status: to });
  await settle();
  const statusChangeDelivered = counter.snapshot();

  // (d) Nothing changed: the changes above have left the windows' overlap.
  for (let i = 0; i < 3; i++) {
    clock += 100_000;
    await services.reconciler.runPass();
  }
  await settle();
  clock += 60_000;
  counter.reset();
  const pass = await services.reconciler.runPass();
  await settle();
  const reconcilerPassUnchanged = { ...counter.snapshot(), workspaces: pass.workspaces };

  // (e) One gamebook run of 5 playbooks in a customer's workspace that needs no approval (so that both
  // approval settings are read: the workspace's and its provider's); the webhook above gets its events.
  // The policies are the portal's: read there by the demo's SOC lead, who holds a role on every workspace.
  const lead = data.users.find((u) => u.id === demoId(config.demoSeed, "user/jonas"));
  if (!lead) throw new Error("no demo SOC lead to read the approval policies");
  const { session, setCookie } = services.sessions.start({ tenantId: lead.tenantId, objectId: lead.id, name: lead.displayName, email: lead.email, mfa: true }, now());
  const asLead = requestMaker(services, { cookie: setCookie.split(";")[0]!, "x-csrf-token": services.sessions.csrfToken(session) });
  const customers = new Set(data.customers.map((c) => c.id));
  const unapproved = new Set<string>();
  for (const w of data.workspaces) {
    const policy = (await asLead("GET", `/portal/workspaces/${w.id}/approval-policy`)) as { data: { mode: string } };
    if (customers.has(w.accountId) && policy.data.mode === "NoApproval") unapproved.add(w.id);
  }
  // The first open incident on the page with entities for all four automation steps, so that the
  // run is always 4 automation steps and a comment whichever workspaces the page starts with.
  const kinds = ["Account", "Url", "Ip", "Mailbox"];
  let target: (typeof page.data.incidents)[number] | undefined;
  let entities: { id: string; kind: string }[] = [];
  let title = "";
  for (const i of page.data.incidents) {
    if (!unapproved.has(i.incident.workspaceId) || i.incident.id === open.incident.id || i.incident.status === "Closed") continue;
    const detail = (await call("GET", `/workspaces/${i.incident.workspaceId}/incidents/${i.source}/${i.incident.id}`)) as {
      data: { incident: { title: string }; investigationDetails: { entities: { id: string; kind: string }[] } };
    };
    entities = detail.data.investigationDetails.entities;
    title = detail.data.incident.title;
    if (kinds.every((kind) => entities.some((e) => e.kind === kind))) {
      target = i;
      break;
    }
  }
  if (!target) throw new Error("no open incident with account, URL, IP and mailbox entities in a workspace without approval on the first page");
  const runIn = target.incident.workspaceId;
  const playbookId = (reference: string) => demoId(config.demoSeed, `playbook/${runIn}/${reference}`);
  const steps: { id: string; entityId: string; parameters: Record<string, unknown> }[] = [];
  for (const [kind, reference] of [["Account", "revoke-sessions"], ["Url", "block-url"], ["Ip", "unblock-ip"], ["Mailbox", "purge-email"], ["Url", "unblock-domain"]] as const) {
    const entity = entities.find((e) => e.kind === kind);
    if (entity && steps.length < 4) steps.push({ id: playbookId(reference), entityId: entity.id, parameters: {} });
  }
  while (steps.length < 5) steps.push({ id: playbookId("add-comment"), entityId: target.incident.id, parameters: { message: `Probe note ${steps.length + 1}.` } });
  await settle();
  counter.reset();
  await call("POST", `/workspaces/${runIn}/gamebooks/run`, {
    incidentId: target.incident.id,
    incidentTitle: title,
    source: target.source,
    playbooks: steps.map((step, i) => ({ ...step, sequence: i + 1 })),
  });
  await settle();
  const gamebookRun = { ...counter.snapshot(), playbooks: steps.length };

  // (f) The SOC lead assigns to himself, in one bulk action, 10 open incidents of the page that are not
  // his yet, taken in turn from its workspaces (the provider's own and its customers'), as a lead's
  // selection across the queue is.
  const byWorkspace = new Map<string, (typeof page.data.incidents)[number][]>();
  for (const i of page.data.incidents) {
    if (i.incident.status === "Closed" || i.assignee?.userId === lead.id || i.incident.id === open.incident.id || i.incident.id === target.incident.id) continue;
    byWorkspace.set(i.incident.workspaceId, [...(byWorkspace.get(i.incident.workspaceId) ?? []), i]);
  }
  const picked: (typeof page.data.incidents)[number][] = [];
  for (let round = 0; picked.length < 20 && round < 10; round++) {
    for (const list of byWorkspace.values()) if (list[round] && picked.length < 20) picked.push(list[round]!);
  }
  const [assigned, closed] = [picked.slice(0, 10), picked.slice(10)];
  await settle();
  counter.reset();
  await asLead("POST", "/portal/incidents/bulk", {
    incidents: assigned.map((i) => ({ workspaceId: i.incident.workspaceId, source: i.source, incidentId: i.incident.id })),
    changes: { assignee: { userId: lead.id, email: lead.email } },
  });
  await settle();
  const bulkAssign = { ...counter.snapshot(), incidents: assigned.length, workspaces: new Set(assigned.map((i) => i.incident.workspaceId)).size };

  // (f') The next 10 of that selection assigned to him and closed in one request: per incident the
  // assignment's write, then the close's.
  counter.reset();
  await asLead("POST", "/portal/incidents/bulk", {
    incidents: closed.map((i) => ({ workspaceId: i.incident.workspaceId, source: i.source, incidentId: i.incident.id })),
    changes: { assignee: { userId: lead.id, email: lead.email }, status: "Closed", classification: "FalsePositive" },
  });
  await settle();
  const bulkAssignAndClose = { ...counter.snapshot(), incidents: closed.length, workspaces: new Set(closed.map((i) => i.incident.workspaceId)).size };

  // (g) A webhook created without a key, with a new key, and the same request sent again with it.
  const webhook = (name: string) => ({ name, url: "https://receiver.example.com/hook", eventTypes: ["incident.created.v1"], authenticationType: "None" });
  await settle();
  counter.reset();
  await call("POST", "/webhooks", webhook("operations probe without a key"));
  await settle();
  const webhookCreate = counter.snapshot();
  counter.reset();
  await call("POST", "/webhooks", webhook("operations probe with a key"), { "idempotency-key": '"operations-probe"' });
  await settle();
  const webhookCreateWithKey = counter.snapshot();
  counter.reset();
  await call("POST", "/webhooks", webhook("operations probe with a key"), { "idempotency-key": '"operations-probe"' });
  await settle();
  const webhookCreateReplayed = counter.snapshot();

  await inProcess.events.close();
  await inProcess.deliveries.close();
  await inProcess.gamebookRuns.close();
  return { authenticatedGet, coldAuthenticatedGet, statusChangeDelivered, crossWorkspacePage, reconcilerPassUnchanged, gamebookRun, bulkAssign, bulkAssignAndClose, webhookCreate, webhookCreateWithKey, webhookCreateReplayed };
}

/** Calls the API's pipeline in this process as the given caller (its credential or session cookie); resolves with the JSON answer, or throws on a non-2xx. */
function requestMaker(services: Services, caller: Record<string, string>) {
  const handle = createPipeline(allRoutes(), services);
  return async (method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<unknown> => {
    const raw = body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { ...caller, ...extra, ...(body === undefined ? {} : { "content-type": "application/json" }) };
    const request: ApiRequest = {
      method,
      path: `/api/v2${path}`,
      search: "",
      origin: "http://127.0.0.1",
      header: (name) => headers[name],
      body: async () => raw,
      clientAddress: "127.0.0.1",
      // Each request its own, as each connection has: the pipeline listens to the caller's signal
      // for the request's life, so one signal shared by every request would gather their listeners.
      signal: new AbortController().signal,
    };
    const { response } = await handle(request);
    const text = response.body === undefined ? "" : response.body.toString();
    if (response.status < 200 || response.status > 299) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
}

if (require.main === module) {
  measureOperations().then(
    (counts) => process.stdout.write(JSON.stringify(counts) + "\n"),
    (error: unknown) => {
      process.stderr.write(String((error as Error)?.stack ?? error) + "\n");
      process.exit(1);
    },
  );
}
