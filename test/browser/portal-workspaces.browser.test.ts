import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestHost } from "../support/test-host";
import { checkAccessibility, demoPerson, newPage, NO_PROBLEMS, overflowingElements, pageProblems, pageProblemsBesides, screenshot, signInInBrowser, startPortal, type Browser, type Page, type Portal } from "../support/browser";

/**
 * Organizations and workspaces, and people, in Chromium: onboarding a workspace through its form, the
 * server's validation problems shown at the field that caused them, changing a workspace's approval
 * policy, offboarding one behind its confirmation, and the people list and form; axe and screenshots
 * at 1280 and 390 px.
 */
/** The browser's console line for an answer the page expected and shows (a 400 or 409 of a form). */
const expectedRefusal = /^Failed to load resource: the server responded with a status of (400|409) /;

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

/** The error the page shows at a field: its input is aria-invalid and described by the message. */
async function fieldErrorAt(page: Page, selector: string): Promise<string | null> {
  return page.$eval(selector, (el) => {
    if (el.getAttribute("aria-invalid") !== "true") return null;
    const ids = (el.getAttribute("aria-describedby") ?? "").split(/\s+/).filter(Boolean);
    return ids.map((id) => document.getElementById(id)).find((d) => d?.classList.contains("field-error"))?.textContent ?? null;
  });
}

async function setValue(page: Page, selector: string, value: string): Promise<void> {
  await page.click(selector, { count: 3 });
  await page.keyboard.press("Backspace");
  if (value) await page.type(selector, value);
}

