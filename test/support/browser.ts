/**
 * Browser tests: the portal in a real headless Chromium (Debian's `chromium`, found or installed by
 * scripts/chromium.mjs), driven over the DevTools protocol by puppeteer-core, which brings no browser
 * of its own. Every page records its console errors, uncaught exceptions and Content-Security-Policy
 * violations (see `pageProblems`).
 */
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import axe from "axe-core";
import { DEMO_PEOPLE, type DemoPerson } from "../../shared/hosts/local/identity-provider/demo-people";
import type { TestHost, TestHostOptions } from "./test-host";

export type { Browser, Page } from "puppeteer-core";

/** Where screenshots go: kept by CI as test artifacts (.test-results is not committed). */
export const SCREENSHOT_DIR = join(".test-results", "portal");

/** The widths pages are tested at: a desktop window and a phone. */
export type PageWidth = 1280 | 390;

export interface PageProblems {
  /** `console.error` calls and the browser's own errors in the console (failed loads among them). */
  consoleErrors: string[];
  /** Exceptions no script caught. */
  pageErrors: string[];
  /** What the Content-Security-Policy blocked: `directive blocked-uri (source:line)`. */
  cspViolations: string[];
}

const problems = new WeakMap<Page, PageProblems>();

/** The name of the binding a page's `securitypolicyviolation` listener reports through. */
const CSP_BINDING = "__reportCspViolation";

/** Starts Chromium (installing Debian's first when there is none: allow minutes on a new machine). */
export async function launchBrowser(): Promise<Browser> {
  const { ensureChromium } = await import("../../scripts/chromium.mjs");
  const executablePath = await ensureChromium((line) => console.log(line));
  return puppeteer.launch({
    executablePath,
    headless: true,
    // As root in a container: no sandbox; a small /dev/shm: shared memory in /tmp instead.
    args: ["--headless", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run", "--no-default-browser-check"],
  });
}

/**
 * A page in a browser context of its own (its own cookies: each page is a different person), `width`
 * pixels wide, recording its problems from the first document on.
 */
export async function newPage(browser: Browser, options: { width?: PageWidth; height?: number } = {}): Promise<Page> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const width = options.width ?? 1280;
  await page.setViewport({ width, height: options.height ?? (width < 600 ? 844 : 800), isMobile: width < 600, hasTouch: width < 600 });
  const found: PageProblems = { consoleErrors: [], pageErrors: [], cspViolations: [] };
  problems.set(page, found);
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const where = message.location();
    // The browser's own request for /favicon.ico, made for the tab and not by the page.
    if (where.url && new URL(where.url).pathname === "/favicon.ico") return;
    found.consoleErrors.push(`${message.text()}${where.url ? ` (${where.url}${where.lineNumber !== undefined ? `:${where.lineNumber}` : ""})` : ""}`);
  });
  page.on("pageerror", (error) => found.pageErrors.push(error instanceof Error ? (error.stack ?? error.message) : String(error)));
  // A binding, not a script the page loads: it works whatever the page's Content-Security-Policy.
  await page.exposeFunction(CSP_BINDING, (violation: string) => void found.cspViolations.push(violation));
  // Page code is given as source text: this project's types are Node's, not the DOM's.
  await page.evaluateOnNewDocument(`document.addEventListener("securitypolicyviolation", (e) => {
    window[${JSON.stringify(CSP_BINDING)}]?.(e.effectiveDirective + " " + (e.blockedURI || "-") + " (" + (e.sourceFile || e.documentURI) + ":" + e.lineNumber + ")");
  });`);
  return page;
}

/** What the page recorded so far: tests expect each list to be empty. */
export function pageProblems(page: Page): PageProblems {
  const found = problems.get(page);
  if (!found) throw new Error("pageProblems: the page was not made by newPage");
  return found;
}

/** What a page that went as it should recorded: tests compare `pageProblems` with it. */
export const NO_PROBLEMS: PageProblems = { consoleErrors: [], pageErrors: [], cspViolations: [] };

/**
 * The page's problems, less the browser's own console lines for answers the page expected and shows
 * (a form's 400, a refused upload's 413): the browser logs every such answer as a failed load.
 */
