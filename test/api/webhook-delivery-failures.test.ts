import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { HostResolver } from "../../shared/platform/delivery/address-policy";
import type { DeliveryLogRecord } from "../../shared/model/webhooks/delivery-log";
import type { VendorIncident } from "../../shared/model/incidents/incident";
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest, type ReceiverScript } from "../support/https-receiver";
import { fakeDns, startTestHost, type TestHost } from "../support/test-host";
import { waitFor } from "../support/wait-for";
import { json, type Json } from "../support/json";

/*
 * The failure paths of webhook delivery, end to end: the real API, the in-process queues, the guarded
 * sender and a real local HTTPS receiver. Every webhook of a host gets every incident event it
 * subscribes to, so the receiver is scripted per webhook URL path, and each test deletes its webhooks.
 */

vi.setConfig({ testTimeout: 60_000 });

const BACKOFF_MS = 200;
const WINDOW_MS = 6000;
const TIMEOUT_MS = 2000;
/** Timer and clock slack allowed on a loaded machine, for "at least this long" asserts only. */
const SLACK_MS = 400;

let receiver: HttpsReceiver;
let host: TestHost;
let ws: string;
beforeAll(async () => {
  receiver = await startHttpsReceiver();
  host = await startTestHost({
    webhookCa: receiver.certificate,
    env: {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      WEBHOOK_RETRY_BACKOFF_MS: String(BACKOFF_MS),
      WEBHOOK_RETRY_WINDOW_MS: String(WINDOW_MS),
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    },
  });
  ws = host.demo.workspaces[0]!.id;
});
afterAll(async () => {
  await host?.close();
  await receiver?.close();
});

// --- the receiver, scripted per webhook path ----------------------------------------------------

/** Per path: the script for the n-th request (1-based) to that path. Unscripted paths get 200. */
const scripts = new Map<string, (n: number, request: ReceivedRequest) => ReceiverScript>();
const counts = new Map<string, number>();
/** When each request arrived (same index as `receiver.requests`). */
let arrivals: number[] = [];

beforeEach(() => {
  receiver.reset();
  scripts.clear();
  counts.clear();
  arrivals = [];
  receiver.respondWith((request) => {
    arrivals.push(Date.now());
    const n = (counts.get(request.url) ?? 0) + 1;
    counts.set(request.url, n);
    return scripts.get(request.url)?.(n, request) ?? {};
  });
});

const pathOf = (webhook: Json) => new URL(webhook.url).pathname;
function script(webhook: Json, fn: (n: number, request: ReceivedRequest) => ReceiverScript): void {
  scripts.set(pathOf(webhook), fn);
}
const requestsTo = (webhook: Json) => receiver.requests.filter((r) => r.url === pathOf(webhook));
const indexesOf = (webhook: Json) => receiver.requests.flatMap((r, i) => (r.url === pathOf(webhook) ? [i] : []));
const eventIdOf = (r: ReceivedRequest) => r.headers["x-svc-event-id"] as string;

// --- webhooks, events, logs ---------------------------------------------------------------------

/** Webhooks made by the running test, deleted after it so later events do not fan out to them. */
let made: Array<{ on: TestHost; id: string }> = [];
afterEach(async () => {
  const mine = made;
  made = [];
  for (const { on, id } of mine) await on.call("DELETE", `/webhooks/${id}`);
});

const uniquePath = (label: string) => `/hook/${label}-${Math.random().toString(36).slice(2, 10)}`;

async function createWebhook(label: string, over: Json = {}, on: TestHost = host): Promise<Json> {
  const res = await on.call("POST", "/webhooks", {
    body: { name: label, url: receiver.url(uniquePath(label), "127.0.0.1"), eventTypes: ["incident.status.changed.v1"], ...over },
  });
  const body = await json(res);
  if (res.status !== 201) throw new Error(`create ${label}: ${res.status} ${JSON.stringify(body)}`);
  made.push({ on, id: body.data.id });
  return body.data;
}

function newIncident(on: TestHost = host, workspaceId = on === host ? ws : on.demo.workspaces[0]!.id): VendorIncident {
  return on.simulated.vendors.createIncident("SourceA", workspaceId, { title: "Beaconing to known C2", severity: "High" });
}
const statusPath = (i: VendorIncident) => `/workspaces/${i.workspaceId}/incidents/SourceA/${i.id}/status`;

