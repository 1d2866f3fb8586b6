import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HTTPRequest } from "puppeteer-core";
import type { TestHost } from "../support/test-host";
import { allWindowedRows, checkAccessibility, demoPerson, newPage, NO_PROBLEMS, pageProblems, pageProblemsBesides, signInInBrowser, startPortal, type Browser, type Page, type Portal, SHOW_MORE_INCIDENTS, showMoreIncidents, windowedRowsLoaded } from "../support/browser";

/**
 * The incident queue in Chromium: an operator filters to High and Medium across every customer and
 * pages to the end, and the order holds from one page to the next (newest first, or severity then
 * newest); the address reproduces the view; Oliver, a Member of one customer with a role on one of
 * its workspaces, opens the same address and sees that workspace's incidents only. And a first page
 * the service has not finished reading is asked for again, saying so, rather than shown empty.
 */
const PAGE = 50;
const SHOW_MORE = SHOW_MORE_INCIDENTS;

let portal: Portal;
let browser: Browser;
let host: TestHost;
let origin: string;
let operator: Page;
/** The operator's view, as its address, and every row it listed. */
let viewUrl: URL;
let operatorRows: Row[];

beforeAll(async () => {
  // A few pages' worth of High and Medium incidents across the demo's five workspaces.
  portal = await startPortal({ env: { SIMULATED_INCIDENTS_PER_WORKSPACE: "120" } });
  ({ browser, host, origin } = portal);
  operator = await newPage(browser, { width: 1280 });
  await signInInBrowser(operator, origin, demoPerson("jonas").oid, { returnTo: "/portal/incidents" });
}, 600_000);

afterAll(async () => {
  await portal?.close();
});

interface Row {
  /** `workspaceId incidentId` */
  key: string;
  workspaceId: string;
  createdAt: number;
  severity: string;
}

/** Every incident row the list holds, in order (scrolled through: only those near the viewport are rendered). */
async function rows(page: Page): Promise<Row[]> {
  const found = await allWindowedRows(page, "table.incidents", ["data-workspace-id", "data-incident-id", "data-created-at", "data-severity"]);
  return found.map((r) => ({
    key: `${r["data-workspace-id"]} ${r["data-incident-id"]}`,
    workspaceId: r["data-workspace-id"]!,
    createdAt: Date.parse(r["data-created-at"]!),
    severity: r["data-severity"]!,
  }));
}

const LOADED = windowedRowsLoaded("table.incidents");
const rowCount = (page: Page) => page.evaluate(LOADED) as Promise<number>;
const statusText = (page: Page) => page.$eval("[data-queue-status]", (el) => el.textContent ?? "");

/** Applies the form and waits for the list of the new address: its first page read, or found empty. */
async function applyFilters(page: Page): Promise<void> {
  const before = page.url();
  await page.click("form.filters-form button[type=submit]");
  await page.waitForFunction((url) => location.href !== url, {}, before);
  await waitForFirstPage(page);
}

async function waitForFirstPage(page: Page): Promise<void> {
  await page.waitForFunction(() => /shown/.test(document.querySelector("[data-queue-status]")?.textContent ?? ""));
}

/** "Show more" until the queue has no more; answers how many pages that took. */
async function showAll(page: Page): Promise<number> {
  let pages = 1;
  for (; pages < 100 && (await page.$(SHOW_MORE)); pages++) {
    await showMoreIncidents(page);
  }
  expect(await page.$(SHOW_MORE)).toBeNull();
  return pages;
}

const severityRank: Record<string, number> = { High: 0, Medium: 1, Low: 2, Informational: 3 };

/** Whether the incident list says it is empty (the shared-indicator panel's own empty state aside). */
const listEmpty = (page: Page) => page.$$eval(".empty", (els) => els.some((el) => !el.closest("[data-shared-indicators]")));

