import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { PORTAL_CSP, PortalPage } from "../../shared/platform/http/portal-page";

const dir = mkdtempSync(join(tmpdir(), "portal-page-"));
mkdirSync(join(dir, "assets"));
writeFileSync(join(dir, "index.html"), '<!doctype html><script type="module" src="/portal/assets/app-ABC.js"></script>');
const script = "export const x = 1;\n".repeat(200);
writeFileSync(join(dir, "assets", "app-ABC.js"), script);
// The build's compressed forms of the script (scripts/build-portal.mjs); the style has none.
writeFileSync(join(dir, "assets", "app-ABC.js.br"), brotliCompressSync(script));
writeFileSync(join(dir, "assets", "app-ABC.js.gz"), gzipSync(script));
const style = "body { margin: 0 }\n".repeat(100);
writeFileSync(join(dir, "assets", "app-ABC.css"), style);
const icon = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M16 1 3 6v9z"/></svg>';
writeFileSync(join(dir, "assets", "favicon-ABC.svg"), icon);
writeFileSync(join(dir, "assets", ".env.js"), "secret");
writeFileSync(join(dir, "secret.txt"), "not an asset");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const page = new PortalPage(dir);

describe("the portal page's files", () => {
  it("answers every view's path with the page, under the policy, never cached stale", () => {
    for (const path of ["/portal/", "/portal/approvals", "/portal/incidents/w/SourceA/42"]) {
      const answer = page.respond("GET", path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers).toMatchObject({ "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache", "Content-Security-Policy": PORTAL_CSP, "X-Content-Type-Options": "nosniff" });
    }
    expect(page.respond("GET", "/portal")).toMatchObject({ status: 308, headers: { Location: "/portal/" } });
  });

  it("answers the bundle's content-named files for a year, in the build's Brotli or gzip form as the client prefers", () => {
    const plain = page.respond("GET", "/portal/assets/app-ABC.js");
    expect(plain).toMatchObject({ status: 200, headers: { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=31536000, immutable", Vary: "Accept-Encoding" } });
    expect(plain.headers["Content-Encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(script);
    // A browser lists gzip first, as an equal: Brotli, the smaller, is chosen.
    const br = page.respond("GET", "/portal/assets/app-ABC.js", "gzip, deflate, br, zstd");
    expect(br.headers).toMatchObject({ "Content-Encoding": "br", Vary: "Accept-Encoding" });
    expect(brotliDecompressSync(br.body as Buffer).toString()).toBe(script);
    expect((br.body as Buffer).length).toBeLessThan(script.length / 4);
    const gzipped = page.respond("GET", "/portal/assets/app-ABC.js", "br;q=0.5, gzip");
    expect(gzipped.headers["Content-Encoding"]).toBe("gzip");
    expect(gunzipSync(gzipped.body as Buffer).toString()).toBe(script);
    expect(page.respond("GET", "/portal/assets/app-ABC.js", "br;q=0, gzip;q=0").headers["Content-Encoding"]).toBeUndefined();
    // A file the build left as it is goes as it is, whatever the client accepts.
    const css = page.respond("GET", "/portal/assets/app-ABC.css", "br, gzip");
    expect(css.headers["Content-Encoding"]).toBeUndefined();
    expect(css.body.toString()).toBe(style);
    // The compressed forms are not files of their own.
    expect(page.respond("GET", "/portal/assets/app-ABC.js.br").status).toBe(404);
  });

  it("answers the page's icon as SVG, content-named and cached for a year like the bundle, under the policy", () => {
    const answer = page.respond("GET", "/portal/assets/favicon-ABC.svg", "br, gzip");
    expect(answer).toMatchObject({ status: 200, headers: { "Content-Type": "image/svg+xml", "Cache-Control": "public, max-age=31536000, immutable", "Content-Security-Policy": PORTAL_CSP } });
    expect(answer.body.toString()).toBe(icon);
    // The policy lets the page show it: icons are images, and images may come from the page's own origin.
    expect(PORTAL_CSP).toContain("img-src 'self'");
  });

  it("answers 404 for anything else under assets: unknown, hidden, another type, or a way out of the folder", () => {
    for (const path of ["/portal/assets/nope.js", "/portal/assets/.env.js", "/portal/assets/..", "/portal/assets/../secret.txt", "/portal/assets/%2e%2e%2fsecret.txt", "/portal/assets/secret.txt"]) {
      const answer = page.respond("GET", path);
      // A path the asset pattern refuses is a view, answered with the page itself: never the file.
      expect(answer.body.toString(), path).not.toContain("not an asset");
      if (/^\/portal\/assets\/[A-Za-z0-9_.-]+$/.test(path)) expect(answer.status, path).toBe(404);
    }
  });

  it("refuses changes with 405, and says how to build the page when it is missing", () => {
    expect(page.respond("POST", "/portal/approvals")).toMatchObject({ status: 405, headers: { Allow: "GET, HEAD" } });
    expect(new PortalPage(join(dir, "missing")).respond("GET", "/portal/")).toMatchObject({ status: 503, body: expect.stringContaining("npm run build") });
  });
});
