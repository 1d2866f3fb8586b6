import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestHost } from "../support/test-host";
import { checkAccessibility, demoPerson, newPage, NO_PROBLEMS, overflowingElements, pageProblems, pageProblemsBesides, screenshot, signInInBrowser, startPortal, type Browser, type Page, type Portal } from "../support/browser";

/**
 * Service accounts in Chromium, as an Admin sets up an integration: the list, a validation problem at
 * its field, a new account whose secret is shown once and works over HTTP Basic, gone once the view is
 * left; a credential added and revoked (refused at once), then the account deleted with a confirmation
 * reached by keyboard. At 1280 and 390 px, with axe.
 */
const NAME = "SIEM export connector";

let portal: Portal;
let browser: Browser;
let host: TestHost;
let origin: string;

beforeAll(async () => {
  portal = await startPortal();
  ({ browser, host, origin } = portal);
}, 600_000);

afterAll(async () => {
  await portal?.close();
});

/** The contract's read of the account, with a client id and secret as HTTP Basic. */
async function readWith(id: string, clientId: string, clientSecret: string): Promise<number> {
  const res = await fetch(`${host.base}/service-accounts/${id}`, { headers: { authorization: host.basic(clientId, clientSecret) } });
  await res.body?.cancel();
  return res.status;
}

/** Ticks the scope's checkbox in the form (its label ends with the scope's name). */
async function checkScope(page: Page, form: string, scope: string): Promise<void> {
  const id = await page.$$eval(
    `${form} .field-check label`,
    (labels, wanted) => labels.find((l) => l.textContent?.endsWith(`(${wanted})`))?.getAttribute("for") ?? "",
    scope,
  );
  expect(id).not.toBe("");
  await page.click(`label[for="${id}"]`);
  expect(await page.$eval(`[id="${id}"]`, (el) => (el as HTMLInputElement).checked)).toBe(true);
}

/** Sets an input's value as typing would (a date input's text depends on the browser's locale). */
async function setValue(page: Page, selector: string, value: string): Promise<void> {
  await page.$eval(
    selector,
    (el, v) => {
      (el as HTMLInputElement).value = v;
      el.dispatchEvent(new Event("input", { bubbles: true }));
    },
    value,
  );
}

async function secretShown(page: Page): Promise<{ clientId: string; clientSecret: string }> {
  await page.waitForSelector("[data-secret-box] [data-client-secret]");
  const clientId = await page.$eval("[data-secret-box] [data-client-id]", (el) => el.textContent?.trim() ?? "");
  const clientSecret = await page.$eval("[data-secret-box] [data-client-secret]", (el) => el.textContent?.trim() ?? "");
  return { clientId, clientSecret };
}

/**
 * The browser's console line for the one answer the test asks for: the 400 of the form with an
 * expiration date in the past, which the page shows at its field.
 */
const validation = /^Failed to load resource: the server responded with a status of 400 .*\/api\/v2\/portal\/service-accounts\)$/;

const html = (page: Page) => page.evaluate(() => document.documentElement.outerHTML);
const storage = (page: Page) => page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));