export function pageProblemsBesides(page: Page, expected: RegExp): PageProblems {
  const found = pageProblems(page);
  return { ...found, consoleErrors: found.consoleErrors.filter((line) => !expected.test(line)) };
}

/** A demo person by key (`jonas`, `li`, …; see identity-provider/demo-people.ts), to sign in as. */
export function demoPerson(key: string): DemoPerson {
  const person = DEMO_PEOPLE.find((p) => p.key === key);
  if (!person) throw new Error(`No demo person ${key}`);
  return person;
}

export interface Portal {
  browser: Browser;
  host: TestHost;
  /** The service's origin, where the portal and the sign-in are. */
  origin: string;
  close(): Promise<void>;
}

/**
 * Chromium and a test host with the local identity provider (people sign in for real), started
 * side by side: the browser may have to be installed first, which is the long part.
 */
export async function startPortal(options: Omit<TestHostOptions, "signIn"> = {}): Promise<Portal> {
  const { startTestHost } = await import("./test-host.js");
  const [browser, host] = await Promise.all([launchBrowser(), startTestHost({ ...options, signIn: true })]);
  return {
    browser,
    host,
    origin: new URL(host.base).origin,
    close: async () => {
      await browser.close();
      await host.close();
    },
  };
}

/**
 * The elements that reach past `width` pixels, but inside a table's own scrolling region (which
 * scrolls sideways by design), as `tag.class right`: a page that fits the screen has none.
 */
export async function overflowingElements(page: Page, width: number): Promise<string[]> {
  // A pixel of slack for rounding; page code is given as source text: this project's types are Node's, not the DOM's.
  return (await page.evaluate(`[...document.querySelectorAll("body *")]
    .filter((el) => el.getBoundingClientRect().right > ${width + 1} && !el.closest(".table-scroll"))
    .map((el) => el.tagName.toLowerCase() + "." + el.className + " " + Math.round(el.getBoundingClientRect().right))`)) as string[];
}

export interface BrowserSignIn {
  /** Where the sign-in ended: `returnTo` on the service. */
  url: string;
  /** The service's HTTP status for `returnTo`. */
  status: number | undefined;
}

/**
 * Signs `personId` (a demo person's `oid`, see identity-provider/demo-people.ts) in as a person would:
 * opens the service's sign-in, follows its redirect to the local OpenID provider, chooses the person
 * on the provider's sign-in page, and follows the provider back through the service's callback to
 * `returnTo` (default `/portal/`). Fails with the page's text when it stops anywhere else.
 */
export async function signInInBrowser(page: Page, baseUrl: string, personId: string, options: { returnTo?: string; timeoutMs?: number } = {}): Promise<BrowserSignIn> {
  const origin = new URL(baseUrl).origin;
  const returnTo = options.returnTo ?? "/portal/";
  const target = new URL(returnTo, origin);
  const timeout = options.timeoutMs ?? 15_000;
  let status: number | undefined;
  const onResponse = (response: import("puppeteer-core").HTTPResponse) => {
    const request = response.request();
    if (request.isNavigationRequest() && request.frame() === page.mainFrame() && sameTarget(response.url(), target)) status = response.status();
  };
  page.on("response", onResponse);
  try {
    await page.goto(`${origin}/api/v2/portal/auth/sign-in?returnTo=${encodeURIComponent(returnTo)}`, { waitUntil: "load", timeout });
    const person = `form.people button[name="person"][value="${personId}"]`;
    if (!(await page.$(person))) {
      throw new Error(`The sign-in did not reach the identity provider's page with ${personId} on it: at ${page.url()}\n${await pageText(page)}`);
    }
    // The click posts the form; the provider, then the service's callback, redirect back to returnTo.
    await Promise.all([page.waitForNavigation({ waitUntil: "load", timeout }), page.click(person)]);
    const deadline = Date.now() + timeout;
    while (!sameTarget(page.url(), target)) {
      if (Date.now() > deadline) throw new Error(`The sign-in did not come back to ${target.href}: at ${page.url()}\n${await pageText(page)}`);
      // A page of the provider's that submits itself (ending an earlier session) navigates on its own.
      await page.waitForNavigation({ waitUntil: "load", timeout: Math.max(1, deadline - Date.now()) }).catch(() => undefined);
    }
    return { url: page.url(), status };
  } finally {
    page.off("response", onResponse);
  }
}

