import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import type { TestHost, TestPerson } from "../support/test-host";
import { outboxEvents } from "../support/outbox";
import { allWindowedRows, checkAccessibility, demoPerson, newPage, NO_PROBLEMS, overflowingElements, pageProblems, screenshot, signInInBrowser, startPortal, type Browser, type Page, type Portal, SHOW_MORE_INCIDENTS, showMoreIncidents, windowedRowsLoaded } from "../support/browser";
import type { Json } from "../support/json";

/**
 * The incident list's bulk action in Chromium, as Jonas (a lead who owns the demo workspaces): 150
 * incidents across three workspaces selected at once, assigned to him and closed in one action.
 * Meanwhile one of them is closed in the source's own console and he loses his role on one
 * workspace: the action reports those two as refused, naming the incident, its workspace and why,
 * and assigns and closes the other 148, each with the events of the two single writes, in order.
 */
const TITLE = `Bulk drill ${randomUUID().slice(0, 8)}`;
const COUNTS = [75, 74, 1];

let portal: Portal;
let browser: Browser;
let host: TestHost;
let origin: string;
let page: Page;
let workspaceIds: string[];
let refs: { workspaceId: string; incidentId: string }[];
let closedMeanwhile: { workspaceId: string; incidentId: string };
let noRole: { workspaceId: string; incidentId: string };
let admin: TestPerson;

beforeAll(async () => {
  portal = await startPortal({ env: { SIMULATED_INCIDENTS_PER_WORKSPACE: "20" } });
  ({ browser, host, origin } = portal);
  const [fabrikamProd, fabrikamStores, , , contosoSoc] = host.demo.workspaces.map((w) => w.id);
  workspaceIds = [fabrikamProd!, fabrikamStores!, contosoSoc!];
  refs = workspaceIds.flatMap((workspaceId, w) =>
    Array.from({ length: COUNTS[w]! }, () => ({ workspaceId, incidentId: host.simulated.vendors.createIncident("SourceA", workspaceId, { title: TITLE, severity: "Medium" }).id })),
  );
  closedMeanwhile = refs[3]!;
  noRole = refs.at(-1)!;
  admin = await host.person({ organizationalRole: "Admin" });
  page = await newPage(browser, { width: 1280 });
  await signInInBrowser(page, origin, demoPerson("jonas").oid, { returnTo: "/portal/incidents" });
}, 600_000);

afterAll(async () => {
  await portal?.close();
});

const LOADED = windowedRowsLoaded("table.incidents");
const rowCount = () => page.evaluate(LOADED) as Promise<number>;
const text = (selector: string) => page.$eval(selector, (el) => (el as HTMLElement).innerText);

/** Every drill incident in the list: the filters narrow it to them, then "Show more" until the end. */
async function showAll(): Promise<void> {
  // The list of the filters applied: its first page read (until then the status says it is loading).
  await page.waitForFunction(`/shown/.test(document.querySelector("[data-queue-status]")?.textContent ?? "") && ${LOADED} > 0`);
  for (let i = 0; i < 20 && (await page.$(SHOW_MORE_INCIDENTS)); i++) await showMoreIncidents(page);
  expect(await rowCount()).toBe(refs.length);
}

/** Selects every incident shown, chooses the action, and confirms it; answers the result panel's text. */
async function actOnAll(choose: () => Promise<void>, expectedHeading: RegExp): Promise<string> {
  await page.click("input[data-select-all]");
  await page.waitForFunction(() => document.querySelector("[data-bulk-bar] h2")?.textContent?.includes("150 incidents selected in 3 workspaces"));
  await choose();
  await page.click("[data-bulk-bar] button[type=submit]");
  await page.waitForSelector("[data-bulk-confirm]");
  expect(await text("[data-bulk-bar] [role=group]")).toContain("150 incidents in 3 workspaces?");
  await checkAccessibility(page, "incidents-bulk-confirm");
  await page.click("[data-bulk-confirm]");
  await page.waitForFunction((pattern) => new RegExp(pattern).test(document.querySelector("[data-bulk-result] h2")?.textContent ?? ""), { timeout: 60_000 }, expectedHeading.source);
  return text("[data-bulk-result]");
}

/** The events an assignment and a close write. */
const WRITE_EVENTS = ["incident.assignee.changed.v1", "incident.status.changed.v1", "incident.closed.v1"];

/** The refusals the result panel lists, as `incidentId code`. */
const refusals = () => page.$$eval(".bulk-refusals li", (lis) => lis.map((li) => `${li.getAttribute("data-incident-id")} ${li.getAttribute("data-code")}`).sort());

