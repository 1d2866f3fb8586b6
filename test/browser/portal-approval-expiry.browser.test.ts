import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestHost } from "../support/test-host";
import { submitAccountRun } from "../support/gamebook-runs";
import { checkAccessibility, demoPerson, newPage, NO_PROBLEMS, pageProblems, screenshot, signInInBrowser, startPortal, type Portal } from "../support/browser";

/**
 * A request that expires while the queue is open changes in place to say so, on the queue's next
 * read, and stays where it was. The service's clock is moved past the request's expiry (well within
 * the 8-hour session) and the expiry timer is run at once.
 */
const HOUR = 3_600_000;
let offset = 0;
let portal: Portal;
let host: TestHost;
let clinics: string;

beforeAll(async () => {
  portal = await startPortal({ now: () => new Date(Date.now() + offset), env: { SIMULATED_PLAYBOOK_DELAY_MS: "2" } });
  host = portal.host;
  clinics = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-clinics")!.id;
  const admin = await host.person({ organizationalRole: "WorkspaceAdmin" });
  const policy = await host.portal(admin, "PUT", `/portal/workspaces/${clinics}/approval-policy`, { body: { mode: "AllRuns", approvalTimeoutHours: 1 } });
  expect(policy.status).toBe(200);
}, 600_000);

afterAll(async () => {
  await portal?.close();
});

describe("an approval request that expires while the queue is open", () => {
  it("shows it expired, in place, once the queue reads again", async () => {
    const runId = await submitAccountRun(host, clinics);
    const page = await newPage(portal.browser, { width: 1280 });
    await signInInBrowser(page, portal.origin, demoPerson("jonas").oid, { returnTo: "/portal/approvals" });
    const card = `article.approval[data-run-id="${runId}"]`;
    await page.waitForSelector(`${card}[data-awaiting="true"]`);
    expect(await page.$eval(card, (el) => (el as HTMLElement).innerText)).toMatch(/Expires\s+in (60 minutes|1 hour)/);

    offset = 2 * HOUR;
    const sweep = await host.local("POST", "/gamebooks/expire-approvals");
    expect(((await sweep.json()) as { data: { expired: { runId: string }[] } }).data.expired.map((e) => e.runId)).toEqual([runId]);
    expect((await host.services.stores.gamebookRuns.get(clinics, runId))!.value.status).toBe("Denied");

    await page.click("main .page-actions button");
    await page.waitForSelector(`${card}[data-awaiting="false"]`);
    expect(await page.$eval(card, (el) => (el as HTMLElement).innerText)).toContain("Expired without a decision");
    // Nothing to decide any more: no approve or deny form on it.
    expect(await page.$(`${card} form.decision`)).toBeNull();
    await screenshot(page, "approvals-expired");
    await checkAccessibility(page, "approvals-expired");
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);
    await page.browserContext().close();
  });
});
