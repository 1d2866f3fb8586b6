import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestHost } from "../support/test-host";
import { checkAccessibility, demoPerson, newPage, NO_PROBLEMS, overflowingElements, pageProblemsBesides, screenshot, signInInBrowser, startPortal, type Browser, type Page, type Portal } from "../support/browser";

/**
 * SOP documents, playbooks & rules and the agent's classification cards in Chromium: an SOP uploaded
 * through the page's file input and listed, one over the deployment's limit refused with the
 * server's problem, one deleted behind its confirmation; the title preview as typed; axe and
 * screenshots of each page at 1280 and 390 px.
 */
/** The limit the host is started with, small enough for a test to go over. */
const MAX_BYTES = 64 * 1024;
/** The browser's console line for an answer the page expected and shows (the refused uploads). */
const expectedRefusal = /^Failed to load resource: the server responded with a status of (413|415) /;
/**
 * The agent page asks for the organization's webhooks (GET /portal/webhooks) to offer them by name;
 * where the deployment does not answer it, the cards take webhook ids instead.
 */
const noWebhookList = /^Failed to load resource: the server responded with a status of 404 .*\/api\/v2\/portal\/webhooks\)$/;

let portal: Portal;
let browser: Browser;
let host: TestHost;
let origin: string;
let workspaceId: string;
let files: string;

beforeAll(async () => {
  portal = await startPortal({ env: { SOP_MAX_BYTES: String(MAX_BYTES) } });
  ({ browser, host, origin } = portal);
  workspaceId = host.demo.workspaces.find((w) => w.name === "fabrikam-sentinel-prod")!.id;
  files = mkdtempSync(join(tmpdir(), "portal-sops-"));
}, 600_000);

afterAll(async () => {
  await portal?.close();
});

async function text(page: Page, selector = "main"): Promise<string> {
  return page.$eval(selector, (el) => (el as unknown as { innerText: string }).innerText);
}

/** Waits until the element's text matches. Page code is given as source text: this project's types are Node's, not the DOM's. */
async function waitForText(page: Page, selector: string, wanted: string | RegExp): Promise<void> {
  const pattern = typeof wanted === "string" ? new RegExp(wanted.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) : wanted;
  await page.waitForFunction(`(() => { const el = document.querySelector(${JSON.stringify(selector)}); return !!el && new RegExp(${JSON.stringify(pattern.source)}, ${JSON.stringify(pattern.flags)}).test(el.innerText); })()`, {
    timeout: 15_000,
  });
}