/** A status change through the API: one incident.status.changed.v1 event for every subscribed webhook. */
async function changeStatus(on: TestHost = host): Promise<VendorIncident> {
  const incident = newIncident(on);
  const res = await on.call("PUT", statusPath(incident), { body: { status: "Active" } });
  expect(res.status).toBe(204);
  return incident;
}

/** Every delivery-log entry of a webhook, through the API (all pages), ordered by attempt. */
async function logsOf(webhook: Json, on: TestHost = host): Promise<Json[]> {
  const all: Json[] = [];
  let token: string | undefined;
  do {
    const query = `pageSize=200${token ? `&continuationToken=${encodeURIComponent(token)}` : ""}`;
    const res = await on.call("GET", `/webhooks/${webhook.id}/delivery-logs?${query}`);
    const page = await json(res);
    if (res.status !== 200) throw new Error(`delivery-logs: ${res.status} ${JSON.stringify(page)}`);
    all.push(...page.data);
    token = page.pagination?.hasMore ? page.pagination.continuationToken : undefined;
  } while (token);
  return all.sort((a, b) => a.attempt - b.attempt || a.createdAt.localeCompare(b.createdAt));
}

/** Polls a webhook's log until `done` holds for it. */
const waitForLogs = (webhook: Json, done: (logs: Json[]) => boolean, what: string, on: TestHost = host, timeoutMs?: number) =>
  waitFor(
    async () => {
      const logs = await logsOf(webhook, on);
      return done(logs) && logs;
    },
    `${what} (${webhook.name})`,
    timeoutMs,
  );

const succeeded = (logs: Json[]) => logs.some((e) => e.status === "Succeeded");
const isFinal = (e: Json) => e.status === "Succeeded" || (e.status === "Failed" && /dead-lettered/.test(e.error ?? ""));

/** Waits for the deliveries queue to drain, including retries due within the retry window. */
async function deliveriesSettled(on: TestHost = host): Promise<void> {
  await on.services.events.inProcess!.deliveries.idle({ includeScheduledBefore: new Date(Date.now() + WINDOW_MS + 1000), timeoutMs: 30_000 });
}

