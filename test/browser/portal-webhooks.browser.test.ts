import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpsReceiver, type HttpsReceiver } from "../support/https-receiver";
import { startTestHost, type TestHost } from "../support/test-host";
import { waitFor } from "../support/wait-for";
import { seedDemoAdministration } from "../../shared/hosts/local/demo-administration";
import { checkAccessibility, demoPerson, newPage, NO_PROBLEMS, overflowingElements, pageProblems, screenshot, signInInBrowser, startPortal, type Browser, type Page, type Portal } from "../support/browser";
import type { Json } from "../support/json";

/**
 * Webhooks and their health in Chromium, as an integrator watches them: an endpoint that failed, its
 * figures, chart and last failures, the log filtered to its failures, one failed delivery redelivered
 * and seen to succeed at a real HTTPS receiver, then every other failure since a time; pause and resume.
 */

let portal: Portal;
let browser: Browser;
let host: TestHost;
let receiver: HttpsReceiver;
let origin: string;
let webhook: Json;
let failing = true;
/** The incidents whose events the endpoint refuses while it is down; other events get through. */
const TITLES = ["Beaconing to a newly registered domain", "Mass file deletion on FS-02"];
const titleOf = (body: string) => (JSON.parse(body) as Json).data?.title as string | undefined;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  portal = await startPortal({
    webhookCa: receiver.certificate,
    env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", WEBHOOK_RETRY_BACKOFF_MS: "100", WEBHOOK_RETRY_WINDOW_MS: "600" },
  });
  ({ browser, host, origin } = portal);
  const path = "/hooks/soc-ingest";
  // The endpoint is down (503) until the test says otherwise.
  receiver.respondWith((r) => (r.url === path && failing && TITLES.includes(titleOf(r.body) ?? "") ? { status: 503, body: "maintenance" } : {}));
  const res = await host.call("POST", "/webhooks", { body: { name: "SOC ingest", url: receiver.url(path, "127.0.0.1"), eventTypes: ["incident.created.v1"] } });
  expect(res.status).toBe(201);
  webhook = ((await res.json()) as Json).data;
  // Two incidents raised in the vendor's console, ingested by a reconciler pass: two events that fail for good.
  const ws = host.demo.workspaces[0]!.id;
  // The first pass takes what the vendors hold now as known; the next one sees what is new.
  await host.local("POST", "/reconcile");
  for (const title of TITLES) {
    expect((await host.local("POST", `/sources/SourceA/workspaces/${ws}/incidents`, { title, severity: "High" })).status).toBe(201);
  }
  await host.local("POST", "/reconcile");
  await waitFor(async () => (await failedForGood()).length === 2, "two deliveries failed for good", 30_000);
  failing = false;
}, 600_000);

afterAll(async () => {
  await portal?.close();
  await receiver?.close();
});

/** The ids of the events about the test's incidents, as the receiver saw them. */
const ourEvents = () => new Set(receiver.requests.filter((r) => TITLES.includes(titleOf(r.body) ?? "")).map((r) => r.headers["x-svc-event-id"] as string));

/** The newest attempt of each of the test's events whose every attempt failed and none is to come. */
async function failedForGood(): Promise<Json[]> {
  const res = await host.call("GET", `/webhooks/${webhook.id}/delivery-logs?pageSize=200`);
  const logs = ((await res.json()) as Json).data as Json[];
  const mine = ourEvents();
  const byEvent = new Map<string, Json[]>();
  for (const e of logs) if (mine.has(e.eventId)) byEvent.set(e.eventId, [...(byEvent.get(e.eventId) ?? []), e]);
  return [...byEvent.values()].filter((attempts) => attempts.every((a) => a.status === "Failed") && attempts.some((a) => /retries exhausted|dead-lettered/i.test(a.error ?? ""))).map((a) => a[0]!);
}

/** The webhook's health as the portal's API tells it to a person of the organization. */
async function healthFigures(): Promise<Json> {
  const viewer = await host.person({ organizationalRole: "Member" });
  return ((await (await host.portal(viewer, "GET", `/portal/webhooks/${webhook.id}`)).json()) as Json).data;
}