describe("the incident queue, across customers", () => {
  it("an operator filters to High and Medium across all customers, newest first, and pages to the end: one order across every page", async () => {
    await operator.waitForSelector('select[name="customer"]');
    await waitForFirstPage(operator);
    expect(await operator.$eval('select[name="customer"]', (el) => (el as HTMLSelectElement).value)).toBe("");
    expect(await operator.$eval('select[name="order"]', (el) => (el as HTMLSelectElement).selectedOptions[0]!.textContent)).toBe("Newest first");
    for (const severity of ["High", "Medium"]) await operator.click(`input[name="severity-${severity}"]`);
    await applyFilters(operator);
    viewUrl = new URL(operator.url());
    expect(viewUrl.searchParams.getAll("severity").sort()).toEqual(["High", "Medium"]);
    expect([viewUrl.searchParams.get("customer"), viewUrl.searchParams.get("order")]).toEqual([null, null]);
    // The first page is a whole page, with more after it.
    expect(await rowCount(operator)).toBe(PAGE);
    expect(await operator.$(SHOW_MORE)).not.toBeNull();

    const pages = await showAll(operator);
    operatorRows = await rows(operator);
    // However many pages were shown, only the rows near the viewport are in the DOM.
    expect(await operator.$$eval("table.incidents tbody tr[data-incident-id]", (trs) => trs.length)).toBeLessThan(2 * PAGE);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(operatorRows.length).toBeGreaterThan(2 * PAGE);
    expect(new Set(operatorRows.map((r) => r.key)).size).toBe(operatorRows.length);
    for (const row of operatorRows) expect(["High", "Medium"]).toContain(row.severity);
    // Newest first from the first row to the last, across the pages' seams.
    const outOfOrder = operatorRows.flatMap((row, i) => (i > 0 && row.createdAt > operatorRows[i - 1]!.createdAt ? [`row ${i}: ${row.key}`] : []));
    expect(outOfOrder).toEqual([]);
    // Every customer's workspaces, and the provider's own, in the one list.
    const accountOf = new Map(host.demo.workspaces.map((w) => [w.id, w.accountId]));
    expect(new Set(operatorRows.map((r) => accountOf.get(r.workspaceId))).size).toBe(1 + host.demo.customers.length);
    expect(await statusText(operator)).toBe(`${operatorRows.length} incident(s) shown`);
    await checkAccessibility(operator, "incidents-queue");
    expect(pageProblems(operator)).toEqual(NO_PROBLEMS);
  });

  it("the address reproduces the view: opened again, the same filters and the same first rows", async () => {
    const again = await operator.browserContext().newPage();
    await again.setViewport({ width: 1280, height: 900 });
    await again.goto(viewUrl.href);
    await waitForFirstPage(again);
    expect(await again.$eval('input[name="severity-High"]', (el) => (el as HTMLInputElement).checked)).toBe(true);
    expect(await again.$eval('input[name="severity-Medium"]', (el) => (el as HTMLInputElement).checked)).toBe(true);
    expect(await again.$eval('input[name="severity-Low"]', (el) => (el as HTMLInputElement).checked)).toBe(false);
    expect((await rows(again)).map((r) => r.key)).toEqual(operatorRows.slice(0, PAGE).map((r) => r.key));
    await again.close();
  });

  it("severity, then newest: the same incidents, every High before every Medium, each newest first; kept in the address", async () => {
    await operator.select('select[name="order"]', "severity");
    await applyFilters(operator);
    expect(new URL(operator.url()).searchParams.get("order")).toBe("severity");
    await showAll(operator);
    const bySeverity = await rows(operator);
    expect(new Set(bySeverity.map((r) => r.key))).toEqual(new Set(operatorRows.map((r) => r.key)));
    const outOfOrder = bySeverity.flatMap((row, i) => {
      const before = bySeverity[i - 1];
      if (!before) return [];
      const rank = severityRank[row.severity]! - severityRank[before.severity]!;
      return rank < 0 || (rank === 0 && row.createdAt > before.createdAt) ? [`row ${i}: ${row.key}`] : [];
    });
    expect(outOfOrder).toEqual([]);
    expect(await operator.$eval('select[name="order"]', (el) => (el as HTMLSelectElement).selectedOptions[0]!.textContent)).toBe("Severity, then newest");
  });

  it("Oliver, a Member of one customer with a role on one of its workspaces, opens the same address: that workspace's incidents only, and no shared-indicator panel", async () => {
    const oliver = demoPerson("oliver");
    const fabrikam = host.demo.customers.find((c) => c.name === "Fabrikam Retail")!;
    const his = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
    // Registered by the provider's administrator: a Member of Fabrikam Retail, Analyst on one workspace.
    const admin = await host.person({ organizationalRole: "Admin" });
    const registered = await host.portal(admin, "PUT", `/portal/people/${oliver.oid}`, {
      body: { displayName: oliver.name, email: oliver.email, tenantId: oliver.tid, accountId: fabrikam.id, organizationalRole: "Member", workspaceRoles: [{ workspaceId: his, role: "Analyst" }] },
    });
    expect(registered.status).toBe(201);

    const page = await newPage(browser, { width: 1280 });
    await signInInBrowser(page, origin, oliver.oid, { returnTo: `${viewUrl.pathname}${viewUrl.search}` });
    await waitForFirstPage(page);
    await showAll(page);
    const shown = await rows(page);
    expect(shown.length).toBeGreaterThan(0);
    expect(new Set(shown.map((r) => r.workspaceId))).toEqual(new Set([his]));
    // All of them: the operator's list, less every other workspace, in the same order.
    expect(shown.map((r) => r.key)).toEqual(operatorRows.filter((r) => r.workspaceId === his).map((r) => r.key));
    // One organization: no customer to choose; a customer's person gets no shared-indicator panel.
    expect(await page.$('select[name="customer"]')).toBeNull();
    expect(await page.$("[data-shared-indicators]")).toBeNull();
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);
    await page.browserContext().close();
  });

  it("assigned to me: a shared link's `assignee=me` is whoever opens it", async () => {
    const page = await newPage(browser, { width: 1280 });
    await signInInBrowser(page, origin, demoPerson("li").oid, { returnTo: `/portal/incidents?assignee=me&status=any` });
    await waitForFirstPage(page);
    expect(await page.$eval('select[name="assignee"]', (el) => (el as HTMLSelectElement).selectedOptions[0]!.textContent)).toBe("Assigned to me");
    const assignees = (await allWindowedRows(page, "table.incidents", ["data-assignee"])).map((r) => r["data-assignee"]);
    expect(assignees.length).toBeGreaterThan(0);
    expect(new Set(assignees)).toEqual(new Set(["Li Wei"]));
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);
    await page.browserContext().close();
  });
});