describe("service accounts in a browser", () => {
  let page: Page;
  let accountId: string;
  let first: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    page = await newPage(browser, { width: 1280 });
    await signInInBrowser(page, origin, demoPerson("amira").oid, { returnTo: "/portal/service-accounts" });
  }, 120_000);

  it("lists the organization's service accounts with their role, workspaces and credentials", async () => {
    await page.waitForSelector("table.service-accounts tbody tr");
    const rows = await page.$$eval("table.service-accounts tbody tr", (all) => all.map((r) => (r as HTMLElement).innerText));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => /\d+ active|None active/.test(r))).toBe(true);
    expect(await page.$$eval("h1", (all) => all.length)).toBe(1);
    await screenshot(page, "service-accounts");
    await checkAccessibility(page, "service-accounts");
  });

  it("shows the server's validation problem at its field: an expiration date in the past", async () => {
    await page.click('a[href="/portal/service-accounts/new"]');
    await page.waitForSelector("form.service-account-form");
    await page.type('input[name="name"]', NAME);
    await checkScope(page, "form.service-account-form", "org:service-accounts:read");
    await setValue(page, 'input[name="expirationDate"]', "2020-01-31");
    await page.click('form.service-account-form button[type="submit"]');
    await page.waitForSelector('.field-invalid input[name="expirationDate"][aria-invalid="true"]');
    const error = await page.$eval('.field-invalid:has(input[name="expirationDate"]) .field-error', (el) => el.textContent);
    expect(error).toContain("must be in the future");
    await checkAccessibility(page, "service-account-invalid");
  });

  it("creates one with a workspace and a scope; the secret is shown once and works over HTTP Basic", async () => {
    const workspace = host.demo.workspaces[0]!;
    await setValue(page, 'input[name="expirationDate"]', "");
    await page.type('textarea[name="description"]', "Exports incidents to the SIEM.");
    await page.click("form.service-account-form fieldset:not(.scopes) > button");
    await page.select('select[name="workspaceAssignments[0].workspaceId"]', workspace.id);
    await page.select('select[name="workspaceAssignments[0].role"]', "Analyst");
    await page.click('form.service-account-form button[type="submit"]');
    first = await secretShown(page);
    accountId = first.clientId;
    expect(first.clientId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.clientSecret.length).toBeGreaterThan(20);
    expect(await page.$eval("[data-secret-box]", (el) => (el as HTMLElement).innerText)).toMatch(/will not be shown again/);
    // Focus moved to the box, so a screen reader reads it first.
    // The focus moves once the box is drawn: wait for it rather than read it at once.
    await page.waitForFunction(() => document.activeElement?.hasAttribute("data-secret-box"));
    // The clipboard may be refused in headless Chromium: either way, no uncaught error.
    await page.click("[data-secret-box] dd:has([data-client-secret]) button");
    await page.waitForFunction(() => /Copied|Copy failed/.test(document.querySelector("[data-secret-box] dd:has([data-client-secret]) button")?.textContent ?? ""));
    expect(await readWith(accountId, first.clientId, first.clientSecret)).toBe(200);
    expect(await storage(page)).not.toContain(first.clientSecret);
    await screenshot(page, "service-account-created");
    await checkAccessibility(page, "service-account-created");
  });

  it("shows the secret no more once the view is left", async () => {
    await page.click(`[data-secret-box] a[href="/portal/service-accounts/${accountId}"]`);
    await page.waitForSelector("table.credentials tbody tr");
    expect(await html(page)).not.toContain(first.clientSecret);
    await page.click('nav a[href="/portal/service-accounts"]');
    await page.waitForSelector(`tr[data-service-account-id="${accountId}"]`);
    const row = await page.$eval(`tr[data-service-account-id="${accountId}"]`, (el) => (el as HTMLElement).innerText);
    expect(row).toContain(NAME);
    expect(row).toContain("Analyst of");
    expect(row).toContain("1 active");
    expect(await html(page)).not.toContain(first.clientSecret);
    await page.goBack();
    await page.goBack();
    await page.waitForSelector("h1");
    expect(page.url()).toBe(`${origin}/portal/service-accounts/new`);
    expect(await page.$("[data-secret-box]")).toBeNull();
    expect(await html(page)).not.toContain(first.clientSecret);
    expect(await storage(page)).not.toContain(first.clientSecret);
  });

  it("adds a credential and revokes it after a confirmation: the revoked one is refused", async () => {
    await page.goto(`${origin}/portal/service-accounts/${accountId}`);
    await page.waitForSelector("form.add-credential");
    await checkScope(page, "form.add-credential", "org:service-accounts:read");
    await page.click('form.add-credential button[type="submit"]');
    const second = await secretShown(page);
    expect(second.clientId).toBe(accountId);
    expect(second.clientSecret).not.toBe(first.clientSecret);
    expect(await readWith(accountId, second.clientId, second.clientSecret)).toBe(200);
    await page.waitForFunction(() => document.querySelectorAll('table.credentials tbody tr[data-status="Active"]').length === 2);
    await screenshot(page, "service-account-credential-added");
    await checkAccessibility(page, "service-account-credential-added");

    // The row of the new credential: its prefix is the start of its secret.
    const credentialId = await page.$$eval(
      "table.credentials tbody tr",
      (rows, secret) => rows.find((r) => secret.startsWith((r.querySelector("th code")?.textContent ?? "").replace(/…$/, "")))?.getAttribute("data-credential-id") ?? "",
      second.clientSecret,
    );
    expect(credentialId).not.toBe("");
    await page.click(`button[data-revoke="${credentialId}"]`);
    await page.waitForSelector(`button[data-confirm-revoke="${credentialId}"]`);
    await page.waitForFunction(() => document.activeElement?.getAttribute("role") === "group");
    await checkAccessibility(page, "service-account-revoke-confirm");
    await page.click(`button[data-confirm-revoke="${credentialId}"]`);
    await page.waitForSelector(`tr[data-credential-id="${credentialId}"][data-status="Revoked"]`);
    expect(await readWith(accountId, second.clientId, second.clientSecret)).toBe(401);
    expect(await readWith(accountId, first.clientId, first.clientSecret)).toBe(200);
  });

  it("changes the account: deactivated, its credentials are refused", async () => {
    await page.click('form.change-service-account input[name="isActive"]');
    await page.click('form.change-service-account button[type="submit"]');
    await page.waitForFunction(() => /is saved/.test(document.querySelector(".banner-success")?.textContent ?? ""));
    expect(await page.$eval(".facts", (el) => (el as HTMLElement).innerText)).toContain("Inactive");
    expect(await readWith(accountId, first.clientId, first.clientSecret)).toBe(401);
    await page.click('form.change-service-account input[name="isActive"]');
    await page.click('form.change-service-account button[type="submit"]');
    await page.waitForFunction(() => !/Inactive/.test((document.querySelector(".facts") as HTMLElement | null)?.innerText ?? "Inactive"));
    expect(await readWith(accountId, first.clientId, first.clientSecret)).toBe(200);
    expect(pageProblemsBesides(page, validation)).toEqual(NO_PROBLEMS);
  });

  it("at 390 px the account and a new secret fit the screen and pass axe", async () => {
    const phone = await newPage(browser, { width: 390 });
    await signInInBrowser(phone, origin, demoPerson("amira").oid, { returnTo: `/portal/service-accounts/${accountId}` });
    await phone.waitForSelector("form.add-credential");
    await checkScope(phone, "form.add-credential", "incidents:read");
    await phone.click('form.add-credential button[type="submit"]');
    await secretShown(phone);
    expect(await overflowingElements(phone, 390)).toEqual([]);
    await screenshot(phone, "service-account-390");
    await checkAccessibility(phone, "service-account-390");
    await phone.goto(`${origin}/portal/service-accounts`);
    await phone.waitForSelector("table.service-accounts tbody tr");
    expect(await overflowingElements(phone, 390)).toEqual([]);
    await screenshot(phone, "service-accounts-390");
    await checkAccessibility(phone, "service-accounts-390");
    expect(pageProblems(phone)).toEqual(NO_PROBLEMS);
    await phone.browserContext().close();
  });

  it("deletes it after a confirmation reached by keyboard, naming it", async () => {
    await page.focus('button[data-action="delete"]');
    await page.keyboard.press("Enter");
    await page.waitForSelector('button[data-action="confirm-delete"]');
    await page.waitForFunction(() => document.activeElement?.getAttribute("role") === "group");
    expect(await page.$eval('button[data-action="confirm-delete"]', (el) => el.textContent)).toBe(`Delete ${NAME}`);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-action"))).toBe("confirm-delete");
    await page.keyboard.press("Enter");
    await page.waitForFunction((name) => (document.querySelector(".banner-success")?.textContent ?? "").includes(`${name} is deleted`), {}, NAME);
    expect(page.url()).toBe(`${origin}/portal/service-accounts`);
    expect(await page.$(`tr[data-service-account-id="${accountId}"]`)).toBeNull();
    expect(await readWith(accountId, first.clientId, first.clientSecret)).toBe(401);
    expect(pageProblemsBesides(page, validation)).toEqual(NO_PROBLEMS);
    await page.browserContext().close();
  });
});