describe("SOP documents in a browser", () => {
  let page: Page;

  beforeAll(async () => {
    page = await newPage(browser, { width: 1280 });
    await signInInBrowser(page, origin, demoPerson("amira").oid, { returnTo: `/portal/sops?workspace=${workspaceId}` });
    await page.waitForSelector('input[type="file"]');
  }, 120_000);

  afterAll(async () => {
    await page?.browserContext().close();
  });

  it("uploads a document through the file input, then lists it with its size and who uploaded it", async () => {
    const file = join(files, "ransomware-containment.md");
    writeFileSync(file, `# Ransomware containment\n\n1. Isolate the host.\n2. Revoke the user's sessions.\n${"Keep notes of every step.\n".repeat(200)}`);
    const input = await page.$('input[type="file"]');
    await input!.uploadFile(file);
    await page.type('input[name="title"]', "Ransomware containment");
    await page.click('form.upload button[type="submit"]');
    await waitForText(page, "main", "Ransomware containment (ransomware-containment.md");
    const row = await page.waitForSelector("tr[data-sop-id]");
    expect(row).not.toBeNull();
    const listed = await text(page, "table");
    expect(listed).toContain("Ransomware containment");
    expect(listed).toContain("ransomware-containment.md");
    expect(listed).toContain("Markdown");
    expect(listed).toContain("Amira Haddad");
    expect(listed).toMatch(/5(\.\d)? KiB/);
    // The download is the content endpoint, offered as an attachment under the uploaded name.
    const href = await page.$eval("tr[data-sop-id] a", (a) => a.getAttribute("href")!);
    const cookies = await page.browserContext().cookies();
    const response = await fetch(new URL(href, origin), { headers: { cookie: cookies.map((c) => `${c.name}=${c.value}`).join("; ") } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toContain('filename="ransomware-containment.md"');
    expect(await response.text()).toContain("Isolate the host.");
    expect(await page.$$eval("h1", (els) => els.length)).toBe(1);
    await screenshot(page, "sops-1280");
    await checkAccessibility(page, "sops-1280");
    expect(pageProblemsBesides(page, expectedRefusal)).toEqual(NO_PROBLEMS);
  });

  it("shows the server's problem for a file over the limit, and for a type it does not accept", async () => {
    const big = join(files, "too-big.txt");
    writeFileSync(big, "x".repeat(MAX_BYTES + 1024));
    await (await page.$('input[type="file"]'))!.uploadFile(big);
    await page.click('form.upload button[type="submit"]');
    await waitForText(page, "form.upload", "The file is too large");
    expect(await text(page, "form.upload")).toContain(`at most ${MAX_BYTES}`);

    const image = join(files, "diagram.png");
    writeFileSync(image, Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex"));
    await (await page.$('input[type="file"]'))!.uploadFile(image);
    await page.click('form.upload button[type="submit"]');
    await waitForText(page, "form.upload", "This kind of file is not accepted");
    expect(await page.$eval('input[type="file"]', (el) => el.getAttribute("aria-invalid"))).toBe("true");
    await checkAccessibility(page, "sops-refused");
  });

  it("deletes a document after its confirmation", async () => {
    const before = (await page.$$("tr[data-sop-id]")).length;
    await page.click('tr[data-sop-id] button[aria-label^="Delete"]');
    // The confirmation takes the focus, so that the keyboard confirms it next.
    await page.waitForFunction(`document.activeElement?.matches(".confirm .button-danger") === true`, { timeout: 5_000 });
    await page.keyboard.press("Enter");
    await waitForText(page, "main", "was deleted");
    expect((await page.$$("tr[data-sop-id]")).length).toBe(before - 1);
  });

  it("fits a phone's width", async () => {
    const phone = await newPage(browser, { width: 390 });
    await signInInBrowser(phone, origin, demoPerson("amira").oid, { returnTo: `/portal/sops?workspace=${workspaceId}` });
    await phone.waitForSelector('input[type="file"]');
    expect(await overflowingElements(phone, 390)).toEqual([]);
    await screenshot(phone, "sops-390");
    await checkAccessibility(phone, "sops-390");
    await phone.browserContext().close();
  });
});

describe("playbooks & rules and the agent's cards in a browser", () => {
  for (const width of [1280, 390] as const) {
    it(`shows the catalogue, the rules and the title preview at ${width} px`, async () => {
      const page = await newPage(browser, { width });
      await signInInBrowser(page, origin, demoPerson("amira").oid, { returnTo: `/portal/content?workspace=${workspaceId}` });
      await page.waitForSelector("tr[data-playbook-id]");
      await page.type('input[name="title"]', "Impossible travel activity for mateo.costa@fabrikam.example");
      await waitForText(page, "[data-preview-summary]", /rule\(s\) match/);
      const preview = await text(page);
      expect(preview).toContain("Revoke user sessions");
      expect(preview).toContain("Impossible travel activity for *");
      await page.click('input[name="title"]', { count: 3 });
      await page.type('input[name="title"]', "Nothing like any rule");
      await waitForText(page, "[data-preview-summary]", "No rule matches this title.");
      expect(await page.$$eval("h1", (els) => els.length)).toBe(1);
      if (width === 390) expect(await overflowingElements(page, 390)).toEqual([]);
      await screenshot(page, `content-${width}`);
      await checkAccessibility(page, `content-${width}`);

      await page.goto(`${origin}/portal/agents?workspace=${workspaceId}`, { waitUntil: "load" });
      await page.waitForSelector("article.classification");
      expect(await page.$$eval("article.classification", (els) => els.length)).toBe(4);
      if (width === 390) expect(await overflowingElements(page, 390)).toEqual([]);
      await screenshot(page, `agents-${width}`);
      await checkAccessibility(page, `agents-${width}`);
      await page.click(".card-header button.button");
      await page.waitForSelector("form.agent-editor");
      await screenshot(page, `agents-edit-${width}`);
      await checkAccessibility(page, `agents-edit-${width}`);
      expect(pageProblemsBesides(page, noWebhookList)).toEqual(NO_PROBLEMS);
      await page.browserContext().close();
    });
  }

  it("edits the gamebook rules: a rule added with a playbook, the preview trying the unsaved draft, then saved", async () => {
    const page = await newPage(browser, { width: 1280 });
    await signInInBrowser(page, origin, demoPerson("amira").oid, { returnTo: `/portal/content?workspace=${workspaceId}` });
    await page.waitForSelector("tr[data-playbook-id]");
    const [edit] = await page.$$("xpath/.//button[normalize-space()='Edit the rules']");
    await edit!.click();
    await page.waitForSelector("form.rules-editor");
    const [add] = await page.$$("xpath/.//button[normalize-space()='Add a rule']");
    await add!.click();
    const patterns = await page.$$('form.rules-editor input[name$="].pattern"]');
    const last = patterns[patterns.length - 1]!;
    await last.type("Suspicious inbox rule created by *");
    const [addPlaybook] = await page.$$("xpath/.//li[last()]//fieldset//button[normalize-space()='Add']");
    await addPlaybook!.click();
    await page.type('input[name="title"]', "Suspicious inbox rule created by kim@fabrikam.example");
    await waitForText(page, "[data-preview-summary]", /1 rule\(s\) match/);
    await screenshot(page, "content-rules-editor");
    await checkAccessibility(page, "content-rules-editor");
    const [save] = await page.$$("xpath/.//button[normalize-space()='Save the rules']");
    await save!.click();
    await waitForText(page, "main", "The rules were saved.");
    expect(await text(page)).toContain("Suspicious inbox rule created by *");
    expect(pageProblemsBesides(page, expectedRefusal)).toEqual(NO_PROBLEMS);
    await page.browserContext().close();
  });
});
