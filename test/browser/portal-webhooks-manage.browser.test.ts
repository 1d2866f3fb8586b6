import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { startHttpsReceiver, type HttpsReceiver } from "../support/https-receiver";
import { waitFor } from "../support/wait-for";
import { checkAccessibility, demoPerson, newPage, NO_PROBLEMS, overflowingElements, pageProblems, pageProblemsBesides, screenshot, signInInBrowser, startPortal, type Browser, type Page, type Portal } from "../support/browser";
import type { TestHost } from "../support/test-host";
import type { Json } from "../support/json";

/**
 * Configuring a webhook in Chromium, as an integrator does on Svix's or Stripe's endpoint pages: a new
 * endpoint at a real HTTPS receiver, its signing secret shown once, a test event and the attempt it
 * leaves (what was sent, what the receiver answered), a change refused because someone else changed
 * it first (the draft kept), the signing secret rotated, the webhook deleted; on a phone, and as a
 * person who only reads.
 */

const TOKEN = "portal-receiver-token-31f7";
/** What the browser logs of the refused edit, which the test provokes. */
const REFUSED_EDIT = /status of 409/;
const PATH = "/hooks/portal-intake";

let portal: Portal;
let browser: Browser;
let host: TestHost;
let receiver: HttpsReceiver;
let origin: string;
let page: Page;
let webhookId: string;
let firstSecret: string;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  receiver.respondWith((r) => ({ status: 202, headers: { "content-type": "application/json" }, body: JSON.stringify({ received: r.headers["x-svc-event-id"], queue: "soc-intake" }) }));
  portal = await startPortal({ webhookCa: receiver.certificate, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
  ({ browser, host, origin } = portal);
  page = await newPage(browser, { width: 1280 });
  await signInInBrowser(page, origin, demoPerson("jonas").oid, { returnTo: "/portal/webhooks" });
}, 600_000);

afterAll(async () => {
  await portal?.close();
  await receiver?.close();
});

const text = (selector: string) => page.$eval(selector, (el) => (el as HTMLElement).innerText);

/** Replaces an input's value as a person would: select all, type. */
async function retype(selector: string, value: string): Promise<void> {
  await page.click(selector, { clickCount: 3 });
  await page.keyboard.press("Backspace");
  await page.type(selector, value);
}

