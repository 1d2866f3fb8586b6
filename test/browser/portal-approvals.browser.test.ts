import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestHost, TestPerson } from "../support/test-host";
import { submitAccountRun } from "../support/gamebook-runs";
import { seedDemoGamebookRuns } from "../../shared/hosts/local/demo-gamebook-runs";
import { checkAccessibility, demoPerson, newPage, NO_PROBLEMS, overflowingElements, pageProblems, pageProblemsBesides, screenshot, signInInBrowser, startPortal, type Browser, type Page, type Portal } from "../support/browser";

/**
 * The approval queue in Chromium, as a SOC lead uses it: what approving will do, approve and see the
 * run dispatch, deny with a reason, and a request decided elsewhere changing in place. Also the pages
 * a refused sign-in lands on.
 */

let portal: Portal;
let browser: Browser;
let host: TestHost;
let origin: string;
let clinics: string;
let otherOwner: TestPerson;

/**
 * The browser's own console line for the portal's first call answered 401 or 403: that answer is how
 * the page learns it must show the sign-in or a refusal.
 */
const refusal = /^Failed to load resource: the server responded with a status of 40[13] .*\/api\/v2\/portal\/me\)$/;

beforeAll(async () => {
  portal = await startPortal({ env: { SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  ({ browser, host, origin } = portal);
  // The demo workspace whose policy makes every run wait for approval; the demo seeds two such runs.
  clinics = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-clinics")!.id;
  // What `npm start` seeds after the demo data: among others, two runs waiting in that workspace.
  await seedDemoGamebookRuns(host.services, host.demo.workspaces);
  otherOwner = await host.person({ organizationalRole: "Member", workspaceAssignments: [{ workspaceId: clinics, role: "Owner" }] });
}, 600_000);

afterAll(async () => {
  await portal?.close();
});

const card = (runId: string) => `article.approval[data-run-id="${runId}"]`;

async function cardText(page: Page, runId: string): Promise<string> {
  return page.$eval(card(runId), (el) => (el as unknown as { innerText: string }).innerText);
}

async function runStatus(runId: string): Promise<string> {
  return (await host.services.stores.gamebookRuns.get(clinics, runId))!.value.status;
}

describe("the approval queue in a browser", () => {
  let page: Page;
  let runs: string[];

  beforeAll(async () => {
    // A third waiting run, submitted through the contract's API as an integration would.
    await submitAccountRun(host, clinics);
    page = await newPage(browser, { width: 1280 });
    await signInInBrowser(page, origin, demoPerson("jonas").oid, { returnTo: "/portal/approvals" });
    await page.waitForSelector('article.approval[data-awaiting="true"]');
    runs = await page.$$eval('article.approval[data-awaiting="true"]', (els) => els.map((el) => el.getAttribute("data-run-id")!));
  }, 120_000);

  it("shows every waiting run with what approving will do: playbooks, parameters, the entity, the incident, who asked, when it expires", async () => {
    expect(runs.length).toBeGreaterThanOrEqual(3);
    const text = await cardText(page, runs[0]!);
    for (const label of ["Workspace", "Incident", "Asked by", "Expires", "Matched rule", "What approving will do", "Acts on", "Parameters"]) expect(text).toContain(label);
    expect(text).toContain("northwind-sentinel-clinics");
    await screenshot(page, "approvals-queue", { readme: true });
    await checkAccessibility(page, "approvals-queue");
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);
  });

  it("at 390 px the navigation folds behind a menu button, and the queue passes axe", async () => {
    const phone = await newPage(browser, { width: 390 });
    await signInInBrowser(phone, origin, demoPerson("jonas").oid, { returnTo: "/portal/approvals" });
    await phone.waitForSelector('article.approval[data-awaiting="true"]');
    expect(await phone.$eval("#nav", (el) => getComputedStyle(el).display)).toBe("none");
    await phone.click(".menu-toggle");
    expect(await phone.$eval("#nav", (el) => getComputedStyle(el).display)).toBe("block");
    // Nothing is wider than the screen: wide tables scroll inside their own region.
    const wide = await phone.evaluate(() =>
      [...document.querySelectorAll("body *")]
        .filter((el) => el.getBoundingClientRect().right > 391 && !el.closest(".table-scroll"))
        .map((el) => `${el.tagName.toLowerCase()}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`),
    );
    expect(wide).toEqual([]);
    expect(await overflowingElements(phone, 390)).toEqual([]);
    await screenshot(phone, "approvals-queue-390");
    await checkAccessibility(phone, "approvals-queue-390");
    expect(pageProblems(phone)).toEqual(NO_PROBLEMS);
    await phone.browserContext().close();
  });
  it("approves a run: the card shows the approval, then follows the run as it is dispatched", async () => {
    const runId = runs[0]!;
    await page.type(`${card(runId)} input[name="comment"]`, "Confirmed with the customer's on-call.");
    await page.click(`${card(runId)} button[type="submit"]`);
    await page.waitForFunction((sel) => document.querySelector(sel)?.getAttribute("data-awaiting") === "false", {}, card(runId));
    // Dispatched: the executor takes it, and the card follows it out of Pending.
    await page.waitForFunction((sel) => document.querySelector(sel)?.getAttribute("data-status") !== "Pending", { timeout: 20_000 }, card(runId));
    expect(await runStatus(runId)).not.toBe("Pending");
    expect(await cardText(page, runId)).toContain(`Approved by ${demoPerson("jonas").name}`);
    expect(await cardText(page, runId)).toContain("Confirmed with the customer's on-call.");
    await screenshot(page, "approvals-approved");
  });

  it("a request decided elsewhere changes in place on the next read, and is not lost from view", async () => {
    const runId = runs[1]!;
    const res = await host.portal(otherOwner, "POST", `/portal/workspaces/${clinics}/approvals/${runId}/deny`, { body: { reason: "Decided on the bridge call." } });
    expect(res.status).toBe(200);
    await page.click("main .page-actions button");
    await page.waitForFunction((sel) => document.querySelector(sel)?.getAttribute("data-awaiting") === "false", {}, card(runId));
    const text = await cardText(page, runId);
    expect(text).toContain("Denied by");
    expect(text).toContain("Decided on the bridge call.");
    expect(await runStatus(runId)).toBe("Denied");
  });

  it("denies a run with a reason, from the keyboard alone", async () => {
    const runId = runs[2]!;
    const focused = () => page.evaluate(() => `${document.activeElement?.tagName.toLowerCase()}[name=${document.activeElement?.getAttribute("name")}]`);
    // Deny… opens the denial with the keyboard on its reason; Cancel brings the keyboard back to Deny….
    await page.focus(`${card(runId)} .button-danger`);
    await page.keyboard.press("Enter");
    await page.waitForFunction((sel) => document.activeElement === document.querySelector(`${sel} textarea[name="reason"]`), {}, card(runId));
    expect(await focused()).toBe("textarea[name=reason]");
    // Deny stays disabled without a reason, so the next stop is Cancel.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.waitForFunction((sel) => document.activeElement === document.querySelector(`${sel} .button-danger`), {}, card(runId));
    await page.keyboard.press("Enter");
    await page.waitForFunction((sel) => document.activeElement === document.querySelector(`${sel} textarea[name="reason"]`), {}, card(runId));
    await page.keyboard.type("The sign-ins are the user's own travel.");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.waitForFunction((sel) => document.querySelector(sel)?.getAttribute("data-status") === "Denied", {}, card(runId));
    expect(await cardText(page, runId)).toContain(`Denied by ${demoPerson("jonas").name}`);
    expect(await runStatus(runId)).toBe("Denied");
    await checkAccessibility(page, "approvals-decided");
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);
    await page.browserContext().close();
  });

});

describe("signing in and out of the portal", () => {
  it("someone not signed in gets the sign-in page, and signing in lands back where they were", async () => {
    const page = await newPage(browser, { width: 1280 });
    await page.goto(`${origin}/portal/approvals`, { waitUntil: "load" });
    await page.waitForSelector("a.button[href*='/api/v2/portal/auth/sign-in']");
    expect(await page.$eval("h1", (el) => el.textContent)).toBe("Sign in to the SecOps portal");
    await screenshot(page, "sign-in");
    await checkAccessibility(page, "sign-in");
    await signInInBrowser(page, origin, demoPerson("li").oid, { returnTo: "/portal/approvals" });
    await page.waitForSelector(".who");
    expect(await page.$eval(".who", (el) => el.textContent)).toContain(demoPerson("li").name);
    // Signing out ends the session: the page shows the sign-in again.
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(".who button")]);
    await page.goto(`${origin}/portal/approvals`, { waitUntil: "load" });
    await page.waitForSelector("a.button[href*='/api/v2/portal/auth/sign-in']");
    expect(pageProblemsBesides(page, refusal)).toEqual(NO_PROBLEMS);
    await page.browserContext().close();
  });

  it("someone who signed in without MFA gets a page that says so and what to do", async () => {
    const page = await newPage(browser, { width: 390 });
    await signInInBrowser(page, origin, demoPerson("sam").oid, { returnTo: "/portal/" });
    await page.waitForSelector('[data-refusal="MFA_REQUIRED"]');
    expect(await page.$eval("h1", (el) => el.textContent)).toBe("Multi-factor authentication required");
    await screenshot(page, "sign-in-mfa-required");
    await checkAccessibility(page, "sign-in-mfa-required");
    expect(pageProblemsBesides(page, refusal)).toEqual(NO_PROBLEMS);
    await page.browserContext().close();
  });

  it("someone not registered in the service gets a page that says so and whom to ask", async () => {
    const page = await newPage(browser, { width: 1280 });
    await signInInBrowser(page, origin, demoPerson("oliver").oid, { returnTo: "/portal/" });
    await page.waitForSelector('[data-refusal="USER_NOT_REGISTERED"]');
    expect(await page.$eval("h1", (el) => el.textContent)).toBe("You are not registered for this portal");
    // The ids the administrator registers him by, on the page he is shown.
    const { oid, tid } = demoPerson("oliver");
    expect(await page.$eval(".refusal-detail", (el) => el.textContent)).toContain(`tenant id ${tid}, object id ${oid}`);
    await screenshot(page, "sign-in-not-registered");
    await checkAccessibility(page, "sign-in-not-registered");
    expect(pageProblemsBesides(page, refusal)).toEqual(NO_PROBLEMS);
    await page.browserContext().close();
  });
});
