import { z } from "zod";
import { publicRoute } from "../../api/route-kinds";
import type { Route } from "../../platform/http/route";
import type { DemoData } from "./demo-data";
import { LOCAL_CONTROLS_PREFIX } from "./local-server";

export interface LocalControlEntry {
  method: string;
  /** The full path, `/_local/…`, with `{name}` for parameters. */
  path: string;
  summary: string;
  /** A curl command that calls it on this host, ids filled in where the demo data has them. */
  example: string;
  /** The example's request body, when it sends one. */
  exampleBody?: unknown;
}

type JsonSchema = { type?: string | string[]; enum?: unknown[]; const?: unknown; default?: unknown; examples?: unknown[]; minimum?: number; properties?: Record<string, JsonSchema>; required?: string[]; anyOf?: JsonSchema[]; oneOf?: JsonSchema[] };

/**
 * An example body for a control: the first of its schema's examples, or else one made from the
 * schema with what every required field needs (a new control without examples still gets a body
 * that passes its validation, if not a telling one).
 */
export function exampleBodyOf(body: z.ZodType): unknown {
  const declared = (body.meta() as { examples?: unknown[] } | undefined)?.examples?.[0];
  if (declared !== undefined) return declared;
  const schema = z.toJSONSchema(body, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return schema.examples?.[0] ?? valueFor(schema, "value");
}

function valueFor(schema: JsonSchema, name: string): unknown {
  if (schema.examples?.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const variant = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (variant) return valueFor(variant, name);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object":
      return Object.fromEntries((schema.required ?? []).map((key) => [key, valueFor(schema.properties?.[key] ?? {}, key)]));
    case "array":
      return [];
    case "integer":
    case "number":
      return schema.minimum ?? 0;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return `<${name}>`;
  }
}

/** Path parameters the demo data can fill in; any other parameter is left as `<name>` for the reader. */
function pathValues(demo: DemoData): Record<string, string> {
  return { workspaceId: demo.workspaces[0]?.id ?? "<workspaceId>", accountId: demo.provider.id, source: "SourceB" };
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The curl command of one control, as a person would paste it. */
function curlOf(route: Route, origin: string, values: Record<string, string>): { example: string; exampleBody?: unknown } {
  const path = route.path === "/" ? "/" : route.path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? `<${name}>`);
  const url = `${origin}${LOCAL_CONTROLS_PREFIX}${path}`;
  if (!route.body) return { example: route.method === "GET" ? `curl ${url}` : `curl -X ${route.method} ${url}` };
  const exampleBody = exampleBodyOf(route.body);
  // -d makes it a POST; any other method is named.
  const method = route.method === "POST" ? "" : `-X ${route.method} `;
  return { example: `curl ${method}-H 'Content-Type: application/json' ${url} -d ${shellQuote(JSON.stringify(exampleBody))}`, exampleBody };
}

/** Every control of the table, with its example, in the table's order. */
export function localControlEntries(controls: Route[], demo: DemoData, origin: string): LocalControlEntry[] {
  const values = pathValues(demo);
  return controls.map((route) => ({
    method: route.method,
    path: `${LOCAL_CONTROLS_PREFIX}${route.path}`,
    summary: route.summary,
    ...curlOf(route, origin, values),
  }));
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function indexPage(entries: LocalControlEntry[], origin: string): string {
  const rows = entries
    .map((e) => `<tr><td><code>${escapeHtml(e.method)}</code></td><td><code>${escapeHtml(e.path)}</code></td><td>${escapeHtml(e.summary)}<br><code class="x">${escapeHtml(e.example)}</code></td></tr>`)
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Local controls</title>
<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:80em}td{vertical-align:top;padding:.4em .6em;border-top:1px solid #ddd}code{font:12px ui-monospace,monospace}code.x{display:block;margin-top:.3em;color:#444;white-space:pre-wrap;word-break:break-all}</style>
</head><body>
<h1>Local controls</h1>
<p>This host only, no authentication: stand-ins for the world outside the service. Act inside the simulated vendors and ITSM as a person at those consoles would, and run now what the timers run every minute (a reconciler pass, the approval expiry).
What operators do (approve runs, set policies, switch integrations, configure the agent) is the portal's: sign in (<code>npm run sign-in -- jonas</code> in a shell) and use <code>/api/v2/portal/…</code>.
Ids in &lt;angle brackets&gt; are yours to fill in (an incident's <code>id</code>, for instance the one the first control answers).
The same list as JSON: <code>curl ${escapeHtml(origin)}${LOCAL_CONTROLS_PREFIX}/</code>. The API itself: <a href="/api/v2/docs">/api/v2/docs</a>.</p>
<table>
${rows}
</table>
</body></html>
`;
}

const entrySchema = z.object({ method: z.string(), path: z.string(), summary: z.string(), example: z.string(), exampleBody: z.unknown().optional() });

/**
 * `GET /_local/`: every local control with its method, path and a curl example, read from the
 * control table itself so a new control is listed without a word written here. JSON, or a page
 * for a browser (`Accept: text/html`).
 */
export function localControlsIndexRoute(controls: Route[], demo: DemoData): Route {
  const index: Route = publicRoute({
    method: "GET",
    path: "/",
    summary: "This list: every local control with its method, path and an example",
    tag: "Local controls",
    response: z.object({ controls: z.array(entrySchema) }),
    async handler({ origin, header }) {
      const entries = localControlEntries([index, ...controls], demo, origin);
      if ((header("accept") ?? "").includes("text/html")) return { raw: indexPage(entries, origin), contentType: "text/html; charset=utf-8" };
      return { data: { controls: entries } };
    },
  });
  return index;
}
