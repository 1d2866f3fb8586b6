import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localControlRoutes } from "../../shared/hosts/local/local-controls";
import { startTestHost, type TestHost } from "../support/test-host";
import type { Json } from "../support/json";

interface Entry {
  method: string;
  path: string;
  summary: string;
  example: string;
  exampleBody?: unknown;
}

let host: TestHost;
let origin: string;
beforeAll(async () => {
  host = await startTestHost();
  origin = new URL(host.base).origin;
});
afterAll(() => host?.close());

async function index(): Promise<Entry[]> {
  const res = await fetch(`${origin}/_local/`);
  expect(res.status).toBe(200);
  return ((await res.json()) as Json).data.controls as Entry[];
}

/** `<name>` placeholders the reader fills in, given a value of the right shape for validation. */
function filled(value: unknown): unknown {
  if (typeof value === "string") return /^<\w+>$/.test(value) ? "3f0c2a8e-5d7b-4c1e-9a6f-2b8d4e6f1a3c" : value;
  if (Array.isArray(value)) return value.map(filled);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, filled(v)]));
  return value;
}

describe("GET /_local/", () => {
  it("lists every control of the route table, itself included, with its method, path and summary", async () => {
    const table = localControlRoutes(host.simulated);
    const entries = await index();
    expect(entries.map((e) => `${e.method} ${e.path}`)).toEqual(table.map((r) => `${r.method} /_local${r.path}`));
    expect(entries.map((e) => e.summary)).toEqual(table.map((r) => r.summary));
    expect(entries[0]).toMatchObject({ method: "GET", path: "/_local/", example: `curl ${origin}/_local/` });
  });

  it("lists only stand-ins for the world outside the service: the vendors' consoles, the ITSM and the timers", async () => {
    const paths = (await index()).map((e) => `${e.method} ${e.path}`);
    const outside = /^(GET \/_local\/|[A-Z]+ \/_local\/sources\/.+|[A-Z]+ \/_local\/itsm\/.+|POST \/_local\/reconcile|POST \/_local\/gamebooks\/expire-approvals)$/;
    expect(paths.filter((p) => !outside.test(p))).toEqual([]);
    expect(paths).toEqual(
      expect.arrayContaining([
        "POST /_local/sources/{source}/workspaces/{workspaceId}/incidents/{incidentId}/investigation",
        "POST /_local/itsm/workspaces/{workspaceId}/tickets/{ticketId}/notes",
        "POST /_local/reconcile",
        "POST /_local/gamebooks/expire-approvals",
      ]),
    );
    // What operators do goes through the portal, as a person: none of it is left here.
    for (const gone of ["approve", "deny", "approval-policy", "partner-approval", "agent-configuration", "integrations"]) {
      expect(paths.filter((p) => p.includes(gone)), gone).toEqual([]);
    }
    const ws = host.demo.workspaces[0]!.id;
    expect((await host.local("PUT", `/workspaces/${ws}/integrations`, { ticketing: true })).status).toBe(404);
    expect((await host.local("GET", `/accounts/${host.demo.provider.id}/partner-approval`)).status).toBe(404);
  });

  it("gives each control a curl example on this host whose body passes the control's own validation", async () => {
    const table = localControlRoutes(host.simulated);
    for (const [i, entry] of (await index()).entries()) {
      const route = table[i]!;
      expect(entry.example, entry.path).toMatch(new RegExp(`^curl (-X ${entry.method} )?.*${origin.replace(/\./g, "\\.")}/_local/`));
      if (!route.body) {
        expect(entry.example, entry.path).not.toContain(" -d ");
        continue;
      }
      expect(entry.example, entry.path).toContain(` -d '${JSON.stringify(entry.exampleBody)}'`);
      const parsed = route.body.safeParse(filled(entry.exampleBody));
      expect([entry.path, parsed.success, parsed.error?.issues]).toEqual([entry.path, true, undefined]);
    }
  });

  it("fills in a demo workspace, so the examples without placeholders work pasted as they are", async () => {
    const ws = host.demo.workspaces[0]!.id;
    const runnable = (await index()).filter((e) => !/<\w+>/.test(e.example));
    expect(runnable.map((e) => e.path)).toEqual(expect.arrayContaining(["/_local/sources/{source}/workspaces/{workspaceId}/incidents", "/_local/reconcile"]));
    for (const entry of runnable) {
      const url = /(http:\/\/\S+)/.exec(entry.example)![1]!;
      expect(url, entry.path).not.toContain("{");
      if (entry.path.includes("{workspaceId}")) expect(url).toContain(ws);
      const res = await fetch(url, {
        method: entry.method,
        headers: entry.exampleBody === undefined ? {} : { "content-type": "application/json" },
        body: entry.exampleBody === undefined ? undefined : JSON.stringify(entry.exampleBody),
      });
      expect([entry.method, entry.path, res.status < 300]).toEqual([entry.method, entry.path, true]);
    }
  });

  it("serves a page to a browser, and answers without the trailing slash too", async () => {
    const page = await fetch(`${origin}/_local`, { headers: { accept: "text/html,application/xhtml+xml" } });
    expect([page.status, page.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
    const html = await page.text();
    for (const route of localControlRoutes(host.simulated)) expect(html).toContain(`<code>/_local${route.path}</code>`);
    expect(html).toContain("&#39;Content-Type: application/json&#39;");
    expect(((await (await fetch(`${origin}/_local`)).json()) as Json).data.controls.length).toBeGreaterThan(5);
  });
});
