import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAccessibility, demoPerson, newPage, NO_PROBLEMS, pageProblems, screenshot, signInInBrowser, startPortal, type Browser, type Portal } from "../support/browser";

let portal: Portal;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  // Installs Debian's Chromium first on a machine without one.
  portal = await startPortal();
  ({ browser, origin } = portal);
}, 600_000);

afterAll(async () => {
  await portal?.close();
});

const me = `/api/v2/portal/me`;
const fetchMe = `fetch(${JSON.stringify(me)}, { headers: { accept: "application/json" } }).then(async (r) => ({ status: r.status, body: await r.json() }))`;

describe("signing in through the local OpenID provider in Chromium", () => {
  it("signs Jonas in: the session cookie is set and GET /portal/me names him", async () => {
    const page = await newPage(browser, { width: 1280 });
    const landed = await signInInBrowser(page, origin, demoPerson("jonas").oid, { returnTo: me });
    expect(landed.url).toBe(`${origin}${me}`);
    expect(landed.status).toBe(200);

    const cookies = await page.browserContext().cookies();
    expect(cookies.find((c) => c.name === "__Host-secops-session")).toMatchObject({ secure: true, httpOnly: true, path: "/" });

    const answer = (await page.evaluate(fetchMe)) as { status: number; body: { data: { displayName: string } } };
    expect(answer.status).toBe(200);
    expect(answer.body.data.displayName).toBe(demoPerson("jonas").name);
    expect(pageProblems(page)).toEqual(NO_PROBLEMS);
    await page.browserContext().close();
  });

  it("signs Sam in without MFA: GET /portal/me answers 403 MFA_REQUIRED", async () => {
    const page = await newPage(browser, { width: 390 });
    await signInInBrowser(page, origin, demoPerson("sam").oid, { returnTo: me });
    const answer = (await page.evaluate(fetchMe)) as { status: number; body: { code: string } };
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe("MFA_REQUIRED");
    await page.browserContext().close();
  });
});

describe("the browser helpers on a page with a strict Content-Security-Policy", () => {
  let fixture: Server;
  let fixtureUrl: string;

  beforeAll(async () => {
    fixture = createServer((req, res) => {
      res.setHeader("content-security-policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'");
      if (req.url === "/app.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(`document.body.dataset.ready = "yes";`);
      if (req.url === "/pixel.png") return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
        `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Fixture</title></head>` +
          `<body><main><h1>Fixture</h1><img src="/pixel.png"></main><script src="/app.js"></script><script>document.title = "inline ran"</script></body></html>`,
      );
    });
    await new Promise<void>((resolve) => fixture.listen(0, "127.0.0.1", resolve));
    fixtureUrl = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}/`;
  });

  afterAll(() => new Promise<void>((resolve) => fixture.close(() => resolve())));

  it("records the CSP's refusals, runs axe despite the CSP, and saves a full-page screenshot", async () => {
    const page = await newPage(browser, { width: 390 });
    await page.goto(fixtureUrl, { waitUntil: "load" });
    expect(await page.evaluate(`document.body.dataset.ready`)).toBe("yes");
    expect(await page.title()).toBe("Fixture");
    const found = pageProblems(page);
    expect(found.cspViolations).toEqual([expect.stringMatching(/^script-src-elem inline /)]);
    // The image's 404 and the refused inline script are both in the console.
    expect(found.consoleErrors.length).toBeGreaterThanOrEqual(2);

    // An image without a text alternative is a critical violation: axe ran, under `script-src 'self'`.
    await expect(checkAccessibility(page, "fixture")).rejects.toThrow(/image-alt \(critical\)[\s\S]*img/);

    const path = await screenshot(page, "helpers-fixture");
    expect(existsSync(path)).toBe(true);
    await page.browserContext().close();
  });
});
