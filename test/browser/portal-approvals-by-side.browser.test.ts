import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestHost } from "../support/test-host";
import { submitAccountRun } from "../support/gamebook-runs";
import { checkAccessibility, demoPerson, newPage, NO_PROBLEMS, pageProblems, screenshot, signInInBrowser, startPortal, type Page, type Portal } from "../support/browser";

/**
 * Approvals by side in Chromium. Two-sided: in Northwind Health's clinics workspace a run needs one
 * approver of each side; Jonas Becker approves for the provider and the run keeps waiting, then
 * Priya Natarajan, Northwind's own Owner, approves for the customer and it is dispatched. Then a
 * standing pre-authorization of Northwind's lets a run through without asking, the incident's page
 * says which one, and once the service's clock passes its end a run of the same playbook waits again.
 */
const HOUR = 3_600_000;
let offset = 0;
let portal: Portal;
let host: TestHost;
let clinics: string;

beforeAll(async () => {
  portal = await startPortal({ now: () => new Date(Date.now() + offset), env: { SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  host = portal.host;
  const workspace = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-clinics")!;
  clinics = workspace.id;
  const admin = await host.person({ organizationalRole: "WorkspaceAdmin" });
  const policy = await host.portal(admin, "PUT", `/portal/workspaces/${clinics}/approval-policy`, { body: { mode: "AllRuns", twoSidedApproval: true } });
  expect(policy.status).toBe(200);
  await host.person({ organizationalRole: "Member", accountId: workspace.accountId, workspaceAssignments: [{ workspaceId: clinics, role: "Owner" }] });
}, 600_000);

afterAll(async () => {
  await portal?.close();
});

const card = (runId: string) => `article.approval[data-run-id="${runId}"]`;
const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el as HTMLElement).innerText);

async function approveIn(page: Page, runId: string, comment: string): Promise<void> {
  await page.waitForSelector(`${card(runId)}[data-awaiting="true"] form.decision button[type="submit"]`);
  await page.type(`${card(runId)} input[name="comment"]`, comment);
  await page.click(`${card(runId)} button[type="submit"]`);
}

describe("two-sided approval in a browser", () => {
  it("waits after the provider's approval, and is dispatched with the customer's", async () => {
    const runId = await submitAccountRun(host, clinics);

    const jonas = await newPage(portal.browser, { width: 1280 });
    await signInInBrowser(jonas, portal.origin, demoPerson("jonas").oid, { returnTo: "/portal/approvals" });
    await jonas.waitForSelector(`${card(runId)}[data-awaiting="true"]`);
    const before = await text(jonas, card(runId));
    expect(before).toContain("One person of the customer and one of the managing provider");
    expect(before).toContain("Made under");
    await approveIn(jonas, runId, "Host confirmed compromised on our side.");
    await jonas.waitForFunction((sel) => document.querySelector(sel)?.textContent?.includes("1 of 2"), {}, card(runId));
    expect(await jonas.$eval(card(runId), (el) => el.getAttribute("data-awaiting"))).toBe("true");
    expect(await text(jonas, card(runId))).toContain(`${demoPerson("jonas").name} (provider)`);
    // Jonas has given the provider's approval: he may not give the customer's.
    expect(await text(jonas, card(runId))).toContain("You approved it already");
    expect((await host.services.stores.gamebookRuns.get(clinics, runId))!.value.isQueued).toBe(true);
    await jonas.browserContext().close();

    const priya = await newPage(portal.browser, { width: 1280 });
    await signInInBrowser(priya, portal.origin, demoPerson("priya").oid, { returnTo: "/portal/approvals" });
    await approveIn(priya, runId, "The user is not travelling: contain.");
    await priya.waitForFunction((sel) => document.querySelector(sel)?.getAttribute("data-awaiting") === "false", {}, card(runId));
    const after = await text(priya, card(runId));
    expect(after).toContain(`Approved by ${demoPerson("priya").name}`);
    expect(after).toContain(`${demoPerson("jonas").name} (provider)`);
    expect(after).toContain(`${demoPerson("priya").name} (customer)`);
    expect((await host.services.stores.gamebookRuns.get(clinics, runId))!.value.dispatchedAt).not.toBe("");
    await screenshot(priya, "approvals-two-sided");
    await checkAccessibility(priya, "approvals-two-sided");
    expect(pageProblems(priya)).toEqual(NO_PROBLEMS);
    await priya.browserContext().close();
  });
});

describe("a standing pre-authorization in a browser", () => {
  it("is recorded on the workspace's page by its Owner, lets a run through without asking, says so on the incident's page, and ends by itself", async () => {
    const catalogue = (await host.services.stores.playbookCatalogues.get(clinics))!;
    const revoke = catalogue.playbooks.find((p) => p.referenceId === "revoke-sessions")!;
    // Priya, Northwind's Owner of the workspace, records it for the next two hours.
    const page = await newPage(portal.browser, { width: 1280 });
    await signInInBrowser(page, portal.origin, demoPerson("priya").oid, { returnTo: `/portal/workspaces/${clinics}` });
    const section = "[data-pre-authorizations]";
    await page.waitForSelector(`${section} input[name="playbook-${revoke.id}"]`);
    await page.click(`${section} input[name="playbook-${revoke.id}"]`);
    // In the browser's own time zone, as the field takes it; its typing depends on the locale, so the value is set as a choice would set it.
    const until = await page.evaluate(`(() => {
      const at = new Date(Date.now() + ${offset + 2 * HOUR});
      const two = (n) => String(n).padStart(2, "0");
      return at.getFullYear() + "-" + two(at.getMonth() + 1) + "-" + two(at.getDate()) + "T" + two(at.getHours()) + ":" + two(at.getMinutes());
    })()`);
    await page.$eval(`${section} input[name="endsAt"]`, (el, value) => {
      (el as unknown as { value: string }).value = value as string;
      el.dispatchEvent(new Event("input", { bubbles: true }));
    }, until);
    await page.type(`${section} input[name="note"]`, "Revoke sessions without asking during the phishing wave.");
    await page.click(`${section} button[type="submit"]`);
    await page.waitForSelector(`${section} tr[data-state="Active"]`);
    expect(await text(page, section)).toContain(`Recorded: ${revoke.name} run without asking until`);
    await checkAccessibility(page, "workspace-pre-authorizations");
    const recorded = (await host.services.stores.workspaces.read(clinics))!.value.preAuthorizations ?? [];
    expect(recorded.map((p) => p.playbookIds)).toEqual([[revoke.id]]);

    const through = await submitAccountRun(host, clinics, { waits: false });
    const run = (await host.services.stores.gamebookRuns.get(clinics, through))!.value;
    await page.goto(`${portal.origin}/portal/incidents/${clinics}/${run.source}/${encodeURIComponent(run.incidentId)}`, { waitUntil: "load" });
    const decision = `article.run[data-run-id="${through}"] [data-decision]`;
    await page.waitForSelector(decision);
    expect(await text(page, decision)).toContain("standing pre-authorization");
    expect(await text(page, decision)).toContain("phishing wave");
    await screenshot(page, "incident-run-pre-authorized");

    // Past its end, the same playbook asks again: the run waits in the queue, and the workspace's page lists it as expired.
    offset = 3 * HOUR;
    const waiting = await submitAccountRun(host, clinics);
    await page.goto(`${portal.origin}/portal/workspaces/${clinics}`, { waitUntil: "load" });
    await page.waitForSelector(`${section} tr[data-state="Expired"]`);
    await page.goto(`${portal.origin}/portal/approvals`, { waitUntil: "load" });
    await page.waitForSelector(`${card(waiting)}[data-awaiting="true"]`);
    expect(await text(page, card(waiting))).not.toContain("Pre-authorized");
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);
    await page.browserContext().close();
  });
});
