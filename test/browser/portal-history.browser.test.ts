import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestHost, TestPerson } from "../support/test-host";
import { seedDemoGamebookRuns } from "../../shared/hosts/local/demo-gamebook-runs";
import { checkAccessibility, demoPerson, newPage, NO_PROBLEMS, overflowingElements, pageProblems, screenshot, signInInBrowser, startPortal, type Browser, type Page, type Portal } from "../support/browser";

/**
 * The History section in Chromium: the decided approval requests with what ran, the gamebook runs of
 * every workspace, and the organization's audit trail, each with its filters in the URL (a reload
 * shows the same view), "Show more" only while there is more, axe-clean at 1280 and 390 px.
 */
let portal: Portal;
let browser: Browser;
let host: TestHost;
let origin: string;
let page: Page;
let clinics: string;
let approvedRun: string;
let deniedRun: string;
let approver: TestPerson;

beforeAll(async () => {
  portal = await startPortal({ env: { SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  ({ browser, host, origin } = portal);
  // What `npm start` seeds: runs in the first workspaces, and two waiting for approval in the clinics'.
  await seedDemoGamebookRuns(host.services, host.demo.workspaces);
  clinics = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-clinics")!.id;
  approver = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: clinics, role: "Owner" }] });
  const waiting = (await host.services.stores.gamebookRuns.listAwaitingApproval({ workspaceIds: [clinics] }, { limit: 10 })).items.map((r) => r.id);
  [approvedRun, deniedRun] = waiting as [string, string];
  expect((await host.portal(approver, "POST", `/portal/workspaces/${clinics}/approvals/${approvedRun}/approve`, { body: { comment: "Confirmed with the clinic's on-call." } })).status).toBe(200);
  expect((await host.portal(approver, "POST", `/portal/workspaces/${clinics}/approvals/${deniedRun}/deny`, { body: { reason: "The sign-ins are the nurse's own travel." } })).status).toBe(200);
  for (let i = 0; i < 200 && (await host.services.stores.gamebookRuns.get(clinics, approvedRun))!.value.status === "Pending"; i++) await new Promise((r) => setTimeout(r, 25));
  page = await newPage(browser, { width: 1280 });
  // Jonas, a WorkspaceAdmin: every workspace of the provider's organization, and its audit trail.
  await signInInBrowser(page, origin, demoPerson("jonas").oid, { returnTo: "/portal/history" });
}, 600_000);

afterAll(async () => {
  await portal?.close();
});

const card = (runId: string) => `article.approval[data-run-id="${runId}"]`;
const text = (selector: string) => page.$eval(selector, (el) => (el as unknown as { innerText: string }).innerText);
const query = () => new URL(page.url()).searchParams;

async function reload(): Promise<void> {
  await page.reload();
  await page.waitForSelector("main h1");
}

describe("decided approvals", () => {
  it("shows each decided request: who decided, when and why, who asked, and what ran step by step", async () => {
    await page.waitForSelector(card(deniedRun));
    await page.waitForSelector(card(approvedRun));
    const denied = await text(card(deniedRun));
    expect(await page.$eval(card(deniedRun), (el) => el.getAttribute("data-outcome"))).toBe("Denied");
    for (const part of [approver.name, "The sign-ins are the nurse's own travel.", "northwind-sentinel-clinics", "Automation rule", "What ran", "Skipped"]) expect(denied).toContain(part);
    const approved = await text(card(approvedRun));
    expect(approved).toContain("Confirmed with the clinic's on-call.");
    expect(await page.$$eval(`${card(approvedRun)} tbody tr`, (rows) => rows.map((r) => r.getAttribute("data-status")))).not.toContain("Pending");
    // The newest decision first.
    const order = await page.$$eval("article.approval", (els) => els.map((el) => el.getAttribute("data-run-id")));
    expect(order.indexOf(deniedRun)).toBeLessThan(order.indexOf(approvedRun));
    // The incident is a link to its page.
    expect(await page.$eval(`${card(deniedRun)} a[href^="/portal/incidents/${clinics}/"]`, (a) => a.getAttribute("href"))).toMatch(/^\/portal\/incidents\//);
    expect(await page.$("main > section > button.button-secondary")).toBeNull();
    await screenshot(page, "history-approvals", { readme: true });
    await checkAccessibility(page, "history-approvals");
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);
  });

  it("filters by workspace, in the URL: a reload shows the same view", async () => {
    const other = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
    await page.select('select[name="workspace"]', other);
    await page.click("form.filters-form button[type=submit]");
    await page.waitForFunction(() => new URL(location.href).searchParams.has("workspace"));
    expect(query().get("workspace")).toBe(other);
    await page.waitForSelector("p.empty");
    await reload();
    await page.waitForSelector("p.empty");
    expect(await page.$eval('select[name="workspace"]', (el) => (el as unknown as { value: string }).value)).toBe(other);
    expect(await page.$$("article.approval")).toHaveLength(0);
    await page.select('select[name="workspace"]', clinics);
    await page.click("form.filters-form button[type=submit]");
    await page.waitForSelector(card(deniedRun));
    await reload();
    await page.waitForSelector(card(deniedRun));
    expect(query().get("workspace")).toBe(clinics);
  });
});