describe("a first page not read yet", () => {
  /** A token the service never issued: the tests below stand in for the service while it is sent. */
  const NOT_READ_YET = "not-read-yet";
  /** An answer past the page's time budget: nothing certain yet, `unread` streams left. */
  const unreadAnswer = (unread: number) =>
    JSON.stringify({ data: { incidents: [], nextPageToken: NOT_READ_YET, moreIncidentsAvailable: true, unreadStreams: unread }, meta: { unavailable: [] } });
  const isSearch = (request: HTTPRequest) => request.method() === "POST" && new URL(request.url()).pathname === "/api/v2/portal/incidents/search";

  /**
   * Li's incident list, each search answered by `answer`, given its body, the request and how many
   * searches the page has sent so far, this one included: answers the page and the bodies it sent.
   */
  async function withSearches(answer: (body: Record<string, unknown>, request: HTTPRequest, sent: number) => Promise<void> | void): Promise<{ page: Page; bodies: Record<string, unknown>[] }> {
    const page = await newPage(browser, { width: 1280 });
    await signInInBrowser(page, origin, demoPerson("li").oid, { returnTo: "/portal/workspaces" });
    const bodies: Record<string, unknown>[] = [];
    await page.setRequestInterception(true);
    page.on("request", (request) => {
      if (!isSearch(request)) return void request.continue();
      const body = JSON.parse(request.postData() ?? "{}") as Record<string, unknown>;
      bodies.push(body);
      void answer(body, request, bodies.length);
    });
    await page.goto(`${origin}/portal/incidents`, { waitUntil: "load" });
    return { page, bodies };
  }

  /** The service's own first page, for a body carrying the stand-in token. */
  const realFirstPage = (body: Record<string, unknown>, request: HTTPRequest) => {
    const { pageToken: _, ...query } = body;
    return request.continue({ postData: JSON.stringify(query) });
  };

  it("asks again with the answer's token, saying how many workspace sources are left, and never shows the list empty meanwhile", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { page, bodies } = await withSearches(async (body, request) => {
      if (body.pageToken === undefined) return request.respond({ status: 200, contentType: "application/json", body: unreadAnswer(12) });
      // The follow-up: held until the test has seen what the page says meanwhile.
      await held;
      await realFirstPage(body, request);
    });
    await page.waitForFunction(() => document.querySelector("[data-queue-status]")?.textContent === "Reading 12 more workspace sources…");
    expect(await listEmpty(page)).toBe(false);
    expect(await page.$(SHOW_MORE)).toBeNull();
    await checkAccessibility(page, "incidents-reading");
    release();
    await waitForFirstPage(page);
    expect(await rowCount(page)).toBe(PAGE);
    expect(bodies.map((b) => b.pageToken ?? null)).toEqual([null, NOT_READ_YET]);
    // The same query both times: only the token is added.
    const { pageToken: _, ...followUpQuery } = bodies[1]!;
    expect(followUpQuery).toEqual(bodies[0]);
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);
    await page.browserContext().close();
  });

  it("stops after 20 follow-ups, says what is not read yet, and leaves it to Show more", async () => {
    const { page, bodies } = await withSearches((body, request, sent) => {
      if (sent <= 21) return request.respond({ status: 200, contentType: "application/json", body: unreadAnswer(3) });
      return realFirstPage(body, request);
    });
    await waitForFirstPage(page);
    expect(bodies.length).toBe(21);
    expect(await statusText(page)).toBe("0 incident(s) shown, more available; 3 workspace sources not read yet");
    expect(await listEmpty(page)).toBe(false);
    await page.click(SHOW_MORE);
    await page.waitForFunction(`${LOADED} === ${PAGE}`);
    expect(bodies.length).toBe(22);
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);
    await page.browserContext().close();
  });

  it("a follow-up that fails shows the problem; Show more goes on from the last answer", async () => {
    const unavailable = /^Failed to load resource: the server responded with a status of 503 /;
    const { page, bodies } = await withSearches((body, request, sent) => {
      if (body.pageToken === undefined) return request.respond({ status: 200, contentType: "application/json", body: unreadAnswer(5) });
      if (sent === 2) {
        return request.respond({ status: 503, contentType: "application/problem+json", body: JSON.stringify({ code: "SERVICE_UNAVAILABLE", title: "Service unavailable", detail: "Try again shortly." }) });
      }
      return realFirstPage(body, request);
    });
    await page.waitForSelector(".banner-error[role=alert]");
    expect(await page.$eval(".banner-error[role=alert]", (el) => (el as HTMLElement).innerText)).toContain("SERVICE_UNAVAILABLE");
    expect(await listEmpty(page)).toBe(false);
    await page.click(SHOW_MORE);
    await page.waitForFunction(`${LOADED} === ${PAGE}`);
    expect(bodies.map((b) => b.pageToken ?? null)).toEqual([null, NOT_READ_YET, NOT_READ_YET]);
    expect(await page.$(".banner-error")).toBeNull();
    expect(pageProblemsBesides(page, unavailable)).toEqual(NO_PROBLEMS);
    await page.browserContext().close();
  });
});