function sameTarget(url: string, target: URL): boolean {
  const at = new URL(url);
  return at.origin === target.origin && at.pathname === target.pathname && at.search === target.search;
}

async function pageText(page: Page): Promise<string> {
  return String(await page.evaluate(`document.body?.innerText ?? ""`).catch(() => "")).slice(0, 1000);
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: { target: string[] }[];
}

const axeSource = axe.source;

/**
 * Runs axe-core's WCAG 2 A and AA rules on the page as it is, and fails listing every serious or
 * critical violation (rule, help, elements). axe is put in the page over the DevTools protocol, which
 * the page's Content-Security-Policy does not govern (a <script> tag would be refused). Returns all
 * violations, the minor and moderate ones included.
 */
export async function checkAccessibility(page: Page, name: string): Promise<AxeViolation[]> {
  if (!(await page.evaluate(`typeof window.axe === "object"`))) await page.evaluate(axeSource);
  const violations = (await page.evaluate(`window.axe
    .run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa"] }, resultTypes: ["violations"] })
    .then((result) => result.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
      nodes: v.nodes.map((n) => ({ target: n.target.map(String) })),
    })))`)) as AxeViolation[];
  const blocking = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  if (blocking.length > 0) {
    const lines = blocking.map((v) => `  ${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n) => n.target.join(" ")).join("\n    ")}\n    ${v.helpUrl}`);
    throw new Error(`Accessibility of ${name} (${page.url()}): ${blocking.length} serious or critical violation(s):\n${lines.join("\n")}`);
  }
  return violations;
}

/** The height of a screenshot in the docs: the page's top, as a reader first sees it on a large screen. */
const README_SHOT_HEIGHT = 1100;

/** Where the portal guide's screenshots live (docs/portal.md); the tests write them there when `README_SCREENSHOTS=1`. */
export const README_SCREENSHOT_DIR = join("docs", "screenshots");

/**
 * A full-page PNG of the page as `.test-results/portal/<name>.png`; returns its path. With
 * `readme`, and `README_SCREENSHOTS=1` in the environment (`npm run screenshots`), the same picture
 * also replaces the copy in docs/screenshots/, so the portal guide shows what the tests saw:
 * the page's top, or the part that starts at the element `from` names.
 */
export async function screenshot(page: Page, name: string, options: { readme?: boolean; from?: string } = {}): Promise<string> {
  const file = `${name.replace(/[^\w.-]+/g, "-")}.png`;
  const path = join(SCREENSHOT_DIR, file);
  mkdirSync(dirname(path), { recursive: true });
  await page.screenshot({ path: path as `${string}.png`, fullPage: true });
  if (options.readme && process.env.README_SCREENSHOTS === "1") {
    // The page's top, at most README_SHOT_HEIGHT pixels: a guide shows a view, not a scroll.
    mkdirSync(README_SCREENSHOT_DIR, { recursive: true });
    // Or, with `from`, the view starting a little above that element: a part far down a long page.
    const width = page.viewport()?.width ?? 1280;
    const top = options.from ? Math.max(0, Number(await page.evaluate(`document.querySelector(${JSON.stringify(options.from)}).getBoundingClientRect().top + window.scrollY`)) - 16) : 0;
    const height = Math.min(README_SHOT_HEIGHT, Number(await page.evaluate("document.documentElement.scrollHeight")) - top);
    await page.screenshot({ path: join(README_SCREENSHOT_DIR, file) as `${string}.png`, clip: { x: 0, y: top, width, height }, captureBeyondViewport: true });
  }
  return path;
}

/**
 * A page expression (source text, for `waitForFunction` and `evaluate`): how many rows the windowed
 * table `table` holds, rendered or not: its `aria-rowcount`, less the header's row; 0 while it is not there.
 */
export function windowedRowsLoaded(table: string): string {
  return `(Number(document.querySelector(${JSON.stringify(table)})?.getAttribute("aria-rowcount") ?? "1") - 1)`;
}