describe("gamebook runs", () => {
  it("lists the runs of every workspace, each linked to its incident, and filters by status in the URL", async () => {
    await page.click('nav.tabs a[href="/portal/history/runs"]');
    await page.waitForSelector("table.runs tbody tr");
    const workspaces = await page.$$eval("table.runs tbody tr", (rows) => new Set(rows.map((r) => r.getAttribute("data-workspace-id"))).size);
    expect(workspaces).toBeGreaterThan(1);
    expect(await page.$eval(`table.runs tr[data-run-id="${deniedRun}"] a`, (a) => a.getAttribute("href"))).toMatch(new RegExp(`^/portal/incidents/${clinics}/SourceA/`));
    await page.click('input[name="status-Denied"]');
    await page.click("form.filters-form button[type=submit]");
    await page.waitForFunction(() => new URL(location.href).searchParams.get("status") === "Denied");
    await page.waitForFunction(() => [...document.querySelectorAll("table.runs tbody tr")].every((r) => r.getAttribute("data-status") === "Denied"));
    await reload();
    await page.waitForSelector(`table.runs tr[data-run-id="${deniedRun}"]`);
    expect(await page.$$eval("table.runs tbody tr", (rows) => rows.map((r) => r.getAttribute("data-status")))).toEqual(["Denied"]);
    expect(await page.$eval('input[name="status-Denied"]', (el) => (el as unknown as { checked: boolean }).checked)).toBe(true);
    await screenshot(page, "history-runs");
    await checkAccessibility(page, "history-runs");
    // The incident link opens the incident's page.
    await page.click(`table.runs tr[data-run-id="${deniedRun}"] a`);
    await page.waitForFunction(() => location.pathname.startsWith("/portal/incidents/"));
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);
  });
});

describe("the audit trail", () => {
  it("shows who did what, newest first, and narrows by activity and by actor with the filters in the URL", async () => {
    await page.goto(`${origin}/portal/history/audit`);
    await page.waitForSelector("table.audit tbody tr");
    const times = await page.$$eval("table.audit time", (els) => els.map((el) => el.getAttribute("datetime")!));
    expect(times).toEqual([...times].sort().reverse());
    await page.type('input[name="activityType"]', "GamebookApproval");
    await page.click("form.filters-form button[type=submit]");
    await page.waitForFunction(() => new URL(location.href).searchParams.get("type") === "GamebookApproval");
    await page.waitForFunction(() => [...document.querySelectorAll("table.audit tbody tr")].every((r) => r.getAttribute("data-activity-type") === "GamebookApproval"));
    expect(await page.$$("table.audit tbody tr")).toHaveLength(2);
    expect(await text("table.audit")).toContain(approver.name);
    await reload();
    await page.waitForSelector("table.audit tbody tr");
    expect(await page.$$("table.audit tbody tr")).toHaveLength(2);
    expect(await page.$eval('input[name="activityType"]', (el) => (el as unknown as { value: string }).value)).toBe("GamebookApproval");
    // An event's actor narrows the trail to them.
    await page.click(`table.audit tr[data-actor-id="${approver.userId}"] td:nth-child(2) a`);
    await page.waitForFunction((id) => new URL(location.href).searchParams.get("actorId") === id, {}, approver.userId);
    await page.waitForFunction((id) => [...document.querySelectorAll("table.audit tbody tr")].every((r) => r.getAttribute("data-actor-id") === id), {}, approver.userId);
    expect(query().get("type")).toBe("GamebookApproval");
    await screenshot(page, "history-audit", { readme: true });
    await checkAccessibility(page, "history-audit");
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);
  });

  it("is offered only to the roles that may read it", async () => {
    const li = await newPage(browser, { width: 1280 });
    await signInInBrowser(li, origin, demoPerson("li").oid, { returnTo: "/portal/history" });
    await li.waitForSelector("nav.tabs");
    expect(await li.$$eval("nav.tabs a", (links) => links.map((a) => a.textContent))).toEqual(["Decided approvals", "Gamebook runs"]);
    await li.goto(`${origin}/portal/history/audit`);
    await li.waitForSelector("main .banner-error");
    expect(await li.$eval("main .banner-error", (el) => (el as unknown as { innerText: string }).innerText)).toContain("FORBIDDEN");
    await li.browserContext().close();
  });
});

describe("at 390 px", () => {
  it("every view fits the screen (wide tables scroll in their own region) and passes axe", async () => {
    const phone = await newPage(browser, { width: 390 });
    await signInInBrowser(phone, origin, demoPerson("jonas").oid, { returnTo: "/portal/history" });
    for (const [path, ready] of [
      ["/portal/history", "article.approval"],
      ["/portal/history/runs", "table.runs tbody tr"],
      ["/portal/history/audit?type=GamebookApproval", "table.audit tbody tr"],
    ] as const) {
      await phone.goto(`${origin}${path}`);
      await phone.waitForSelector(ready);
      expect(await overflowingElements(phone, 390)).toEqual([]);
      await checkAccessibility(phone, `history-390 ${path}`);
    }
    await screenshot(phone, "history-audit-390");
    expect(pageProblems(phone)).toEqual(NO_PROBLEMS);
    await phone.browserContext().close();
  });
});