const delivered = (eventId: string) => receiver.requests.filter((r) => r.headers["x-svc-event-id"] === eventId && r.url === "/hooks/soc-ingest");

describe("webhook health in a browser", () => {
  let page: Page;

  beforeAll(async () => {
    page = await newPage(browser, { width: 1280 });
    await signInInBrowser(page, origin, demoPerson("jonas").oid, { returnTo: "/portal/webhooks" });
  }, 120_000);

  it("lists the organization's webhooks with their last day's figures", async () => {
    const row = `tr[data-webhook-id="${webhook.id}"]`;
    await page.waitForSelector(row);
    const text = await page.$eval(row, (el) => (el as HTMLElement).innerText);
    expect(text).toContain("SOC ingest");
    expect(text).toContain("Active");
    const { last24h } = await healthFigures();
    expect(last24h.failed).toBeGreaterThanOrEqual(4);
    expect(text).toContain(`${(last24h.successRate * 100).toFixed(1)}%`);
    await screenshot(page, "webhooks");
    await checkAccessibility(page, "webhooks");
  });

  it("opens one: its figures, latency, chart and last failures with their HTTP status", async () => {
    await page.click(`tr[data-webhook-id="${webhook.id}"] a`);
    await page.waitForSelector('[data-window="Last 24 hours"] .stat');
    await page.waitForSelector("table.delivery-log");
    await page.waitForSelector("svg.chart rect.bar-failed");
    const day = await page.$eval('[data-window="Last 24 hours"]', (el) => (el as HTMLElement).innerText);
    const { last24h } = await healthFigures();
    expect(last24h.finalFailures).toBe(2);
    expect(day).toMatch(new RegExp(`${(last24h.successRate * 100).toFixed(1)}%\\s*Success rate`));
    expect(day).toMatch(new RegExp(`${last24h.failed}\\s*Failed attempts`));
    expect(day).toMatch(/2\s*Failed for good/);
    expect(day).toContain(`p50 ${last24h.latencyMs.p50} ms`);
    const failures = await page.$$eval('table[aria-label="Last failures"] tbody tr, [aria-label="Last failures"] tbody tr', (rows) => rows.map((r) => (r as HTMLElement).innerText));
    expect(failures.length).toBeGreaterThanOrEqual(2);
    expect(failures.every((f) => f.includes("503"))).toBe(true);
    await screenshot(page, "webhook-health");
    await checkAccessibility(page, "webhook-health");
  });

  it("filters the delivery log by outcome and status class", async () => {
    const rows = "table.delivery-log tbody tr";
    await page.select('select[name="outcome"]', "Succeeded");
    await page.waitForFunction((sel) => [...document.querySelectorAll(sel)].every((r) => r.getAttribute("data-status") === "Succeeded"), {}, rows);
    await page.select('select[name="outcome"]', "Failed");
    await page.select('select[name="statusClass"]', "5xx");
    await page.waitForFunction((sel) => {
      const all = [...document.querySelectorAll(sel)];
      return all.length >= 4 && all.every((r) => r.getAttribute("data-status") === "Failed");
    }, {}, rows);
    const texts = await page.$$eval(rows, (all) => all.map((r) => (r as HTMLElement).innerText));
    expect(texts.every((t) => t.includes("503"))).toBe(true);
  });

  it("redelivers one failed delivery and sees it succeed at the receiver", async () => {
    const [first] = await failedForGood();
    const eventId = first!.eventId as string;
    await page.click(`table.delivery-log tbody tr[data-event-id="${eventId}"] button[data-action="redeliver"]`);
    await waitFor(() => delivered(eventId).length > 0 && receiver.responses.length > 0, "the redelivery at the receiver");
    await page.select('select[name="outcome"]', "");
    await page.select('select[name="statusClass"]', "");
    const succeeded = `table.delivery-log tbody tr[data-event-id="${eventId}"][data-status="Succeeded"][data-redelivered="true"]`;
    await page.waitForSelector(succeeded, { timeout: 20_000 });
    expect(await page.$eval(succeeded, (el) => (el as HTMLElement).innerText)).toContain("200");
    expect(JSON.parse(delivered(eventId).at(-1)!.body)).toMatchObject({ id: eventId, type: "incident.created.v1" });
  });

  it("redelivers every delivery that failed for good since a chosen time", async () => {
    const rest = (await failedForGood()).map((e) => e.eventId as string);
    expect(rest).toHaveLength(1);
    const since = await page.$eval('input[name="since"]', (el) => (el as HTMLInputElement).value);
    expect(since).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    await page.click("form.redeliver-failed button[type=submit]");
    await page.waitForSelector("form.redeliver-failed .banner-success");
    expect(await page.$eval("form.redeliver-failed .banner-success", (el) => el.textContent)).toContain("1 event(s) queued");
    await waitFor(() => delivered(rest[0]!).length > 0, "the bulk redelivery at the receiver");
    await checkAccessibility(page, "webhook-health-redelivered");
  });

  it("pauses and resumes the webhook", async () => {
    await page.click('button[data-action="pause"]');
    await page.waitForSelector('button[data-action="resume"]');
    expect((await (await host.call("GET", `/webhooks/${webhook.id}`)).json()).data.status).toBe("Paused");
    await page.click('button[data-action="resume"]');
    await page.waitForSelector('button[data-action="pause"]');
    expect((await (await host.call("GET", `/webhooks/${webhook.id}`)).json()).data.status).toBe("Active");
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);
    await page.browserContext().close();
  });

  it("at 390 px the health page fits the screen and passes axe", async () => {
    const phone = await newPage(browser, { width: 390 });
    await signInInBrowser(phone, origin, demoPerson("li").oid, { returnTo: `/portal/webhooks/${webhook.id}` });
    await phone.waitForSelector("svg.chart");
    expect(await overflowingElements(phone, 390)).toEqual([]);
    // An analyst reads; pausing and redelivering are for those who run the integrations.
    expect(await phone.$('button[data-action="pause"]')).toBeNull();
    expect(await phone.$("form.redeliver-failed")).toBeNull();
    await screenshot(phone, "webhook-health-390");
    await checkAccessibility(phone, "webhook-health-390");
    expect(pageProblems(phone)).toEqual(NO_PROBLEMS);
    await phone.browserContext().close();
  });
});