describe("bulk actions on the incident list", () => {
  it("lists the 150 drill incidents of three workspaces, each selectable", async () => {
    await page.waitForSelector("form.filters-form");
    await page.type('input[name="query"]', TITLE);
    // Every status: an incident closed meanwhile stays in the list, so the action sees all 150.
    await page.click('input[name="status-New"]');
    await page.click('input[name="status-Active"]');
    await page.click('input[name="source-SourceA"]');
    await page.click("form.filters-form button[type=submit]");
    await page.waitForFunction(() => new URL(location.href).searchParams.has("q"));
    await showAll();
    const listed = await allWindowedRows(page, "table.incidents", ["data-incident-id"]);
    expect(new Set(listed.map((r) => r["data-incident-id"])).size).toBe(refs.length);
    // The rows rendered (those near the viewport; the DOM holds no more however many pages were shown) each have their box.
    const rendered = await page.$$eval("table.incidents tbody tr[aria-rowindex]", (trs) => trs.map((tr) => tr.querySelector("input[data-select]") !== null));
    expect(rendered.length).toBeGreaterThan(0);
    expect(rendered.length).toBeLessThan(refs.length);
    expect(rendered.every(Boolean)).toBe(true);
    expect(await text("[data-bulk-bar] h2")).toBe("No incident selected");
  });

  it("assigns them to Jonas and closes them in one action: one closed in the source meanwhile and one where he lost his role are refused and named, 148 are assigned and closed", async () => {
    // After the page was read: the source's console closes one, and an Admin takes Jonas's role on one workspace away.
    expect((await host.local("POST", `/sources/SourceA/workspaces/${closedMeanwhile.workspaceId}/incidents/${closedMeanwhile.incidentId}/close`, { classification: "BenignPositive" })).status).toBe(204);
    const jonas = host.demo.users.find((u) => u.email.startsWith("jonas."))!;
    const changed = await host.portal(admin, "PUT", `/portal/people/${jonas.id}`, {
      body: {
        displayName: jonas.displayName,
        email: jonas.email,
        tenantId: jonas.tenantId,
        accountId: jonas.accountId,
        organizationalRole: jonas.organizationalRole,
        workspaceRoles: host.demo.workspaces.filter((w) => w.id !== noRole.workspaceId).map((w) => ({ workspaceId: w.id, role: "Owner" })),
      },
    });
    expect(changed.status).toBe(200);

    const result = await actOnAll(async () => {
      // "Assign to me" is the assignee already chosen; the status is the close.
      expect(await page.$eval('select[name="changes.assignee"]', (el) => (el as HTMLSelectElement).value)).toBe("Me");
      await page.select('select[name="changes.status"]', "Closed");
      await page.select('select[name="changes.classification"]', "FalsePositive");
      await page.type('textarea[name="changes.closingComment"]', "Drill traffic from the red team's scanner.");
    }, /^148 of 150 incidents assigned to you and closed as false positive$/);
    expect(await refusals()).toEqual([`${closedMeanwhile.incidentId} CONFLICT`, `${noRole.incidentId} INSUFFICIENT_WORKSPACE_ROLE`].sort());
    expect(result).toContain("2 incidents were not changed as asked");
    expect(result).toContain("it is closed now, at the source itself");
    expect(result).toContain("This needs the Analyst role on this workspace.");
    expect(result).toContain("contoso-soc-internal");
    expect(result).toContain(TITLE);
    await screenshot(page, "incidents-bulk-assigned", { readme: true });
    await checkAccessibility(page, "incidents-bulk-assigned");
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);

    const done = refs.filter((r) => r !== closedMeanwhile && r !== noRole);
    const events = (await Promise.all(workspaceIds.map((w) => outboxEvents(host.services, w)))).flat() as { type: string; data: Json }[];
    for (const ref of done) {
      // The events of the assignment, then those of the close: the two single writes', in that order.
      const mine = events.filter((e) => e.data.incidentId === ref.incidentId && WRITE_EVENTS.includes(e.type));
      expect(mine.map((e) => e.type)).toEqual(["incident.assignee.changed.v1", "incident.status.changed.v1", "incident.closed.v1"]);
      expect(mine[0]!.data.assignee.email).toBe(jonas.email);
      expect([mine[2]!.data.classification, mine[2]!.data.closedBy.origin, mine[2]!.data.closedBy.name]).toEqual(["FalsePositive", "portal", "Jonas Becker"]);
    }
    for (const ref of [closedMeanwhile, noRole]) {
      expect(events.filter((e) => e.data.incidentId === ref.incidentId && (e.data.changedBy?.name === "Jonas Becker" || e.data.closedBy?.name === "Jonas Becker"))).toEqual([]);
    }
    // The list is read again from its first page (a page is 50): all but the two refused are Jonas's now.
    const refused = [closedMeanwhile.incidentId, noRole.incidentId];
    await expect
      .poll(async () => {
        const listed = await allWindowedRows(page, "table.incidents", ["data-incident-id", "data-assignee"]);
        return listed.length === 50 && listed.every((r) => refused.includes(r["data-incident-id"]!) || r["data-assignee"] === "Jonas Becker");
      }, { timeout: 30_000 })
      .toBe(true);
  });

  it("asks for a change before it applies one: with both left as they are, the button is off and says why", async () => {
    await page.click("input[data-select-all]");
    await page.waitForSelector("[data-bulk-bar] form");
    await page.select('select[name="changes.assignee"]', "");
    await page.select('select[name="changes.status"]', "");
    expect(await page.$eval("[data-bulk-bar] button[type=submit]", (b) => (b as HTMLButtonElement).disabled)).toBe(true);
    expect(await text("[data-bulk-bar] form")).toContain("Choose an assignee, a status, or both.");
    await checkAccessibility(page, "incidents-bulk-no-change");
    await page.click("input[data-select-all]");
  });

  it("at 390 px the selection and its action fit the screen and pass axe", async () => {
    const phone = await newPage(browser, { width: 390 });
    await signInInBrowser(phone, origin, demoPerson("li").oid, { returnTo: "/portal/incidents" });
    await phone.waitForSelector("table.incidents tbody tr input[data-select]");
    await phone.click("table.incidents tbody tr input[data-select]");
    await phone.waitForSelector("[data-bulk-bar] form");
    await phone.select('select[name="changes.status"]', "Closed");
    await phone.click("[data-bulk-bar] button[type=submit]");
    await phone.waitForSelector("[data-bulk-confirm]");
    expect(await overflowingElements(phone, 390)).toEqual([]);
    await screenshot(phone, "incidents-bulk-390");
    await checkAccessibility(phone, "incidents-bulk-390");
    expect(pageProblems(phone)).toEqual(NO_PROBLEMS);
    await phone.browserContext().close();
  });
});