/** A port on 127.0.0.1 with nothing listening: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// --- retries ------------------------------------------------------------------------------------

describe("retry triggers", () => {
  it("408, 429, 500, 502, 503, 504, late headers (timeout) and a refused connection each lead to another attempt of the same event", async () => {
    const statuses = [408, 429, 500, 502, 503, 504];
    const byStatus = new Map<number, Json>();
    for (const status of statuses) {
      const webhook = await createWebhook(`status-${status}`);
      script(webhook, (n) => (n === 1 ? { status, body: "try again" } : {}));
      byStatus.set(status, webhook);
    }
    const late = await createWebhook("late-headers");
    script(late, (n) => (n === 1 ? { delayBeforeHeadersMs: TIMEOUT_MS + 1500 } : {}));
    const refused = await createWebhook("refused", { url: `https://127.0.0.1:${await closedPort()}/refused` });

    await changeStatus();

    for (const [status, webhook] of byStatus) {
      const logs = await waitForLogs(webhook, succeeded, "a Succeeded attempt after the retryable status");
      expect(logs[0]).toMatchObject({ attempt: 1, status: "Failed", success: false, httpStatusCode: status });
      expect(logs[0]!.error).toContain(`HTTP ${status}`);
      expect(logs[0]!.error).toContain("next attempt at");
      expect(logs.at(-1)).toMatchObject({ status: "Succeeded", httpStatusCode: 200, success: true });
      expect(logs.at(-1)!.attempt).toBeGreaterThan(1);
      const got = requestsTo(webhook);
      expect(got.length).toBeGreaterThanOrEqual(2);
      // Every attempt carries the same event, byte for byte.
      expect(new Set(got.map(eventIdOf)).size).toBe(1);
      expect(new Set(got.map((r) => r.headers["webhook-id"])).size).toBe(1);
      expect(new Set(got.map((r) => r.body)).size).toBe(1);
      expect(new Set(logs.map((e) => e.eventId))).toEqual(new Set([eventIdOf(got[0]!)]));
    }

    const lateLogs = await waitForLogs(late, succeeded, "a Succeeded attempt after the timeout");
    expect(lateLogs[0]).toMatchObject({ attempt: 1, status: "Failed", httpStatusCode: 0 });
    expect(lateLogs[0]!.error).toMatch(/timeout/i);
    expect(lateLogs[0]!.error).toContain("next attempt at");
    expect(lateLogs.at(-1)!.attempt).toBeGreaterThan(1);
    expect(new Set(requestsTo(late).map(eventIdOf)).size).toBe(1);

    // Nothing ever listens there: it is tried again and again (until the budget ends).
    const refusedLogs = await waitForLogs(refused, (l) => l.length >= 2, "a second attempt at a closed port");
    for (const entry of refusedLogs.slice(0, 2)) {
      expect(entry).toMatchObject({ status: "Failed", httpStatusCode: 0, success: false });
      expect(entry.error).toMatch(/^connection: .*ECONNREFUSED/);
    }
    expect(refusedLogs[0]!.error).toContain("next attempt at");
    expect(refusedLogs.slice(0, 2).map((e) => e.attempt)).toEqual([1, 2]);
    expect(refusedLogs[0]!.eventId).toBe(refusedLogs[1]!.eventId);
  });

  it("a Retry-After longer than the backoff delays the next attempt; one past the window is cut to the window's end", async () => {
    const seconds = await createWebhook("retry-after-seconds");
    script(seconds, (n) => (n === 1 ? { status: 503, headers: { "Retry-After": "3" } } : {}));
    const httpDate = await createWebhook("retry-after-date");
    // An IMF-fixdate 4 s ahead: with the milliseconds dropped, at least 3 s away.
    script(httpDate, (n) => (n === 1 ? { status: 429, headers: { "Retry-After": new Date(Date.now() + 4000).toUTCString() } } : {}));
    const pastWindow = await createWebhook("retry-after-past-window");
    script(pastWindow, (n) => (n === 1 ? { status: 503, headers: { "Retry-After": "3600" } } : {}));

    await changeStatus();

    const gapOf = async (webhook: Json) => {
      const logs = await waitForLogs(webhook, succeeded, "the delayed attempt's success");
      expect(logs.map((e) => [e.attempt, e.status])).toEqual([
        [1, "Failed"],
        [2, "Succeeded"],
      ]);
      const [first, second] = indexesOf(webhook);
      return { logged: Date.parse(logs[1]!.createdAt) - Date.parse(logs[0]!.createdAt), received: arrivals[second!]! - arrivals[first!]! };
    };

    // The backoff alone would have retried after BACKOFF_MS.
    for (const webhook of [seconds, httpDate]) {
      const gap = await gapOf(webhook);
      expect(gap.logged).toBeGreaterThanOrEqual(3000 - SLACK_MS);
      expect(gap.received).toBeGreaterThanOrEqual(3000 - SLACK_MS);
    }
    // An hour is past the 6 s budget: the last chance is taken at the window's end instead.
    const gap = await gapOf(pastWindow);
    expect(gap.logged).toBeGreaterThanOrEqual(WINDOW_MS - SLACK_MS);
    expect(gap.received).toBeGreaterThanOrEqual(WINDOW_MS - SLACK_MS);
  });
});

// --- permanent failures -------------------------------------------------------------------------

describe("permanent failures", () => {
  it("redirects (301, 302, 307, 308) fail at once and are not followed", async () => {
    const cases: Array<{ status: number; webhook: Json; target: string }> = [];
    for (const status of [301, 302, 307, 308]) {
      const webhook = await createWebhook(`redirect-${status}`);
      const target = uniquePath(`redirect-target-${status}`);
      script(webhook, () => ({ status, headers: { Location: receiver.url(target, "127.0.0.1") } }));
      cases.push({ status, webhook, target });
    }
    await changeStatus();

    for (const { status, webhook } of cases) {
      const [entry] = await waitForLogs(webhook, (l) => l.length >= 1, "the redirect's log entry");
      expect(entry).toMatchObject({ attempt: 1, status: "Failed", success: false, httpStatusCode: status });
      expect(entry!.error).toBe(`HTTP ${status}; not retried, dead-lettered`);
    }
    await deliveriesSettled();
    for (const { webhook, target } of cases) {
      expect((await logsOf(webhook)).length).toBe(1);
      expect(requestsTo(webhook).length).toBe(1);
      expect(receiver.requests.filter((r) => r.url === target)).toEqual([]);
    }
  });

  it("404, 410, 422 (and 401, 501) fail after one attempt: Failed, not retried", async () => {
    const cases: Array<[number, Json]> = [];
    for (const status of [401, 404, 410, 422, 501]) {
      const webhook = await createWebhook(`permanent-${status}`);
      script(webhook, () => ({ status, body: "no" }));
      cases.push([status, webhook]);
    }
    await changeStatus();
    for (const [status, webhook] of cases) {
      const [entry] = await waitForLogs(webhook, (l) => l.length >= 1, "the permanent failure's log entry");
      expect(entry).toMatchObject({ attempt: 1, status: "Failed", success: false, httpStatusCode: status });
      expect(entry!.error).toBe(`HTTP ${status}; not retried, dead-lettered`);
    }
    await deliveriesSettled();
    for (const [, webhook] of cases) {
      expect((await logsOf(webhook)).length).toBe(1);
      expect(requestsTo(webhook).length).toBe(1);
    }
  });
});

// --- timeouts and response bodies ---------------------------------------------------------------

describe("timeouts and response bodies", () => {
  it("a receiver that never answers: the attempt fails with status 0 and a timeout, and is retried", async () => {
    const webhook = await createWebhook("hang");
    script(webhook, (n) => (n === 1 ? { hang: true } : {}));
    await changeStatus();
    const logs = await waitForLogs(webhook, succeeded, "the attempt after the timeout");
    expect(logs[0]).toMatchObject({ attempt: 1, status: "Failed", success: false, httpStatusCode: 0 });
    expect(logs[0]!.error).toMatch(new RegExp(`^timeout: .*${TIMEOUT_MS} ms.*; next attempt at `));
    expect(logs[0]!.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - SLACK_MS);
    expect(logs.at(-1)).toMatchObject({ status: "Succeeded", httpStatusCode: 200 });
    // The sender gave up on the hung exchange and closed it.
    const [first] = indexesOf(webhook);
    await receiver.responses[first!]!.closed;
    expect(receiver.responses[first!]!.finished).toBe(false);
  });

  it("a body trickled for longer than the timeout is a timeout, though the status was 200", async () => {
    const webhook = await createWebhook("slow-body");
    // 200 at once, then 50 × 200 ms of body: 10 s, five times the timeout; each chunk comes well
    // within it, so only a budget for the whole exchange (not an idle timer) stops it.
    script(webhook, (n) => (n === 1 ? { status: 200, slowBody: { chunk: "x".repeat(32), intervalMs: 200, count: 50 } } : {}));
    await changeStatus();
    const logs = await waitForLogs(webhook, succeeded, "the attempt after the slow body");
    expect(logs[0]).toMatchObject({ attempt: 1, status: "Failed", success: false, httpStatusCode: 0 });
    expect(logs[0]!.error).toMatch(/^timeout: .*; next attempt at /);
    expect(logs[0]!.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - SLACK_MS);
    expect(logs[0]!.durationMs).toBeLessThan(8000);
    expect(logs.at(-1)).toMatchObject({ status: "Succeeded", httpStatusCode: 200 });
    const [first] = indexesOf(webhook);
    await receiver.responses[first!]!.closed;
    expect(receiver.responses[first!]!.finished).toBe(false);
    expect(receiver.responses[first!]!.bodyBytesWritten).toBeLessThan(50 * 32);
  });

  it("a 50 MB body after a 200 is read only up to the cap and dropped: Succeeded", async () => {
    const webhook = await createWebhook("huge-body");
    const totalBytes = 50 * 1024 * 1024;
    script(webhook, () => ({ status: 200, hugeBody: { totalBytes } }));
    await changeStatus();
    const logs = await waitForLogs(webhook, (l) => l.length >= 1, "the huge body's log entry");
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ attempt: 1, status: "Succeeded", success: true, httpStatusCode: 200, error: null, responseBody: "" });
    const [only] = indexesOf(webhook);
    const record = receiver.responses[only!]!;
    await record.closed;
    expect(record.finished).toBe(false);
    // 1 MB read, plus what socket and TLS buffers took in before the connection was dropped.
    expect(record.bodyBytesWritten).toBeLessThan(totalBytes / 5);
    await deliveriesSettled();
    expect(requestsTo(webhook)).toHaveLength(1);
  });
});

// --- SSRF ---------------------------------------------------------------------------------------

describe("SSRF: a host without WEBHOOK_ALLOW_PRIVATE_TARGETS", () => {
  /** Names whose answer flips from public to a private address once `rebound` is set. */
  const rebinding: Record<string, string[]> = {
    "hooks.rebind.example.com": ["127.0.0.1"],
    "metadata.rebind.example.com": ["169.254.169.254"],
    "loopback6.rebind.example.com": ["::1"],
    "mapped.rebind.example.com": ["::ffff:127.0.0.1"],
    "ula.rebind.example.com": ["fd00::1"],
    "one-of-two.rebind.example.com": ["93.184.215.14", "127.0.0.1"],
  };
  /** Names that resolve to non-public addresses from the start. */
  const privateNames: Record<string, string[]> = {
    "ten.private.example.net": ["10.20.30.40"],
    "metadata.private.example.net": ["169.254.169.254"],
    "cgnat.private.example.net": ["100.64.1.2"],
    "loopback.private.example.net": ["127.0.0.1"],
    "zero.private.example.net": ["0.0.0.0"],
    "loopback6.private.example.net": ["::1"],
    "ula.private.example.net": ["fd00::1"],
    "linklocal6.private.example.net": ["fe80::1"],
    "mapped.private.example.net": ["::ffff:10.0.0.1"],
    "nat64.private.example.net": ["64:ff9b::a9fe:a9fe"],
    "mixed.private.example.net": ["93.184.215.14", "10.0.0.1"],
  };
  let rebound = false;
  const resolveHost: HostResolver = async (name) => {
    if (name in rebinding) return rebound ? rebinding[name]! : ["93.184.215.14"];
    if (name in privateNames) return privateNames[name]!;
    return fakeDns(name);
  };

  let strict: TestHost;
  /** A plain TCP listener on 127.0.0.1 that counts connections: any connection is a guard failure. */
  let canary: TcpServer;
  let canaryConnections = 0;
  beforeAll(async () => {
    strict = await startTestHost({
      webhookCa: receiver.certificate,
      resolveHost,
      env: { WEBHOOK_RETRY_BACKOFF_MS: String(BACKOFF_MS), WEBHOOK_RETRY_WINDOW_MS: String(WINDOW_MS), WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) },
    });
    canary = createTcpServer((socket) => {
      canaryConnections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => canary.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    await strict?.close();
    await new Promise<void>((resolve) => (canary ? canary.close(() => resolve()) : resolve()));
  });

  it("every private, loopback or literal form is refused at configuration (POST and PUT)", async () => {
    const rejected: Array<[url: string, message: RegExp]> = [
      ["http://hooks.example.com/soc", /must use HTTPS/],
      ["https://user:secret@hooks.example.com/soc", /must not contain credentials/],
      ["https://localhost/soc", /localhost/],
      ["https://localhost:8443/soc", /localhost/],
      ["https://LOCALHOST./soc", /localhost/],
      ["https://api.localhost/soc", /localhost/],
      ["https://127.0.0.1/soc", /not an IP address/],
      ["https://10.0.0.8/soc", /not an IP address/],
      ["https://169.254.169.254/latest/meta-data/", /not an IP address/],
      ["https://100.64.0.1/soc", /not an IP address/],
      // A public literal too: literals are never accepted, whatever they point to.
      ["https://93.184.215.14/soc", /not an IP address/],
      // Spellings the URL parser turns into 127.0.0.1.
      ["https://2130706433/soc", /not an IP address/],
      ["https://0x7f.0.0.1/soc", /not an IP address/],
      ["https://127.1/soc", /not an IP address/],
      ["https://[::1]/soc", /not an IP address/],
      ["https://[fd00::1]/soc", /not an IP address/],
      ["https://[::ffff:127.0.0.1]/soc", /not an IP address/],
      ["https://[::ffff:a9fe:a9fe]/soc", /not an IP address/],
      ["https://[2606:2800:220:1:248:1893:25c8:1946]/soc", /not an IP address/],
      ...Object.keys(privateNames).map((name): [string, RegExp] => [`https://${name}/soc`, /resolves to a private or reserved address/]),
      ["https://nowhere.invalid/soc", /does not resolve/],
    ];
    for (const [url, message] of rejected) {
      const res = await strict.call("POST", "/webhooks", { body: { name: "ssrf", url, eventTypes: ["incident.status.changed.v1"] } });
      const problem = await json(res);
      expect([url, res.status, problem.code, Object.keys(problem.errors ?? {})]).toEqual([url, 400, "VALIDATION_ERROR", ["url"]]);
      expect(problem.errors.url[0], url).toMatch(message);
    }
    const listed = (await json(await strict.call("GET", "/webhooks"))).data as Json[];
    expect(listed.filter((w) => w.name === "ssrf")).toEqual([]);

    // A webhook on a public name cannot be re-pointed at a private one either.
    const good = await createWebhook("public", { url: "https://hooks.example.com/soc" }, strict);
    for (const url of ["https://ten.private.example.net/soc", "https://[::ffff:127.0.0.1]/soc", "https://localhost/soc"]) {
      const res = await strict.call("PUT", `/webhooks/${good.id}`, { body: { name: "public", url, eventTypes: ["incident.status.changed.v1"], monitoredAccountIds: [] } });
      expect([url, res.status, (await json(res)).code]).toEqual([url, 400, "VALIDATION_ERROR"]);
    }
    expect((await json(await strict.call("GET", `/webhooks/${good.id}`))).data.url).toBe("https://hooks.example.com/soc");
  });

  it("a loopback target refused by default names the setting that allows it on a local host", async () => {
    for (const url of ["https://127.0.0.1:8443/hook", "https://localhost:8443/hook", "https://[::1]:8443/hook", "https://loopback.private.example.net/hook"]) {
      const res = await strict.call("POST", "/webhooks", { body: { name: "local", url, eventTypes: ["incident.status.changed.v1"] } });
      const problem = await json(res);
      expect([url, res.status, problem.code]).toEqual([url, 400, "VALIDATION_ERROR"]);
      expect(problem.detail, url).toContain("WEBHOOK_ALLOW_PRIVATE_TARGETS=true");
      expect(problem.errors.url[0], url).toContain("WEBHOOK_ALLOW_PRIVATE_TARGETS=true");
    }
  });

  it("a name accepted as public and re-pointed at 127.0.0.1 (and other private addresses) is blocked at connect time", async () => {
    rebound = false;
    const main = await createWebhook("rebind", { url: `https://hooks.rebind.example.com:${receiver.port}/rebind` }, strict);
    const others: Json[] = [];
    for (const name of Object.keys(rebinding).filter((n) => n !== "hooks.rebind.example.com")) {
      others.push(await createWebhook(name, { url: `https://${name}:${(canary.address() as AddressInfo).port}/rebind` }, strict));
    }
    // After configuration, DNS now answers loopback, metadata and private addresses.
    rebound = true;
    await changeStatus(strict);

    for (const webhook of [main, ...others]) {
      const logs = await waitForLogs(webhook, (l) => l.length >= 1, "the blocked attempt", strict);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({ attempt: 1, status: "Failed", success: false, httpStatusCode: 0 });
      expect(logs[0]!.error).toMatch(/^blocked-address: .* is not a public address\.; not retried, dead-lettered$/);
    }
    expect((await logsOf(main, strict))[0]!.error).toContain("hooks.rebind.example.com resolves to 127.0.0.1");
    await deliveriesSettled(strict);
    expect(receiver.requests).toEqual([]);
    expect(canaryConnections).toBe(0);
  });
});