describe("configuring a webhook in a browser", () => {
  it("creates one: its signing secret is shown once, with a copy button", async () => {
    await page.waitForSelector('a.button[href="/portal/webhooks/new"]');
    await page.click('a.button[href="/portal/webhooks/new"]');
    const form = 'form[data-form="new-webhook"]';
    await page.waitForSelector(form);
    await page.type(`${form} input[name="name"]`, "Portal intake");
    await page.type(`${form} input[name="url"]`, receiver.url(PATH, "127.0.0.1"));
    await page.click(`${form} input[name="eventTypes"]:not(:checked)`);
    await page.select(`${form} select[name="authenticationType"]`, "Bearer");
    await page.type(`${form} input[name="token"]`, TOKEN);
    await checkAccessibility(page, "webhook-new");
    await page.click(`${form} button[type="submit"]`);

    await page.waitForSelector("[data-signing-secret]");
    firstSecret = (await text("[data-signing-secret]")).trim();
    expect(firstSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await text("[data-signing-secret-box]")).toContain("will not be shown again");
    expect(await page.$("[data-signing-secret-box] button")).not.toBeNull();
    const listed = ((await (await host.call("GET", "/webhooks")).json()) as Json).data as Json[];
    const created = listed.find((w) => w.name === "Portal intake")!;
    webhookId = created.id;
    expect(created).toMatchObject({ authenticationType: "Bearer", eventTypes: expect.arrayContaining(["incident.created.v1"]) });
    await screenshot(page, "webhook-created-secret");
    await checkAccessibility(page, "webhook-created-secret");

    // Once: the webhook's own page does not show it again.
    await page.click("[data-signing-secret-box] a.button");
    await page.waitForSelector('button[data-action="send-test"]');
    expect(await page.evaluate(() => document.body.innerText)).not.toContain(firstSecret);
  });

  it("sends a test event and opens its attempt: the request as sent, the receiver's answer", async () => {
    await page.click('button[data-action="send-test"]');
    await page.waitForSelector('section.attempt[data-loaded="true"]', { timeout: 30_000 });
    const [sent] = receiver.requests.filter((r) => r.url === PATH);
    expect(sent!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(() => new Webhook(firstSecret).verify(sent!.body, sent!.headers as Record<string, string>)).not.toThrow();
    const eventId = sent!.headers["x-svc-event-id"] as string;

    expect(await text("[data-response-status]")).toBe("202");
    expect(JSON.parse(await text("[data-response-body]"))).toEqual({ received: eventId, queue: "soc-intake" });
    expect(JSON.parse(await text("[data-request-body]"))).toEqual(JSON.parse(sent!.body));
    expect(await text("[data-body-source]")).toContain("the body that was sent");
    const headers = await text("[data-request-headers]");
    expect(headers).toMatch(/Authorization\s+\[redacted\]/);
    expect(headers).toContain(eventId);
    expect(await page.evaluate(() => document.body.innerText)).not.toContain(TOKEN);
    // The attempt is in the log, its row marked as the one open.
    expect(await page.$(`table.delivery-log tr[data-event-id="${eventId}"] button[aria-pressed="true"]`)).not.toBeNull();
    await screenshot(page, "webhook-attempt", { readme: true });
    await checkAccessibility(page, "webhook-attempt");
  });

  it("edits it with If-Match; a change made meanwhile elsewhere is refused at the form, the draft kept", async () => {
    const form = 'form[data-form="edit-webhook"]';
    await retype(`${form} input[name="name"]`, "Portal intake (EU)");
    await page.click(`${form} button[type="submit"]`);
    await page.waitForFunction(() => document.querySelector("h1")?.textContent === "Portal intake (EU)");
    expect(((await (await host.call("GET", `/webhooks/${webhookId}`)).json()) as Json).data.name).toBe("Portal intake (EU)");

    // Someone else renames it; this page has not read that.
    const current = ((await (await host.call("GET", `/webhooks/${webhookId}`)).json()) as Json).data;
    const renamed = await host.call("PUT", `/webhooks/${webhookId}`, { body: { name: "Renamed by the SOAR team", url: current.url, eventTypes: current.eventTypes, monitoredAccountIds: [] } });
    expect(renamed.status).toBe(200);
    await retype(`${form} input[name="name"]`, "My draft name");
    await page.click(`${form} button[type="submit"]`);
    await page.waitForSelector(`${form} .edit-conflict`);
    expect(await page.$eval(`${form} input[name="name"]`, (el) => (el as HTMLInputElement).value)).toBe("My draft name");
    await checkAccessibility(page, "webhook-edit-conflict");
    await page.click(`${form} .edit-conflict button`);
    await page.waitForFunction((sel) => (document.querySelector(sel) as HTMLInputElement | null)?.value === "Renamed by the SOAR team", {}, `${form} input[name="name"]`);
  });

  it("rotates the signing secret after a confirmation: the new one shown once, the previous one still signing", async () => {
    await page.click('button[data-action="rotate"]');
    await page.waitForSelector('button[data-action="confirm-rotate"]');
    await page.click('button[data-action="confirm-rotate"]');
    await page.waitForSelector("[data-signing-secret]");
    const rotated = (await text("[data-signing-secret]")).trim();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(firstSecret);
    expect(await text("[data-signing-secret-box]")).toContain("previous secret keeps signing");

    // A delivery now verifies with either.
    const before = receiver.requests.length;
    const opened = await page.$eval("section.attempt", (el) => el.getAttribute("data-attempt-id"));
    await page.click('button[data-action="send-test"]');
    const sent = await waitFor(() => receiver.requests.slice(before).find((r) => r.url === PATH), "the second test delivery");
    for (const secret of [rotated, firstSecret]) expect(() => new Webhook(secret).verify(sent.body, sent.headers as Record<string, string>)).not.toThrow();
    // Its attempt replaces the one open.
    await page.waitForFunction((id) => document.querySelector('section.attempt[data-loaded="true"]')?.getAttribute("data-attempt-id") !== id, {}, opened);
    await checkAccessibility(page, "webhook-rotated");
    expect(pageProblemsBesides(page, REFUSED_EDIT)).toEqual(NO_PROBLEMS);
  });

  it("at 390 px the webhook's page, its settings and an attempt fit the screen and pass axe", async () => {
    const phone = await newPage(browser, { width: 390 });
    await signInInBrowser(phone, origin, demoPerson("jonas").oid, { returnTo: `/portal/webhooks/${webhookId}` });
    await phone.waitForSelector('table.delivery-log button[data-action="open-attempt"]');
    await phone.click('table.delivery-log button[data-action="open-attempt"]');
    await phone.waitForSelector('section.attempt[data-loaded="true"]');
    await phone.waitForSelector('form[data-form="edit-webhook"]');
    expect(await overflowingElements(phone, 390)).toEqual([]);
    await screenshot(phone, "webhook-attempt-390");
    await checkAccessibility(phone, "webhook-attempt-390");
    expect(pageProblems(phone)).toEqual(NO_PROBLEMS);
    await phone.browserContext().close();
  });

  it("a person who only reads opens attempts, and sees none of the controls", async () => {
    const reader = await newPage(browser, { width: 390 });
    await signInInBrowser(reader, origin, demoPerson("li").oid, { returnTo: `/portal/webhooks/${webhookId}` });
    await reader.waitForSelector('table.delivery-log button[data-action="open-attempt"]');
    for (const control of ['button[data-action="send-test"]', 'form[data-form="edit-webhook"]', 'button[data-action="rotate"]', 'button[data-action="delete"]']) {
      expect(await reader.$(control), control).toBeNull();
    }
    await reader.click('table.delivery-log button[data-action="open-attempt"]');
    await reader.waitForSelector('section.attempt[data-loaded="true"]');
    await reader.goto(`${origin}/portal/webhooks`);
    await reader.waitForSelector(`tr[data-webhook-id="${webhookId}"]`);
    expect(await reader.$('a.button[href="/portal/webhooks/new"]')).toBeNull();
    expect(pageProblems(reader)).toEqual(NO_PROBLEMS);
    await reader.browserContext().close();
  });

  it("deletes it after a confirmation, and says so on the list", async () => {
    await page.click('button[data-action="delete"]');
    await page.waitForSelector('button[data-action="confirm-delete"]');
    await checkAccessibility(page, "webhook-delete-confirm");
    await page.click('button[data-action="confirm-delete"]');
    await page.waitForFunction(() => location.pathname === "/portal/webhooks");
    await page.waitForSelector(".banner-success");
    expect(await text(".banner-success")).toContain("is deleted");
    expect(await page.$(`tr[data-webhook-id="${webhookId}"]`)).toBeNull();
    expect((await host.call("GET", `/webhooks/${webhookId}`)).status).toBe(404);
    expect(pageProblemsBesides(page, REFUSED_EDIT)).toEqual(NO_PROBLEMS);
  });
});
