import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestHost } from "../support/test-host";
import { seedDemoGamebookRuns } from "../../shared/hosts/local/demo-gamebook-runs";
import { EXAMPLE_RUN_TO_RETRY_ID, EXAMPLE_RUN_TO_UNDO_ID } from "../../shared/api/examples/gamebook-examples";
import type { VendorIncident } from "../../shared/model/incidents/incident";
import { checkAccessibility, demoPerson, newPage, NO_PROBLEMS, overflowingElements, pageProblems, screenshot, signInInBrowser, startPortal, type Browser, type Page, type Portal } from "../support/browser";

/**
 * Playbook runs on an incident's page in Chromium, as Li Wei (an analyst) works them: the run list
 * with who asked, who decided and each step's outcome; retry a failed run, undo a succeeded one,
 * run two playbooks after seeing that the run will wait for approval, cancel it; at 390 px. And the
 * rules editor's automation switch, as an administrator.
 */

let portal: Portal;
let browser: Browser;
let host: TestHost;
let origin: string;
let page: Page;
let fabrikam: string;
let clinics: string;

beforeAll(async () => {
  portal = await startPortal({ env: { SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  ({ browser, host, origin } = portal);
  fabrikam = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
  clinics = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-clinics")!.id;
  // What `npm start` seeds: among others, a failed run and a succeeded one Li asked for.
  await seedDemoGamebookRuns(host.services, host.demo.workspaces);
  page = await newPage(browser, { width: 1280 });
  await signInInBrowser(page, origin, demoPerson("li").oid, { returnTo: "/portal/incidents" });
}, 600_000);

afterAll(async () => {
  await portal?.close();
});

const card = (runId: string) => `article.run[data-run-id="${runId}"]`;
const text = (selector: string) => page.$eval(selector, (el) => (el as unknown as { innerText: string }).innerText);

async function openIncident(workspaceId: string, source: string, incidentId: string): Promise<void> {
  await page.goto(`${origin}/portal/incidents/${workspaceId}/${source}/${encodeURIComponent(incidentId)}`, { waitUntil: "load" });
  await page.waitForSelector("section.incident-runs");
}

async function incidentOf(workspaceId: string, runId: string): Promise<{ source: string; incidentId: string }> {
  const run = (await host.services.stores.gamebookRuns.get(workspaceId, runId))!.value;
  return { source: run.source, incidentId: run.incidentId };
}

/** The id of the run card at the top of the list (newest activity first) once it is not `exceptId`. */
async function newestRunOtherThan(exceptId: string): Promise<string> {
  await page.waitForFunction((id) => document.querySelector("section.incident-runs article.run")?.getAttribute("data-run-id") !== id, {}, exceptId);
  return page.$eval("section.incident-runs article.run", (el) => el.getAttribute("data-run-id")!);
}

describe("an incident's playbook runs", () => {
  it("lists the runs with who asked, who decided and each step's outcome with its error", async () => {
    const { source, incidentId } = await incidentOf(fabrikam, EXAMPLE_RUN_TO_RETRY_ID);
    await openIncident(fabrikam, source, incidentId);
    await page.waitForSelector(card(EXAMPLE_RUN_TO_RETRY_ID));
    const shown = await text(card(EXAMPLE_RUN_TO_RETRY_ID));
    expect(shown).toContain("Block IP address");
    expect(shown).toContain("Asked by");
    expect(shown).toContain("Li Wei");
    expect(shown).toContain("No approval needed");
    expect(shown).toContain("private address");
    expect(await page.$eval(`${card(EXAMPLE_RUN_TO_RETRY_ID)} tr[data-step="1"]`, (el) => el.getAttribute("data-step-status"))).toBe("Failed");
    // Nothing to cancel or undo in a failed run: the buttons say why they are off.
    expect(await page.$eval(`${card(EXAMPLE_RUN_TO_RETRY_ID)} button[data-action="cancel"]`, (el) => (el as unknown as { disabled: boolean }).disabled)).toBe(true);
    expect(shown).toContain("None of its playbooks succeeded: there is nothing to undo.");
    await checkAccessibility(page, "incident-runs-failed");
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);
  });

  it("retries the failed run after confirming: a new run, marked a retry, at the top, followed to its end", async () => {
    await page.click(`${card(EXAMPLE_RUN_TO_RETRY_ID)} button[data-action="retry"]`);
    await page.waitForSelector(`${card(EXAMPLE_RUN_TO_RETRY_ID)} button[data-confirm-action="retry"]`);
    await page.click(`${card(EXAMPLE_RUN_TO_RETRY_ID)} button[data-confirm-action="retry"]`);
    const retry = await newestRunOtherThan(EXAMPLE_RUN_TO_RETRY_ID);
    expect(await text(card(retry))).toContain("Retry");
    expect(await text(card(retry))).toContain(`Retries`);
    // Followed until it ends (the private address is still refused: it fails again).
    await page.waitForFunction((sel) => ["Failed", "Succeeded"].includes(document.querySelector(sel)?.getAttribute("data-status") ?? ""), { timeout: 20_000 }, card(retry));
    expect(await text(card(EXAMPLE_RUN_TO_RETRY_ID))).toContain(`retry ${retry.slice(0, 8)}`);
    const stored = (await host.services.stores.gamebookRuns.get(fabrikam, retry))!.value;
    expect([stored.isRetryGamebook, stored.retryOf?.runId, stored.requestedBy?.name]).toEqual([true, EXAMPLE_RUN_TO_RETRY_ID, "Li Wei"]);
  });

  it("undoes the succeeded run's block: the unblock runs as an undo, and the original says it is undone", async () => {
    const { source, incidentId } = await incidentOf(fabrikam, EXAMPLE_RUN_TO_UNDO_ID);
    await openIncident(fabrikam, source, incidentId);
    await page.waitForSelector(card(EXAMPLE_RUN_TO_UNDO_ID));
    await page.click(`${card(EXAMPLE_RUN_TO_UNDO_ID)} button[data-action="undo"]`);
    await page.waitForSelector(`${card(EXAMPLE_RUN_TO_UNDO_ID)} input[name="undo-1"]`);
    expect(await text(card(EXAMPLE_RUN_TO_UNDO_ID))).toContain("by Unblock IP address");
    await page.click(`${card(EXAMPLE_RUN_TO_UNDO_ID)} button[data-confirm-action="undo"]`);
    const undo = await newestRunOtherThan(EXAMPLE_RUN_TO_UNDO_ID);
    await page.waitForFunction((sel) => document.querySelector(sel)?.getAttribute("data-status") === "Succeeded", { timeout: 20_000 }, card(undo));
    expect(await text(card(undo))).toContain("Unblock IP address");
    expect(await text(card(undo))).toContain("Undoes");
    expect(await text(card(EXAMPLE_RUN_TO_UNDO_ID))).toContain("Undone already by run");
    expect(host.simulated.automation.executions().filter((e) => e.runId === undo).map((e) => e.referenceId)).toEqual(["unblock-ip"]);
  });

  it("runs two playbooks on the right entities after seeing that the run will wait for approval, then cancels it", async () => {
    const incident = incidentWithAccount(clinics);
    await openIncident(clinics, "SourceA", incident.id);
    await page.click("button[data-open-run-form]");
    await page.waitForSelector('form[data-run-form] select[name="choice"]');
    // The rule for this title recommends revoking the account's sessions first.
    const options = await page.$$eval('form[data-run-form] select[name="choice"] option', (els) => els.map((el) => el.textContent ?? ""));
    expect(options.find((o) => o.startsWith("★ Revoke user sessions"))).toBeTruthy();
    await page.select('form[data-run-form] select[name="choice"]', await optionValue("★ Revoke user sessions"));
    await page.click("form[data-run-form] .run-form-add button");
    await page.select('form[data-run-form] select[name="choice"]', await optionValue("Add incident comment"));
    await page.click("form[data-run-form] .run-form-add button");
    await page.waitForSelector('form[data-run-form] textarea[name="playbooks[1].parameters.message"]');
    const account = incident.entities.find((e) => e.kind === "Account")!;
    expect(await page.$eval('form[data-run-form] select[name="playbooks[0].entityId"]', (el) => (el as unknown as { value: string }).value)).toBe(account.id);
    await page.type('form[data-run-form] textarea[name="playbooks[1].parameters.message"]', "Sessions revoked while the user is reached by phone.");
    // The run cannot be submitted before its preview is seen.
    expect(await page.$eval("form[data-run-form] button[data-submit-run]", (el) => (el as unknown as { disabled: boolean }).disabled)).toBe(true);
    await page.click("form[data-run-form] button[data-preview-run]");
    await page.waitForSelector('[data-preview][data-awaits="true"]');
    const preview = await text("[data-preview]");
    expect(preview).toContain("This run will wait for approval");
    expect(preview).toContain("The workspace's approval policy requires it.");
    expect(preview).toContain("You cannot approve your own run.");
    await screenshot(page, "incident-run-preview");
    await checkAccessibility(page, "incident-run-preview");
    await page.click("form[data-run-form] button[data-submit-run]");
    await page.waitForFunction(() => !document.querySelector("form[data-run-form]"));
    const runId = await page.$eval("section.incident-runs article.run", (el) => el.getAttribute("data-run-id")!);
    const shown = await text(card(runId));
    expect(shown).toContain("Waiting for approval");
    expect(shown).toContain("Revoke user sessions");
    expect(shown).toContain("Add incident comment");
    const stored = (await host.services.stores.gamebookRuns.get(clinics, runId))!.value;
    expect(stored.playbooks.map((p) => [p.referenceId !== "", p.entityId])).toEqual([
      [true, account.id],
      [true, incident.id],
    ]);
    expect(stored.triggedByUserId).toBe(demoPerson("li").oid);
    await screenshot(page, "incident-runs", { readme: true, from: "section.incident-runs" });

    await page.click(`${card(runId)} button[data-action="cancel"]`);
    await page.waitForSelector(`${card(runId)} input[name="reason"]`);
    await page.type(`${card(runId)} input[name="reason"]`, "Reached the user: it was them.");
    await page.click(`${card(runId)} button[data-confirm-action="cancel"]`);
    await page.waitForFunction((sel) => document.querySelector(sel)?.getAttribute("data-status") === "Cancelled", {}, card(runId));
    expect(await text(card(runId))).toContain("Cancelled by Li Wei");
    expect((await host.services.stores.gamebookRuns.get(clinics, runId))!.value.status).toBe("Cancelled");
    expect(host.simulated.automation.executions().filter((e) => e.runId === runId)).toEqual([]);
    await checkAccessibility(page, "incident-runs-cancelled");
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);
  });

  it("at 390 px the run list and the run form fit the screen and pass axe", async () => {
    const phone = await newPage(browser, { width: 390 });
    await signInInBrowser(phone, origin, demoPerson("li").oid, { returnTo: "/portal/incidents" });
    const { source, incidentId } = await incidentOf(fabrikam, EXAMPLE_RUN_TO_UNDO_ID);
    await phone.goto(`${origin}/portal/incidents/${fabrikam}/${source}/${encodeURIComponent(incidentId)}`, { waitUntil: "load" });
    await phone.waitForSelector(card(EXAMPLE_RUN_TO_UNDO_ID));
    await phone.click("button[data-open-run-form]");
    await phone.waitForSelector('form[data-run-form] select[name="choice"]');
    await phone.click("form[data-run-form] .run-form-add button");
    expect(await overflowingElements(phone, 390)).toEqual([]);
    await screenshot(phone, "incident-runs-390");
    await checkAccessibility(phone, "incident-runs-390");
    expect(pageProblems(phone)).toEqual(NO_PROBLEMS);
    await phone.browserContext().close();
  });
});

describe("the rules editor's automation switch", () => {
  it("makes a rule an automation rule: its playbooks then run by themselves on new incidents of its titles", async () => {
    const admin = await newPage(browser, { width: 1280 });
    await signInInBrowser(admin, origin, demoPerson("amira").oid, { returnTo: `/portal/content?workspace=${fabrikam}` });
    await admin.waitForSelector("#rules-heading");
    const [edit] = await admin.$$("xpath/.//button[contains(., 'Edit the rules')]");
    await edit!.click();
    await admin.waitForSelector('input[name="rules[0].autoRun"]');
    // A rule whose playbooks all run without a person: saved as an automation rule.
    await admin.click('input[name="rules[0].autoRun"]');
    await admin.click("form.rules-editor button[type=submit]");
    await admin.waitForSelector("form.rules-editor", { hidden: true });
    expect(await admin.$eval('section[aria-labelledby="rules-heading"] table', (el) => (el as unknown as { innerText: string }).innerText)).toContain("Runs by itself");
    const rules = (await host.services.stores.playbookCatalogues.get(fabrikam))!.rules;
    expect(rules.filter((r) => r.autoRun).map((r) => r.incidentTitle)).toEqual(expect.arrayContaining(["Phishing email with a malicious link delivered to *"]));
    await checkAccessibility(admin, "rules-auto-run");
    expect(pageProblems(admin)).toEqual(NO_PROBLEMS);
    await admin.browserContext().close();
  });
});

function incidentWithAccount(workspaceId: string): VendorIncident {
  for (let i = 0; i < 300; i++) {
    const incident = host.simulated.vendors.createIncident("SourceA", workspaceId, { title: "Impossible travel activity for p@northwind.example", severity: "High" });
    if (incident.entities.some((e) => e.kind === "Account")) return incident;
  }
  throw new Error("no incident with an account");
}

/** The value of the run form's first choice whose label contains `label`. */
async function optionValue(label: string): Promise<string> {
  return page.$$eval('form[data-run-form] select[name="choice"] option', (els, wanted) => els.find((el) => (el.textContent ?? "").includes(wanted as string))!.getAttribute("value")!, label);
}
