import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestHost } from "../support/test-host";
import { startFakeHttpServer } from "../support/fake-http-server";
import { allWindowedRows, checkAccessibility, demoPerson, newPage, NO_PROBLEMS, overflowingElements, pageProblems, screenshot, signInInBrowser, startPortal, type Browser, type Page, type Portal, SHOW_MORE_INCIDENTS, showMoreIncidents, windowedRowsLoaded } from "../support/browser";

/**
 * Onboarding a customer's workspace in Chromium and seeing its incidents appear in the cross-workspace
 * list, paged to its end, then one incident's page: evidence, entities, comments, the last gamebook
 * run and related incidents.
 */
const NAME = "fabrikam-sentinel-emea";
const TITLES = ["Password spray against EMEA VPN gateway", "Suspicious inbox rule forwarding to external address"];

let portal: Portal;
let browser: Browser;
let host: TestHost;
let origin: string;
let page: Page;
let workspaceId: string;

beforeAll(async () => {
  portal = await startPortal();
  ({ browser, host, origin } = portal);
  page = await newPage(browser, { width: 1280 });
  await signInInBrowser(page, origin, demoPerson("jonas").oid, { returnTo: "/portal/workspaces" });
}, 600_000);

afterAll(async () => {
  await portal?.close();
});

const TABLE = "table.incidents";
const LOADED = windowedRowsLoaded(TABLE);
const ROW = `${TABLE} tbody tr[data-incident-id]`;

/** Every incident row the list holds (scrolled through: only those near the viewport are rendered), as `workspaceId incidentId`. */
const rows = async (on: Page = page) => (await allWindowedRows(on, TABLE, ["data-workspace-id", "data-incident-id"])).map((r) => `${r["data-workspace-id"]} ${r["data-incident-id"]}`);