// --- crash and outage ---------------------------------------------------------------------------

describe("crash and outage", () => {
  it("a worker crash after the request was sent: the queue redelivers and the same event goes out again", async () => {
    const webhook = await createWebhook("crash");
    const store = host.services.stores.deliveryLogs;
    const put = store.put.bind(store);
    let crashes = 0;
    // The handler dies between sending and recording: the first log write for this webhook throws.
    const spy = vi.spyOn(store, "put").mockImplementation(async (entry: DeliveryLogRecord) => {
      if (entry.webhookConfigurationId === webhook.id && crashes === 0) {
        crashes++;
        throw new Error("simulated worker crash after the request was sent");
      }
      return put(entry);
    });
    try {
      await changeStatus();
      const logs = await waitForLogs(webhook, (l) => l.length >= 1, "the redelivered attempt's log entry");
      const got = requestsTo(webhook);
      expect(crashes).toBe(1);
      expect(got).toHaveLength(2);
      expect(eventIdOf(got[0]!)).toBe(eventIdOf(got[1]!));
      expect(got[0]!.headers["webhook-id"]).toBe(got[1]!.headers["webhook-id"]);
      expect(got[0]!.headers["webhook-id"]).toBe(eventIdOf(got[0]!));
      expect(got[0]!.body).toBe(got[1]!.body);
      expect(JSON.parse(got[0]!.body).id).toBe(eventIdOf(got[0]!));
      // Same attempt, same entry: one Succeeded entry, no phantom.
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({ attempt: 1, status: "Succeeded", eventId: eventIdOf(got[0]!) });
      expect(host.logs.some((l) => l.message === "message handler failed; message abandoned" && String(l.fields.error).includes("simulated worker crash"))).toBe(true);
      await deliveriesSettled();
      expect(requestsTo(webhook)).toHaveLength(2);
    } finally {
      spy.mockRestore();
    }
  });

  it("a receiver outage: N events accepted meanwhile are all delivered or dead-lettered with a log entry, none missing", async () => {
    const N = 10;
    const STILL_BROKEN = 3;
    const webhook = await createWebhook("outage");
    // 503 to everything until all N events have been tried once; then the receiver is back, except
    // for the first STILL_BROKEN events (a backend that stays down for them), which run out of
    // attempts. Fewer than 5 incidents fail for good, so auto-disable stays out of it.
    let outage = true;
    const seen: string[] = [];
    script(webhook, (_n, r) => {
      const id = eventIdOf(r);
      if (!seen.includes(id)) seen.push(id);
      const answer = outage || seen.indexOf(id) < STILL_BROKEN ? { status: 503 } : {};
      if (seen.length === N) outage = false;
      return answer;
    });

    const incidents = Array.from({ length: N }, () => newIncident());
    const accepted = await Promise.all(incidents.map((i) => host.call("PUT", statusPath(i), { body: { status: "Active" } })));
    expect(accepted.map((r) => r.status)).toEqual(Array(N).fill(204));

    const logs = await waitForLogs(
      webhook,
      (l) => {
        const ids = new Set(l.map((e) => e.eventId));
        return ids.size >= N && [...ids].every((id) => l.some((e) => e.eventId === id && isFinal(e)));
      },
      `a final entry for each of the ${N} events`,
      host,
      45_000,
    );
    await deliveriesSettled();
    const final = await logsOf(webhook);
    expect(final.length).toBe(logs.length);

    // The N events are exactly the N status changes: one per incident, each received.
    const received = requestsTo(webhook);
    const incidentOfEvent = new Map(received.map((r) => [eventIdOf(r), JSON.parse(r.body).data.incidentId as string]));
    expect(new Set(incidentOfEvent.values())).toEqual(new Set(incidents.map((i) => i.id)));
    const eventIds = [...new Set(final.map((e) => e.eventId))];
    expect(eventIds.length).toBe(N);
    expect(new Set(eventIds)).toEqual(new Set(incidentOfEvent.keys()));

    const outcomes = new Map<string, "Succeeded" | "dead-lettered">();
    for (const id of eventIds) {
      const entries = final.filter((e) => e.eventId === id);
      // One entry per attempt, attempts 1..k with none missing, and one entry per request received.
      expect(entries.map((e) => e.attempt)).toEqual(entries.map((_, i) => i + 1));
      expect(received.filter((r) => eventIdOf(r) === id).length).toBe(entries.length);
      const last = entries.at(-1)!;
      expect(entries.filter(isFinal)).toEqual([last]);
      for (const e of entries.slice(0, -1)) {
        expect(e).toMatchObject({ status: "Failed", httpStatusCode: 503 });
        expect(e.error).toContain("next attempt at");
      }
      if (last.status === "Succeeded") {
        expect(last.httpStatusCode).toBe(200);
        outcomes.set(id, "Succeeded");
      } else {
        expect(last).toMatchObject({ status: "Failed", httpStatusCode: 503 });
        expect(last.error).toBe("HTTP 503; retries exhausted, dead-lettered");
        outcomes.set(id, "dead-lettered");
      }
    }
    expect(outcomes.size).toBe(N);
    for (const id of seen.slice(0, STILL_BROKEN)) expect(outcomes.get(id)).toBe("dead-lettered");
    // The last event tried during the outage was retried after the recovery.
    expect(outcomes.get(seen[N - 1]!)).toBe("Succeeded");
    expect([...outcomes.values()].filter((o) => o === "Succeeded").length).toBeGreaterThanOrEqual(1);
    expect((await json(await host.call("GET", `/webhooks/${webhook.id}`))).data.status).toBe("Active");
  });
});