/** The incidents page's "Show more" button. */
export const SHOW_MORE_INCIDENTS = "main > section > button.button-secondary";

/**
 * Clicks the incidents page's "Show more" and waits for its answer to be shown: the list grew, or the
 * button is back (an answer the service's page budget cut short may hold no new incident: the next
 * click goes on), or the queue says it has no more.
 */
export async function showMoreIncidents(page: Page): Promise<void> {
  const loaded = windowedRowsLoaded("table.incidents");
  const before = (await page.evaluate(loaded)) as number;
  await scrollIntoViewSettled(page, SHOW_MORE_INCIDENTS);
  const button = `document.querySelector(${JSON.stringify(SHOW_MORE_INCIDENTS)})`;
  await page.click(SHOW_MORE_INCIDENTS);
  // The button is disabled ("Loading…") while the answer is awaited, from the render after the click:
  // once it is enabled again (or gone, with nothing more to show), the answer is in.
  await page.waitForFunction(`${button}?.disabled !== false`, { timeout: 1_000, polling: "raf" }).catch(() => undefined);
  await page.waitForFunction(
    `${loaded} > ${before} || ${button}?.disabled === false || (!${button} && !/more available|Reading/.test(document.querySelector("[data-queue-status]")?.textContent ?? ""))`,
  );
}

/**
 * Scrolls `selector` into the middle of the viewport and waits until it stays put for two frames in a
 * row, as a person sees a button before clicking it. A jump down a windowed table renders the rows
 * now on the screen in a frame or two, and their measured heights move what is below them: a click
 * aimed at the button the moment it was scrolled to lands on whatever moved under it (an incident's
 * link, once in a few hundred rows).
 */
export async function scrollIntoViewSettled(page: Page, selector: string): Promise<void> {
  await page.waitForFunction(
    `(() => {
      const el = document.querySelector(${JSON.stringify(selector)});
      if (!el) return false;
      const box = el.getBoundingClientRect();
      if (box.top < 0 || box.bottom > window.innerHeight) {
        el.scrollIntoView({ block: "center" });
        window.__settled = undefined;
        return false;
      }
      const at = box.top + "," + box.left;
      const same = window.__settled?.at === at ? window.__settled.frames + 1 : 0;
      window.__settled = { at, frames: same };
      return same >= 2;
    })()`,
    { polling: "raf" },
  );
}

/**
 * Every row of a table whose body renders only the rows near the viewport (portal/src/ui/windowed-rows.tsx),
 * in order: scrolls the page from the table's top to its end, a screen at a time, and reads each row
 * rendered on the way, `attributes` of it by name (and `aria-rowindex`, its place; `innerText` names the
 * row's text), once each. Leaves
 * the page scrolled back to the top.
 */
export async function allWindowedRows(page: Page, table: string, attributes: string[]): Promise<Record<string, string | null>[]> {
  const found = new Map<number, Record<string, string | null>>();
  const read = () =>
    page.$$eval(
      `${table} tbody tr[aria-rowindex]`,
      (trs, names) => trs.map((tr) => Object.fromEntries(["aria-rowindex", ...(names as string[])].map((n) => [n, n === "innerText" ? (tr as unknown as { innerText: string }).innerText : tr.getAttribute(n)]))),
      attributes,
    );
  // Page code is given as source text: this project's types are Node's, not the DOM's.
  const nextFrame = () => page.evaluate("new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))");
  await page.evaluate(`document.querySelector(${JSON.stringify(table)}).scrollIntoView({ block: "start" })`);
  for (let guard = 0; guard < 10_000; guard++) {
    await nextFrame();
    await nextFrame();
    for (const row of await read()) found.set(Number(row["aria-rowindex"]), row);
    const done = (await page.evaluate(`(() => {
      const table = document.querySelector(${JSON.stringify(table)}).getBoundingClientRect();
      const end = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1;
      if (table.bottom <= window.innerHeight || end) return true;
      window.scrollBy(0, Math.round(window.innerHeight * 0.8));
      return false;
    })()`)) as boolean;
    if (done) break;
  }
  await page.evaluate("window.scrollTo(0, 0)");
  return [...found.entries()].sort((a, b) => a[0] - b[0]).map(([, row]) => row);
}
