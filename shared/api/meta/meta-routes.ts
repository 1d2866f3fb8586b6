import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { errorCodes, type ErrorCode } from "../../platform/errors/api-error";
import { errorCodeMeaning } from "../../platform/errors/error-codes";
import { notFound } from "../../platform/errors/api-error";
import { publicRoute } from "../route-kinds";
import type { Route, RouteGroup } from "../../platform/http/route";
import { API_PREFIX } from "../../platform/http/router";
import { healthAnswerSchema, healthProbeOf } from "./health";
import { buildOpenApi } from "../../platform/http/openapi";

const tag = "Reference";

/**
 * Swagger UI files served by the service itself, so the reference page needs no CDN. A Map: the file
 * name comes from the path, and a plain object would also answer to `constructor`.
 */
const DOC_ASSETS = new Map<string, string>([
  ["swagger-ui.css", "text/css; charset=utf-8"],
  ["swagger-ui-bundle.js", "text/javascript; charset=utf-8"],
  ["favicon-32x32.png", "image/png"],
]);

/** The document names its own origin, which comes from the Host header: only so many are kept. */
const OPENAPI_CACHE_ORIGINS = 8;

/** The page allows only its own origin's scripts and styles: a proof as much as a protection. */
/** The reference page runs its own scripts only, and no other site may frame it (a click-jacking of its "Try it out"). */
const DOCS_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'";

/**
 * Unauthenticated reference routes: the OpenAPI document, its reading page, the error reference and
 * the health check.
 * `documented` gives the routes to describe (every group, this one included), or builds them first.
 */
export function metaRoutes(documented: () => readonly Route[] | Promise<readonly Route[]>): RouteGroup {
  // Kept as bytes: the pipeline keeps a Buffer's compressed forms with it, so the document is compressed once per origin.
  const openApiCache = new Map<string, Buffer>();
  const assetCache = new Map<string, Buffer>();
  return {
    name: "meta",
    // Its paths share no prefix, so its Azure route is the API-wide catch-all `v2/{*rest}`: Azure
    // routes here whatever no other group claims, and the shared router answers 404 and 405 as problems.
    routes: [
      publicRoute({
        method: "GET",
        path: "/openapi.json",
        summary: "The OpenAPI 3.1 document of this API",
        tag,
        async handler({ origin }) {
          let doc = openApiCache.get(origin);
          if (!doc) {
            doc = Buffer.from(JSON.stringify(buildOpenApi(await documented(), origin)));
            if (openApiCache.size >= OPENAPI_CACHE_ORIGINS) openApiCache.delete(openApiCache.keys().next().value!);
            openApiCache.set(origin, doc);
          }
          return { raw: doc, contentType: "application/json; charset=utf-8", headers: { "Cache-Control": "public, max-age=300" } };
        },
      }),
      publicRoute({
        method: "GET",
        path: "/docs",
        responseHeaders: ["Content-Security-Policy"],
        summary: "A readable reference page of this API",
        tag,
        async handler() {
          return { raw: docsPage(), contentType: "text/html; charset=utf-8", headers: { "Content-Security-Policy": DOCS_CSP } };
        },
      }),
      publicRoute({
        method: "GET",
        path: "/docs/assets/{file}",
        summary: "Assets of the reference page",
        tag,
        hidden: true,
        params: z.object({ file: z.string() }),
        async handler({ params }) {
          if (params.file === "init.js") {
            return { raw: docsInitScript(), contentType: "text/javascript; charset=utf-8" };
          }
          const type = DOC_ASSETS.get(params.file);
          if (!type) throw notFound("The asset", "file");
          let content = assetCache.get(params.file);
          if (!content) {
            content = readFileSync(join(swaggerUiDir(), params.file));
            assetCache.set(params.file, content);
          }
          return { raw: content, contentType: type, headers: { "Cache-Control": "public, max-age=86400" } };
        },
      }),
      publicRoute({
        method: "GET",
        path: "/health",
        summary:
          "Liveness: 200 whenever this instance is up, never shed; with its store's and queue's state (checked at most every 5 s) and its open circuit breakers as data",
        tag,
        response: healthAnswerSchema,
        async handler(services) {
          const report = await healthProbeOf(services).report();
          const failed = Object.entries(report.checks).filter(([, c]) => c.status !== "ok");
          // Names and contract codes only: an upstream's own error text could carry internal detail.
          if (failed.length > 0) services.logger.warn("health dependency check failed", { failed: failed.map(([name, c]) => `${name} (${c.code})`).join(", ") });
          return { data: { ...report, status: failed.length === 0 ? ("ok" as const) : ("degraded" as const), circuits: services.breakers.report() } };
        },
      }),
      publicRoute({
        method: "GET",
        path: "/errors",
        summary: "The error reference: every problem `code`, its status and meaning",
        tag,
        async handler() {
          return { raw: errorsPage(), contentType: "text/html; charset=utf-8" };
        },
      }),
    ],
  };
}

/**
 * The folder of swagger-ui-dist's files, found without loading the package: its main module would
 * evaluate the 1.7 MB page bundle in the server only to name its own folder. Resolved at run time,
 * so in the deployment bundle too the files are read from the package's node_modules.
 */
function swaggerUiDir(): string {
  return dirname(require.resolve("swagger-ui-dist/package.json"));
}

function docsPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Security Operations Management API v2 — reference</title>
<link rel="icon" href="${API_PREFIX}/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="${API_PREFIX}/docs/assets/swagger-ui.css"></head>
<body><div id="reference"></div>
<script src="${API_PREFIX}/docs/assets/swagger-ui-bundle.js"></script>
<script src="${API_PREFIX}/docs/assets/init.js"></script></body></html>`;
}

function docsInitScript(): string {
  return `window.ui = SwaggerUIBundle({ url: "${API_PREFIX}/openapi.json", dom_id: "#reference", deepLinking: true, persistAuthorization: false });\n`;
}

function errorsPage(): string {
  // Every row comes from the error-code table, as docs/errors.md does.
  const rows = (Object.keys(errorCodes) as ErrorCode[])
    .map((code) => {
      const { status, title } = errorCodes[code];
      return `<tr id="${code}"><td><code>${code}</code></td><td>${status}</td><td>${escapeHtml(title)}</td><td>${inlineCode(errorCodeMeaning(code))}</td></tr>`;
    })
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error reference</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem}td,th{padding:.4rem .8rem;text-align:left;border-bottom:1px solid #ddd}</style></head>
<body><h1>Error reference</h1><p>Every error is an RFC 7807 problem document (<code>application/problem+json</code>). Switch on <code>code</code>; <code>title</code> and <code>detail</code> may be reworded. <code>requestId</code> equals the <code>X-Request-Id</code> header.</p>
<table><thead><tr><th>code</th><th>status</th><th>title</th><th>when</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** The meanings are written like the rest of the reference, with `code` spans: rendered as <code>. */
function inlineCode(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>");
}