describe("organizations and workspaces in a browser", () => {
  let page: Page;
  const form = "#onboard-workspace";

  beforeAll(async () => {
    page = await newPage(browser, { width: 1280 });
    await signInInBrowser(page, origin, demoPerson("jonas").oid, { returnTo: "/portal/workspaces" });
    await page.waitForSelector("tr[data-workspace-id]");
  }, 120_000);

  afterAll(async () => {
    await page?.browserContext().close();
  });

  it("lists the provider, its customers and their workspaces, with the onboarding forms for a WorkspaceAdmin", async () => {
    const text = await page.$eval("main", (el) => (el as unknown as { innerText: string }).innerText);
    expect(text).toContain("Contoso Managed Security");
    expect(text).toContain("Fabrikam Retail");
    expect(text).toContain("northwind-sentinel-clinics");
    expect(await page.$$eval("h1", (els) => els.length)).toBe(1);
    expect(await page.$(form)).not.toBeNull();
    await screenshot(page, "workspaces-list");
    await checkAccessibility(page, "workspaces-list");
  });

  it("onboards a workspace through the form: the server's problems show at their fields, then the new workspace with a notice", async () => {
    const fabrikam = host.demo.customers.find((c) => c.name === "Fabrikam Retail")!;
    // A bridged vendor's workspace, with no security instance to pick: entered by hand.
    await page.click(`${form} input[name="byHand"]`);
    expect(await page.$(`${form} select[name="securityInstance.subscriptionId"]`)).toBeNull();
    await page.type(`${form} input[name="name"]`, "fabrikam-sentinel-browser");
    await page.select(`${form} select[name="accountId"]`, fabrikam.id);
    await setValue(page, `${form} input[name="tenantId"]`, "not-a-tenant");
    await page.click(`${form} button[type="submit"]`);
    await page.waitForSelector(`${form} input[name="tenantId"][aria-invalid="true"]`);
    expect(await fieldErrorAt(page, `${form} input[name="tenantId"]`)).toBeTruthy();
    expect(await page.$eval(`${form} input[name="name"]`, (el) => el.getAttribute("aria-invalid"))).toBeNull();
    await screenshot(page, "workspaces-onboard-field-error");
    await checkAccessibility(page, "workspaces-onboard-field-error");

    // The handler's own check of a bridge's URL, at the source's field, its disclosure opened.
    await setValue(page, `${form} input[name="tenantId"]`, "7b0c1a52-3f1e-4c6d-9a2b-1e5f8d4c3b2a");
    await page.click(`${form} details.source summary`);
    await page.type(`${form} input[name="sources.SourceA.bridge.url"]`, "ftp://bridge.fabrikam.example/a");
    await page.click(`${form} button[type="submit"]`);
    await page.waitForSelector(`${form} input[name="sources.SourceA.bridge.url"][aria-invalid="true"]`);
    expect(await fieldErrorAt(page, `${form} input[name="sources.SourceA.bridge.url"]`)).toContain("https");
    expect(await page.$eval(`${form} input[name="tenantId"]`, (el) => el.getAttribute("aria-invalid"))).toBeNull();

    await setValue(page, `${form} input[name="sources.SourceA.bridge.url"]`, "https://bridge.fabrikam.example/a");
    // Containment waits for an Owner unless chosen otherwise: the form says so, and the choice is kept.
    expect(await page.$eval(`${form} select[name="approvalMode"]`, (el) => (el as HTMLSelectElement).value)).toBe("AdminRequiredPlaybooks");
    await page.select(`${form} select[name="approvalMode"]`, "AllRuns");
    await page.click(`${form} button[type="submit"]`);
    await page.waitForFunction(() => location.pathname.startsWith("/portal/workspaces/"));
    await page.waitForSelector(".banner-success");
    // The success banner shows at once; the heading names the workspace once its page has read it.
    await page.waitForFunction(() => document.querySelector("h1")?.textContent !== "Workspace");
    expect(await page.$eval("h1", (el) => el.textContent)).toBe("Workspace fabrikam-sentinel-browser");
    expect(await page.$eval(".banner-success", (el) => el.textContent)).toContain("fabrikam-sentinel-browser is onboarded into Fabrikam Retail");
    const id = page.url().split("/").pop()!;
    const stored = (await host.services.stores.workspaces.read(id))!.value;
    expect(stored.accountId).toBe(fabrikam.id);
    expect(stored.sources?.SourceA?.bridge?.url).toBe("https://bridge.fabrikam.example/a");
    expect(stored.gamebookApproval).toMatchObject({ mode: "AllRuns" });
    // Switched on (the default) but without the deployment's system for a workspace new to it: the page says why.
    await page.waitForSelector('[data-not-in-effect="logAnalytics"]');
    expect(await page.$eval('[data-not-in-effect="logAnalytics"]', (el) => el.textContent)).toBe("The deployment maps no Log Analytics workspace to this workspace (LOG_ANALYTICS_WORKSPACES).");
    await screenshot(page, "workspace-onboarded");
    await checkAccessibility(page, "workspace-onboarded");
  });

  it("a name its organization already has is the server's 409, shown at the name", async () => {
    await page.goto(`${origin}/portal/workspaces`, { waitUntil: "load" });
    await page.waitForSelector(form);
    const fabrikam = host.demo.customers.find((c) => c.name === "Fabrikam Retail")!;
    await page.click(`${form} input[name="byHand"]`);
    await page.type(`${form} input[name="name"]`, "fabrikam-sentinel-browser");
    await page.select(`${form} select[name="accountId"]`, fabrikam.id);
    await setValue(page, `${form} input[name="tenantId"]`, "7b0c1a52-3f1e-4c6d-9a2b-1e5f8d4c3b2a");
    await page.click(`${form} button[type="submit"]`);
    await page.waitForSelector(`${form} input[name="name"][aria-invalid="true"]`);
    expect(await fieldErrorAt(page, `${form} input[name="name"]`)).toContain("already has a workspace named");
  });

  it("onboards a workspace by picking its security instance from the lookups: checked first, then listed with the instance's id", async () => {
    const picker = {
      subscription: `${form} select[name="securityInstance.subscriptionId"]`,
      group: `${form} select[name="securityInstance.resourceGroup"]`,
      instance: `${form} select[name="securityInstance.workspaceName"]`,
    };
    const fabrikam = host.demo.customers.find((c) => c.name === "Fabrikam Retail")!;
    const subscription = (kind: string) => host.simulated.cloud.subscriptions.find((s) => s.accountId === fabrikam.id && s.displayName.endsWith(kind))!;
    const [production, development] = [subscription("Production"), subscription("Development")];
    const securityGroup = production.resourceGroups.find((g) => g.name.includes("-security-"))!;
    const devGroup = development.resourceGroups.find((g) => g.name.includes("-dev-"))!;
    const devInstance = devGroup.workspaces.find((w) => w.onboarded)!;
    const pick = async (select: string, value: string) => {
      await page.waitForSelector(`${select}:not([disabled]) option[value="${value}"]`);
      await page.select(select, value);
    };

    await page.goto(`${origin}/portal/workspaces`, { waitUntil: "load" });
    await page.waitForSelector(picker.subscription);
    // Each lookup waits for the one before it.
    expect(await page.$eval(picker.group, (el) => (el as HTMLSelectElement).disabled)).toBe(true);
    expect(await page.$eval(picker.instance, (el) => (el as HTMLSelectElement).disabled)).toBe(true);

    // An instance a workspace already has: the check before onboarding says so, and nothing is sent.
    await pick(picker.subscription, production.subscriptionId);
    await pick(picker.group, securityGroup.name);
    await pick(picker.instance, "fabrikam-sentinel-prod");
    expect(await page.$eval(`${form} input[name="name"]`, (el) => (el as HTMLInputElement).value)).toBe("fabrikam-sentinel-prod");
    await page.click(`${form} button[type="submit"]`);
    await page.waitForSelector(`${form} .banner-error`);
    expect(await page.$eval(`${form} .banner-error`, (el) => el.textContent)).toContain("fabrikam-sentinel-prod is already onboarded as fabrikam-sentinel-prod");
    // And at the instance's select, which reads it with the field.
    expect(await fieldErrorAt(page, picker.instance)).toContain("already onboarded");
    await screenshot(page, "workspaces-onboard-instance-taken");
    await checkAccessibility(page, "workspaces-onboard-instance-taken");

    // The development instance no workspace serves yet, its last choice made with the keyboard.
    await pick(picker.subscription, development.subscriptionId);
    await pick(picker.group, devGroup.name);
    await page.waitForSelector(`${picker.instance}:not([disabled]) option[value="${devInstance.name}"]`);
    await page.focus(picker.instance);
    await page.keyboard.press("ArrowDown");
    await page.waitForSelector(`${form} [data-instance-id="${devInstance.customerId}"]`);
    expect(await page.$eval(`${form} input[name="name"]`, (el) => (el as HTMLInputElement).value)).toBe(devInstance.name);
    expect(await page.$(`${form} .banner-error`)).toBeNull();
    await page.select(`${form} select[name="accountId"]`, fabrikam.id);
    await page.click(`${form} button[type="submit"]`);
    await page.waitForFunction(() => location.pathname.startsWith("/portal/workspaces/"));
    expect(page.url().split("/").pop()).toBe(devInstance.customerId);
    expect((await host.services.stores.workspaces.read(devInstance.customerId!))!.value).toMatchObject({ name: devInstance.name, accountId: fabrikam.id, azureId: devInstance.resourceId });

    await page.goto(`${origin}/portal/workspaces`, { waitUntil: "load" });
    await page.waitForSelector(`tr[data-workspace-id="${devInstance.customerId}"]`);
    expect(await page.$eval(`tr[data-workspace-id="${devInstance.customerId}"] th`, (el) => el.textContent)).toBe(devInstance.name);
  });

  it("changes a workspace's approval policy, the server's range shown at the hours", async () => {
    await page.click('tr[data-workspace-id] a');
    await page.waitForSelector('input[name="approvalTimeoutHours"]');
    await setValue(page, 'input[name="approvalTimeoutHours"]', "0");
    await page.click('section[aria-labelledby="policy-heading"] button[type="submit"]');
    await page.waitForSelector('input[name="approvalTimeoutHours"][aria-invalid="true"]');
    expect(await fieldErrorAt(page, 'input[name="approvalTimeoutHours"]')).toBeTruthy();
    await setValue(page, 'input[name="approvalTimeoutHours"]', "8");
    await page.select('select[name="mode"]', "AllRuns");
    await page.click('section[aria-labelledby="policy-heading"] button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('section[aria-labelledby="policy-heading"] .banner-success') !== null);
    await checkAccessibility(page, "workspace-policy-saved");
  });

  it("offboards a workspace behind a confirmation that names it and says what happens", async () => {
    await page.goto(`${origin}/portal/workspaces`, { waitUntil: "load" });
    await page.waitForSelector("tr[data-workspace-id]");
    const id = (await host.services.stores.workspaces.listByAccounts(host.demo.customers.map((c) => c.id))).find((w) => w.name === "fabrikam-sentinel-browser")!.id;
    await page.goto(`${origin}/portal/workspaces/${id}`, { waitUntil: "load" });
    await page.waitForSelector('section[aria-labelledby="offboard-heading"] .button-danger');
    await page.click('section[aria-labelledby="offboard-heading"] .button-danger');
    await page.waitForSelector(".offboard-confirm");
    const text = await page.$eval(".offboard-confirm", (el) => (el as unknown as { innerText: string }).innerText);
    expect(text).toContain("Offboard fabrikam-sentinel-browser?");
    expect(text).toContain("denied");
    expect(text).toContain("audit trail");
    await screenshot(page, "workspace-offboard-confirm");
    await checkAccessibility(page, "workspace-offboard-confirm");
    await page.click(".offboard-confirm .button-danger");
    await page.waitForFunction(() => location.pathname === "/portal/workspaces");
    await page.waitForSelector(".banner-success");
    expect(await page.$eval(".banner-success", (el) => el.textContent)).toContain("fabrikam-sentinel-browser is offboarded");
    expect((await host.services.stores.workspaces.read(id))!.value.offboarded).toBeTruthy();
    expect(pageProblemsBesides(page, expectedRefusal)).toEqual(NO_PROBLEMS);
  });

  it("at 390 px the list, a workspace and its forms fit the screen and pass axe", async () => {
    const phone = await newPage(browser, { width: 390 });
    await signInInBrowser(phone, origin, demoPerson("jonas").oid, { returnTo: "/portal/workspaces" });
    await phone.waitForSelector("tr[data-workspace-id]");
    expect(await overflowingElements(phone, 390)).toEqual([]);
    await screenshot(phone, "workspaces-list-390");
    await checkAccessibility(phone, "workspaces-list-390");
    await phone.click("tr[data-workspace-id] a");
    await phone.waitForSelector('input[name="approvalTimeoutHours"]');
    expect(await overflowingElements(phone, 390)).toEqual([]);
    await screenshot(phone, "workspace-390");
    await checkAccessibility(phone, "workspace-390");
    expect(pageProblems(phone)).toEqual(NO_PROBLEMS);
    await phone.browserContext().close();
  });

  it("someone without WorkspaceAdmin sees their workspaces without the forms", async () => {
    const analyst = await newPage(browser, { width: 1280 });
    await signInInBrowser(analyst, origin, demoPerson("li").oid, { returnTo: "/portal/workspaces" });
    await analyst.waitForSelector("tr[data-workspace-id]");
    expect(await analyst.$(form)).toBeNull();
    await analyst.click("tr[data-workspace-id] a");
    await analyst.waitForSelector('section[aria-labelledby="policy-heading"] dl');
    expect(await analyst.$('section[aria-labelledby="offboard-heading"]')).toBeNull();
    await checkAccessibility(analyst, "workspace-read-only");
    expect(pageProblems(analyst)).toEqual(NO_PROBLEMS);
    await analyst.browserContext().close();
  });
});

describe("people in a browser", () => {
  it("lists people with their roles, and adds one: the server's problems at their fields, then the list with a notice", async () => {
    const page = await newPage(browser, { width: 1280 });
    await signInInBrowser(page, origin, demoPerson("amira").oid, { returnTo: "/portal/people" });
    await page.waitForSelector("tr[data-user-id]");
    const text = await page.$eval("main", (el) => (el as unknown as { innerText: string }).innerText);
    expect(text).toContain("Jonas Becker");
    expect(text).toContain("WorkspaceAdmin");
    await screenshot(page, "people-list");
    await checkAccessibility(page, "people-list");

    await page.click('a[href="/portal/people/new"]');
    await page.waitForSelector('input[name="userId"]');
    await page.type('input[name="userId"]', "5d7e3a1c-2b4f-4e8a-9c6d-0f1e2a3b4c5d");
    await page.type('input[name="displayName"]', "Ana Costa");
    await page.type('input[name="email"]', "ana.costa@contoso-mssp.example");
    await page.click("fieldset button.button-secondary");
    await page.waitForSelector('select[name="workspaceRoles[0].workspaceId"]');
    // No workspace chosen: the server names the entry.
    await page.click('form button[type="submit"]');
    await page.waitForSelector('select[name="workspaceRoles[0].workspaceId"][aria-invalid="true"]');
    expect(await fieldErrorAt(page, 'select[name="workspaceRoles[0].workspaceId"]')).toBeTruthy();
    await screenshot(page, "person-field-error");
    await checkAccessibility(page, "person-field-error");

    const clinics = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-clinics")!;
    await page.select('select[name="workspaceRoles[0].workspaceId"]', clinics.id);
    await page.click('form button[type="submit"]');
    await page.waitForFunction(() => location.pathname === "/portal/people");
    await page.waitForSelector(".banner-success");
    await page.waitForSelector('tr[data-user-id="5d7e3a1c-2b4f-4e8a-9c6d-0f1e2a3b4c5d"]');
    expect(await page.$eval('tr[data-user-id="5d7e3a1c-2b4f-4e8a-9c6d-0f1e2a3b4c5d"]', (el) => el.textContent)).toContain("Analyst of northwind-sentinel-clinics");
    expect(pageProblemsBesides(page, expectedRefusal)).toEqual(NO_PROBLEMS);
    await page.browserContext().close();
  });

  it("signs a person out everywhere, and at 390 px the person's page fits and passes axe", async () => {
    const phone = await newPage(browser, { width: 390 });
    await signInInBrowser(phone, origin, demoPerson("amira").oid, { returnTo: "/portal/people" });
    await phone.waitForSelector("tr[data-user-id]");
    expect(await overflowingElements(phone, 390)).toEqual([]);
    await checkAccessibility(phone, "people-list-390");
    const li = demoPerson("li");
    await phone.click(`tr[data-user-id="${li.oid}"] a`);
    await phone.waitForSelector('section[aria-labelledby="sign-out-heading"] .button-danger');
    expect(await overflowingElements(phone, 390)).toEqual([]);
    await screenshot(phone, "person-390");
    await checkAccessibility(phone, "person-390");
    await phone.click('section[aria-labelledby="sign-out-heading"] .button-danger');
    await phone.click('section[aria-labelledby="sign-out-heading"] .button-danger');
    await phone.waitForSelector(".banner-success");
    expect(await phone.$eval(".banner-success", (el) => el.textContent)).toContain("Every portal session of Li Wei");
    expect(pageProblems(phone)).toEqual(NO_PROBLEMS);
    await phone.browserContext().close();
  });
});
