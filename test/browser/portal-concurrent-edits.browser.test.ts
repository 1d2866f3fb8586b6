import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestHost, TestPerson } from "../support/test-host";
import { checkAccessibility, demoPerson, newPage, NO_PROBLEMS, pageProblemsBesides, screenshot, signInInBrowser, startPortal, type Browser, type Page, type Portal } from "../support/browser";

/**
 * Two administrators changing one record at once, in Chromium: the page reads a person's registration
 * and a workspace's settings with their ETag and sends it as `If-Match`; a change made meanwhile by
 * someone else makes the server refuse the page's (409), the form says so and keeps the draft, the
 * other change stays, and after a reload the page's change is saved. axe and a screenshot of the
 * refusal.
 */
/** The browser's console line for the refused change, which the page expects and explains. */
const expectedConflict = /^Failed to load resource: the server responded with a status of 409 /;

type Json = Record<string, unknown>;

let portal: Portal;
let browser: Browser;
let host: TestHost;
let origin: string;
/** The other administrator, who changes the records through the API while the page has them open. */
let other: TestPerson;

beforeAll(async () => {
  portal = await startPortal();
  ({ browser, host, origin } = portal);
  other = await host.person({ organizationalRole: "Admin" });
}, 600_000);

afterAll(async () => {
  await portal?.close();
});

async function setValue(page: Page, selector: string, value: string): Promise<void> {
  await page.click(selector, { count: 3 });
  await page.keyboard.press("Backspace");
  if (value) await page.type(selector, value);
}

/** Reads a record as the other administrator: its data and its ETag. */
async function readAsOther(path: string): Promise<{ data: Json; etag: string }> {
  const res = await host.portal(other, "GET", path);
  expect(res.status).toBe(200);
  const etag = res.headers.get("etag");
  expect(etag).toBeTruthy();
  return { data: ((await res.json()) as { data: Json }).data, etag: etag! };
}

async function textOf(page: Page, selector: string): Promise<string> {
  return page.$eval(selector, (el) => (el as unknown as { innerText: string }).innerText);
}