describe("the demo's webhook health, as npm start shows it", () => {
  it("shows a week of the SOAR intake's deliveries with its outage, and the paused and disabled webhooks", async () => {
    const demo = await startTestHost({ signIn: true });
    try {
      // What npm start seeds after the demo data: among others, the webhooks' week of deliveries.
      await seedDemoAdministration(demo.services, demo.demo);
      const page = await newPage(browser, { width: 1280 });
      await signInInBrowser(page, new URL(demo.base).origin, demoPerson("jonas").oid, { returnTo: "/portal/webhooks" });
      await page.waitForSelector("tr[data-webhook-id]");
      const list = await page.$eval("main table", (el) => (el as HTMLElement).innerText);
      expect(list).toContain("SOAR incident intake");
      expect(list).toContain("Paused");
      expect(list).toContain("Disabled");
      await page.click("xpath/.//a[contains(., 'SOAR incident intake')]");
      await page.waitForSelector("svg.chart rect.bar-failed");
      await page.click('.segmented button[aria-pressed="false"]');
      await page.waitForFunction(() => document.querySelector('.segmented button[aria-pressed="true"]')?.textContent === "7 days");
      await page.waitForFunction(() => document.querySelectorAll("svg.chart g").length === 7);
      const week = await page.$eval('[data-window="Last 7 days"]', (el) => (el as HTMLElement).innerText);
      expect(week).toMatch(/\d+\s*Succeeded/);
      await screenshot(page, "webhook-health-demo", { readme: true });
      await checkAccessibility(page, "webhook-health-demo");
      expect(pageProblems(page)).toEqual(NO_PROBLEMS);
      await page.browserContext().close();
    } finally {
      await demo.close();
    }
  });
});
