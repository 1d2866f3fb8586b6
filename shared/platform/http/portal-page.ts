import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CONTENT_CODINGS, preferredCoding, varyOnEncoding, worthCompressing, type ContentCoding } from "./compression";

/** Where the portal page is served: outside the API, at a path of its own. */
export const PORTAL_PAGE_PATH = "/portal";

/**
 * The page's policy: its own scripts, styles and API only. No inline script or style, no other
 * origin, no frames, no plugins; forms post only here (the sign-in starts with a navigation, not a
 * form). Preact sets styles through the CSSOM, which `style-src` does not govern.
 */
export const PORTAL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": PORTAL_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
};

const MEDIA_TYPES = new Map<string, string>([
  [".js", "text/javascript; charset=utf-8"],
  [".css", "text/css; charset=utf-8"],
  [".map", "application/json; charset=utf-8"],
  [".svg", "image/svg+xml"],
  [".png", "image/png"],
]);

export interface PageResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

/** Where the build puts a file's compressed forms: beside it, under its name and this suffix (scripts/build-portal.mjs). */
export const PRECOMPRESSED_SUFFIX: Record<ContentCoding, string> = { br: ".br", gzip: ".gz" };

/**
 * Serves the portal page's files from `dist/portal` (written by `scripts/build-portal.mjs`):
 * `/portal/assets/…` are the bundle's content-named files, cached for good; every other path under
 * `/portal/` is the page itself, whose script reads the path and shows that view, so a link or a
 * reload lands where it was.
 */
export class PortalPage {
  private readonly files = new Map<string, Buffer>();

  constructor(private readonly dir: string = portalAssetsDir()) {}

  /** Whether a request path is the page's. */
  static owns(pathname: string): boolean {
    return pathname === PORTAL_PAGE_PATH || pathname.startsWith(PORTAL_PAGE_PATH + "/");
  }

  /**
   * The answer to a request for `pathname`. A text file goes in the coding the client prefers among
   * those the build compressed it in (Brotli, gzip: the script is about a quarter of its size so),
   * compressed once at build time at the best ratio; neither host compresses on its own.
   */
  respond(method: string, pathname: string, acceptEncoding = ""): PageResponse {
    const { file, ...answer } = this.answer(method, pathname);
    if (file === undefined || !worthCompressing(answer.headers["Content-Type"], answer.body.length)) return answer;
    const headers = { ...answer.headers };
    varyOnEncoding(headers);
    const offered = CONTENT_CODINGS.filter((coding) => this.read(file + PRECOMPRESSED_SUFFIX[coding]) !== undefined);
    const coding = preferredCoding(acceptEncoding, offered);
    if (coding === null) return { ...answer, headers };
    return { status: answer.status, headers: { ...headers, "Content-Encoding": coding }, body: this.read(file + PRECOMPRESSED_SUFFIX[coding])! };
  }

  /** The answer, and for a file served whole (a 200) which file it is. */
  private answer(method: string, pathname: string): PageResponse & { file?: string } {
    if (method !== "GET" && method !== "HEAD") {
      return { status: 405, headers: { Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8" }, body: "Method not allowed\n" };
    }
    if (pathname === PORTAL_PAGE_PATH) return { status: 308, headers: { Location: PORTAL_PAGE_PATH + "/" }, body: "" };
    const asset = /^\/portal\/assets\/([A-Za-z0-9_.-]+)$/.exec(pathname)?.[1];
    if (asset !== undefined) {
      const type = MEDIA_TYPES.get(asset.slice(asset.lastIndexOf(".")));
      const content = type && !asset.startsWith(".") ? this.read(join("assets", asset)) : undefined;
      if (!type || !content) return { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8", ...SECURITY_HEADERS }, body: "Not found\n" };
      return { status: 200, headers: { "Content-Type": type, "Cache-Control": "public, max-age=31536000, immutable", ...SECURITY_HEADERS }, body: content, file: join("assets", asset) };
    }
    const page = this.read("index.html");
    if (!page) {
      return {
        status: 503,
        headers: { "Content-Type": "text/plain; charset=utf-8", ...SECURITY_HEADERS },
        body: "The portal page is not built: run `npm run build`.\n",
      };
    }
    return { status: 200, headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache", ...SECURITY_HEADERS }, body: page, file: "index.html" };
  }

  private read(file: string): Buffer | undefined {
    let content = this.files.get(file);
    if (!content) {
      const path = join(this.dir, file);
      if (!existsSync(path)) return undefined;
      content = readFileSync(path);
      this.files.set(file, content);
    }
    return content;
  }
}

/**
 * `dist/portal` under the package's root: the nearest folder above this module with a
 * package.json. The same from the sources (tests), from `dist/` (npm start) and in the deployed
 * package.
 */
export function portalAssetsDir(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${__dirname}`);
    dir = parent;
  }
  return join(dir, "dist", "portal");
}