describe("a change made over someone else's, in a browser", () => {
  let page: Page;

  beforeAll(async () => {
    page = await newPage(browser, { width: 1280 });
    await signInInBrowser(page, origin, demoPerson("amira").oid, { returnTo: "/portal/people" });
    await page.waitForSelector("tr[data-user-id]");
  }, 120_000);

  afterAll(async () => {
    await page?.browserContext().close();
  });

  it("a person's registration: the conflict at the form with the draft kept, the other change kept, then reload and save", async () => {
    const person = await host.person({ organizationalRole: "Member" });
    const accountId = host.demo.provider.id;
    const personPath = `/portal/people/${person.userId}?accountId=${accountId}`;
    await page.goto(`${origin}/portal/people/${person.userId}?accountId=${accountId}`, { waitUntil: "load" });
    const form = 'section[aria-labelledby="person-form-heading"] form';
    await page.waitForSelector(`${form} input[name="displayName"]`);

    // Meanwhile another administrator renames the person, with the version they read.
    const read = await readAsOther(personPath);
    const registration = read.data as { email: string; tenantId: string; accountId: string; organizationalRole: string; isActive: boolean; workspaceRoles: { workspaceId: string; role: string }[] };
    const changed = await host.portal(other, "PUT", `/portal/people/${person.userId}`, {
      body: {
        displayName: "Renamed Elsewhere",
        email: registration.email,
        tenantId: registration.tenantId,
        accountId: registration.accountId,
        organizationalRole: registration.organizationalRole,
        workspaceRoles: registration.workspaceRoles.map((r) => ({ workspaceId: r.workspaceId, role: r.role })),
        isActive: registration.isActive,
      },
      headers: { "If-Match": read.etag },
    });
    expect(changed.status).toBe(200);

    await setValue(page, `${form} input[name="displayName"]`, "Renamed Here");
    await page.click(`${form} button[type="submit"]`);
    await page.waitForSelector(`${form} .edit-conflict`);
    expect(await textOf(page, `${form} .edit-conflict`)).toContain("Someone changed this since you opened it: reload to see their change, then make yours again.");
    expect(await page.$eval(`${form} input[name="displayName"]`, (el) => (el as HTMLInputElement).value)).toBe("Renamed Here");
    expect((await readAsOther(personPath)).data.displayName).toBe("Renamed Elsewhere");
    await screenshot(page, "person-edit-conflict");
    await checkAccessibility(page, "person-edit-conflict");

    await page.click(`${form} .edit-conflict button`);
    await page.waitForFunction((selector) => (document.querySelector(selector) as HTMLInputElement | null)?.value === "Renamed Elsewhere", {}, `${form} input[name="displayName"]`);
    expect(await page.$(`${form} .edit-conflict`)).toBeNull();
    await setValue(page, `${form} input[name="displayName"]`, "Renamed Here");
    await page.click(`${form} button[type="submit"]`);
    await page.waitForSelector(".banner-success");
    expect(await textOf(page, ".banner-success")).toContain("The registration of Renamed Here is saved.");
    expect((await readAsOther(personPath)).data.displayName).toBe("Renamed Here");

    // The answer's ETag is the version the next change sends: a second save goes through.
    await setValue(page, `${form} input[name="displayName"]`, "Renamed Here Again");
    await page.click(`${form} button[type="submit"]`);
    await page.waitForFunction(() => document.querySelector(".banner-success")?.textContent?.includes("Renamed Here Again") ?? false);
    expect(await page.$(`${form} .edit-conflict`)).toBeNull();
    expect(pageProblemsBesides(page, expectedConflict)).toEqual(NO_PROBLEMS);
  });

  it("a workspace's settings: the conflict at the form, the other change kept, then reload and save; saving the approval policy does not make the next save a conflict", async () => {
    const clinics = host.demo.workspaces.find((w) => w.name === "northwind-sentinel-clinics")!;
    const workspacePath = `/portal/workspaces/${clinics.id}`;
    await page.goto(`${origin}/portal/workspaces/${clinics.id}`, { waitUntil: "load" });
    const form = 'section[aria-labelledby="settings-heading"] form';
    await page.waitForSelector(`${form} input[name="name"]`);

    const read = await readAsOther(workspacePath);
    const changed = await host.portal(other, "PATCH", workspacePath, { body: { name: "clinics-renamed-elsewhere" }, headers: { "If-Match": read.etag } });
    expect(changed.status).toBe(200);

    await setValue(page, `${form} input[name="name"]`, "clinics-renamed-here");
    await page.click(`${form} button[type="submit"]`);
    await page.waitForSelector(`${form} .edit-conflict`);
    expect(await textOf(page, `${form} .edit-conflict`)).toContain("Someone changed this since you opened it");
    expect(await page.$eval(`${form} input[name="name"]`, (el) => (el as HTMLInputElement).value)).toBe("clinics-renamed-here");
    expect((await readAsOther(workspacePath)).data.name).toBe("clinics-renamed-elsewhere");
    await screenshot(page, "workspace-edit-conflict");
    await checkAccessibility(page, "workspace-edit-conflict");

    await page.click(`${form} .edit-conflict button`);
    await page.waitForFunction((selector) => (document.querySelector(selector) as HTMLInputElement | null)?.value === "clinics-renamed-elsewhere", {}, `${form} input[name="name"]`);
    await setValue(page, `${form} input[name="name"]`, "clinics-renamed-here");
    await page.click(`${form} button[type="submit"]`);
    await page.waitForFunction(() => document.querySelector(".banner-success")?.textContent?.includes("The settings of clinics-renamed-here are saved.") ?? false);
    expect((await readAsOther(workspacePath)).data.name).toBe("clinics-renamed-here");

    // The approval policy lives in the workspace's record: the page reads the record's new version after saving it.
    await page.select('select[name="mode"]', "AllRuns");
    await page.click('section[aria-labelledby="policy-heading"] button[type="submit"]');
    await page.waitForSelector('section[aria-labelledby="policy-heading"] .banner-success');
    await page.waitForNetworkIdle({ idleTime: 200 });
    await setValue(page, `${form} input[name="name"]`, "northwind-sentinel-clinics");
    await page.click(`${form} button[type="submit"]`);
    await page.waitForFunction(() => document.querySelector(".banner-success")?.textContent?.includes("The settings of northwind-sentinel-clinics are saved.") ?? false);
    expect(await page.$(`${form} .edit-conflict`)).toBeNull();
    expect((await readAsOther(workspacePath)).data.name).toBe("northwind-sentinel-clinics");
    expect(pageProblemsBesides(page, expectedConflict)).toEqual(NO_PROBLEMS);
  });
});