describe("a new workspace's incidents in the cross-workspace list", () => {
  it("onboards the workspace through the form", async () => {
    const form = "#onboard-workspace";
    await page.waitForSelector(form);
    const fabrikam = host.demo.customers.find((c) => c.name === "Fabrikam Retail")!;
    // A workspace of a bridged vendor: no security instance to pick, so it is entered by hand.
    await page.click(`${form} input[name="byHand"]`);
    await page.type(`${form} input[name="name"]`, NAME);
    await page.select(`${form} select[name="accountId"]`, fabrikam.id);
    // The tenant starts as the organization's other workspaces'; this one is typed over it.
    await page.click(`${form} input[name="tenantId"]`, { count: 3 });
    await page.keyboard.press("Backspace");
    await page.type(`${form} input[name="tenantId"]`, "4d7e2b19-8c3a-4f5e-b1d6-9a0c2e7f3b48");
    await page.click(`${form} button[type="submit"]`);
    await page.waitForFunction(() => location.pathname.startsWith("/portal/workspaces/"));
    workspaceId = page.url().split("/").pop()!;
    expect((await host.services.stores.workspaces.read(workspaceId))!.value.name).toBe(NAME);
  });

  it("lists the incidents the customer's vendor raises there, beside every other workspace's, paged to the end", async () => {
    // The customer's analysts raise them in the vendor's console: the service reads them live.
    for (const title of TITLES) {
      expect((await host.local("POST", `/sources/SourceA/workspaces/${workspaceId}/incidents`, { title, severity: "High" })).status).toBe(201);
    }
    await page.click('nav a[href="/portal/incidents"]');
    await page.waitForSelector(ROW);
    // Page to the end through the tokens the service hands back.
    for (let i = 0; i < 200 && (await page.$(SHOW_MORE_INCIDENTS)); i++) await showMoreIncidents(page);
    const listed = await allWindowedRows(page, TABLE, ["data-workspace-id", "data-incident-id", "innerText"]);
    const all = listed.map((r) => `${r["data-workspace-id"]} ${r["data-incident-id"]}`);
    expect(all.length).toBe(await page.evaluate(LOADED));
    expect(new Set(all).size).toBe(all.length);
    const ours = all.filter((r) => r.startsWith(`${workspaceId} `));
    expect(ours).toHaveLength(TITLES.length);
    expect(new Set(all.map((r) => r.split(" ")[0])).size).toBeGreaterThan(1);
    const text = listed.filter((r) => r["data-workspace-id"] === workspaceId).map((r) => r.innerText).join("\n");
    for (const title of TITLES) expect(text).toContain(title);
    expect(text).toContain(NAME);
    // Each source as the deployment names it (the demo's simulated vendors), never its path value.
    expect(text).toContain("Northwatch SIEM");
    expect(text).not.toMatch(/\bSource[A-G]\b/);
    const filter = await page.$eval("form.filters-form", (el) => (el as HTMLElement).innerText);
    expect(filter).toContain("Falconridge XDR");
    // Thirteen pages of the demo's workspaces, then the whole list read by scrolling through it.
  }, 180_000);

  it("filters them: the search narrows the list to the new workspace's incident", async () => {
    await page.type('input[name="query"]', "password spray");
    await page.click("form.filters-form button[type=submit]");
    await page.waitForFunction(`${LOADED} === 1`);
    expect((await rows())[0]).toMatch(new RegExp(`^${workspaceId} `));
    await screenshot(page, "incidents");
    await checkAccessibility(page, "incidents");
  });

  it("opens one: its evidence, entities, comments, last gamebook run and related incidents", async () => {
    await page.click(`${ROW} a`);
    await page.waitForFunction(() => document.querySelector("h1")?.textContent?.includes("Password spray"));
    const text = await page.$eval("main", (el) => (el as HTMLElement).innerText);
    for (const heading of ["Evidence", "Entities", "Alerts", "Comments", "Playbook runs", "Related incidents"]) expect(text).toContain(heading);
    expect(text).toContain("Severity");
    expect(text).not.toMatch(/\bSource[A-G]\b/);
    await screenshot(page, "incident-detail");
    await checkAccessibility(page, "incident-detail");
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);
  });

  it("keeps its filters in the URL: one customer, High and Medium; the link reloaded shows the same list", async () => {
    const fabrikam = host.demo.customers.find((c) => c.name === "Fabrikam Retail")!;
    const theirs = new Set((await host.services.stores.workspaces.listByAccounts([fabrikam.id])).map((w) => w.id));
    await page.goto(`${origin}/portal/incidents`);
    await page.waitForSelector('select[name="customer"]');
    await page.select('select[name="customer"]', fabrikam.id);
    for (const severity of ["High", "Medium"]) await page.click(`input[name="severity-${severity}"]`);
    await page.click("form.filters-form button[type=submit]");
    await page.waitForFunction(() => new URL(location.href).searchParams.getAll("severity").length === 2);
    // The list of these filters, not the one before them: its first page read.
    await page.waitForFunction(() => /shown/.test(document.querySelector("[data-queue-status]")?.textContent ?? ""));
    await page.waitForSelector(ROW);
    const url = new URL(page.url());
    expect(url.searchParams.get("customer")).toBe(fabrikam.id);
    expect(url.searchParams.getAll("severity").sort()).toEqual(["High", "Medium"]);
    const shown = await rows();
    expect(shown.length).toBeGreaterThan(0);
    for (const row of shown) expect(theirs.has(row.split(" ")[0]!)).toBe(true);
    const severities = (await allWindowedRows(page, TABLE, ["data-severity"])).map((r) => r["data-severity"]);
    expect(new Set(severities).size).toBeGreaterThan(0);
    for (const severity of severities) expect(["High", "Medium"]).toContain(severity);

    // The same address in another tab of the session: the same filters chosen, the same first rows.
    const again = await page.browserContext().newPage();
    await again.setViewport({ width: 1280, height: 900 });
    await again.goto(url.href);
    await again.waitForSelector(ROW);
    expect(await again.$eval('select[name="customer"]', (el) => (el as HTMLSelectElement).value)).toBe(fabrikam.id);
    expect(await again.$eval('input[name="severity-High"]', (el) => (el as HTMLInputElement).checked)).toBe(true);
    expect(await again.$eval('input[name="severity-Low"]', (el) => (el as HTMLInputElement).checked)).toBe(false);
    await again.waitForFunction(`/shown/.test(document.querySelector("[data-queue-status]")?.textContent ?? "")`);
    const reloaded = await rows(again);
    expect(reloaded).toEqual(shown);
    await again.close();
  });

  it("at 390 px the list fits the screen and passes axe", async () => {
    const phone = await newPage(browser, { width: 390 });
    await signInInBrowser(phone, origin, demoPerson("li").oid, { returnTo: "/portal/incidents" });
    await phone.waitForSelector(ROW);
    expect(await overflowingElements(phone, 390)).toEqual([]);
    await screenshot(phone, "incidents-390");
    await checkAccessibility(phone, "incidents-390");
    expect(pageProblems(phone)).toEqual(NO_PROBLEMS);
    await phone.browserContext().close();
  });
});

describe("a workspace whose vendor fails", () => {
  it("leaves the list to the others and says which workspace and source could not be read", async () => {
    const vendor = await startFakeHttpServer((_req, res) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end("{}");
    });
    try {
      const record = (await host.services.stores.workspaces.get(workspaceId))!;
      await host.services.stores.workspaces.upsert({ ...record, sources: { ...record.sources, SourceA: { enabled: true, bridge: { url: `${vendor.origin}/source-a` } } } });
      host.services.sources.evict(workspaceId);
      await page.goto(`${origin}/portal/incidents`);
      await page.waitForSelector('input[name="source-SourceA"]');
      await page.click('input[name="source-SourceA"]');
      await page.click("form.filters-form button[type=submit]");
      await page.waitForSelector(`.banner-warn li[data-workspace-id="${workspaceId}"]`);
      const notice = await page.$eval(".banner-warn", (el) => (el as HTMLElement).innerText);
      expect(notice).toContain(`${NAME}, Northwatch SIEM: UPSTREAM_ERROR`);
      // The other workspaces' SourceA incidents are listed all the same.
      const listed = new Set((await rows()).map((r) => r.split(" ")[0]));
      expect(listed.size).toBeGreaterThan(0);
      expect(listed.has(workspaceId)).toBe(false);
      await checkAccessibility(page, "incidents-unread");
      expect(pageProblems(page)).toEqual(NO_PROBLEMS);
    } finally {
      await vendor.close();
    }
  });
});
