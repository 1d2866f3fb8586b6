import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestHost } from "../support/test-host";
import { checkAccessibility, demoPerson, newPage, pageProblems, screenshot, signInInBrowser, startPortal, type Browser, type Portal } from "../support/browser";
import { clockPast } from "../support/wait-for";

/**
 * The incidents page's panel of indicators shared across customers: a provider's person sees the
 * address two customers' incidents hold, with a link to each incident; a customer's person sees no
 * panel, and the page does not even ask for it.
 */
const SHARED_IP = "192.0.2.7";

let portal: Portal;
let browser: Browser;
let host: TestHost;
let origin: string;
const planted: { workspaceId: string; id: string }[] = [];

beforeAll(async () => {
  portal = await startPortal({ env: { SIMULATED_INCIDENTS_PER_WORKSPACE: "0" } });
  ({ browser, host, origin } = portal);
  expect((await host.local("POST", "/reconcile")).status).toBe(200);
  for (const name of ["fabrikam-sentinel-prod", "northwind-sentinel-prod"]) {
    const workspaceId = host.demo.workspaces.find((w) => w.name === name)!.id;
    const incident = host.simulated.vendors.createIncident("SourceA", workspaceId, {
      title: `Beaconing to ${SHARED_IP} from ${name}`,
      severity: "High",
      entities: [{ kind: "Ip", name: SHARED_IP, properties: { address: SHARED_IP } }],
    });
    planted.push({ workspaceId, id: incident.id });
    await clockPast(incident.lastModificationTime);
  }
  expect((await host.local("POST", "/reconcile")).status).toBe(200);
}, 600_000);

afterAll(async () => {
  await portal?.close();
});

describe("the shared indicators panel", () => {
  it("shows a provider's person the address in both customers' incidents, each a link to its page", async () => {
    const page = await newPage(browser, { width: 1280 });
    await signInInBrowser(page, origin, demoPerson("jonas").oid, { returnTo: "/portal/incidents" });
    // Folded to one line that says what it found: opened, it lists the indicators.
    const panel = "[data-shared-indicators]";
    await page.waitForFunction(`/^1 indicator in the last 7 days$/.test(document.querySelector("${panel} [data-shared-indicators-found]")?.textContent ?? "")`);
    await page.click(`${panel} > summary`);
    const card = `[data-indicator="ip:${SHARED_IP}"]`;
    await page.waitForSelector(card, { visible: true });
    const summary = await page.$eval(`${card} summary`, (el) => (el as HTMLElement).innerText);
    expect(summary).toMatch(new RegExp(`^${SHARED_IP.replace(/\./g, "\\.")} IP address in 2 customers, 2 incidents, first seen .+, last seen .+$`));
    await page.click(`${card} summary`);
    const links = await page.$$eval(`${card} a`, (as) => as.map((a) => a.getAttribute("href")));
    expect(links.sort()).toEqual(planted.map((p) => `/portal/incidents/${p.workspaceId}/SourceA/${encodeURIComponent(p.id)}`).sort());
    expect(await page.$eval(`${card} details`, (el) => (el as HTMLElement).innerText)).toContain("Fabrikam Retail, Northwind Health");
    await screenshot(page, "incidents-shared-indicators");
    await checkAccessibility(page, "incidents: shared indicators");
    expect(pageProblems(page).pageErrors).toEqual([]);
    expect(pageProblems(page).cspViolations).toEqual([]);
  });

  it("shows a customer's person no panel, and asks for none", async () => {
    const page = await newPage(browser, { width: 390 });
    const asked: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/shared-indicators")) asked.push(request.url());
    });
    // A Member of Fabrikam, a customer, with a session of the service's own making (the local sign-in knows the provider's people only).
    const fabrikam = host.demo.customers.find((c) => c.name === "Fabrikam Retail")!;
    const workspaceId = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
    const person = await host.person({ organizationalRole: "Member", accountId: fabrikam.id, workspaceAssignments: [{ workspaceId, role: "Analyst" }] });
    const [name, value] = person.headers.cookie.split(/=(.*)/s) as [string, string];
    await page.setCookie({ name, value, url: origin, path: "/", secure: true, httpOnly: true, sameSite: "Lax" });
    await page.goto(`${origin}/portal/incidents`, { waitUntil: "load" });
    await page.waitForSelector("form.filters-form");
    // Once the page has settled, nothing of the panel is drawn.
    await page.waitForNetworkIdle({ idleTime: 500 });
    expect(await page.$("[data-shared-indicators]")).toBeNull();
    expect(asked).toEqual([]);
    expect(pageProblems(page).pageErrors).toEqual([]);
  });
});
