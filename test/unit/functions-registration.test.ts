import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as azure from "@azure/functions";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { functionRegistrations, type FunctionRegistrations } from "../support/function-registrations";
import { compareSpecificity, templateMatches } from "../support/route-templates";
import { azureRouteOf, HTTP_FUNCTIONS_PATH, httpFunctionsFile } from "../../scripts/http-functions";
import { apiGroups, metaGroup } from "../../shared/api/route-groups";
import { seedDemoData } from "../../shared/hosts/local/demo-data";
import { getServices } from "../../shared/hosts/composition";

/** The portal page's functions: static files outside the API, not an endpoint group. */
const PORTAL_PAGE_FUNCTIONS = ["portal-page", "portal-page-root"];
let registrations: FunctionRegistrations["http"];
let queueTriggers: FunctionRegistrations["queues"];
let timers: FunctionRegistrations["timers"];

beforeAll(async () => {
  ({ http: registrations, queues: queueTriggers, timers } = await functionRegistrations());
});
afterAll(() => vi.restoreAllMocks());

describe("Azure Functions registration", () => {
  it("registers every endpoint group and the API catch-all, each on a catch-all route with every method", () => {
    const expected = [...apiGroups, metaGroup];
    // The registrations read a file written from the route table, so that a cold start loads no route group.
    const fix = `${HTTP_FUNCTIONS_PATH} is stale: run \`npm run routes:azure\` and commit it`;
    expect(readFileSync(join(__dirname, "../..", HTTP_FUNCTIONS_PATH), "utf8"), fix).toBe(httpFunctionsFile());
    const apiRegistrations = registrations.filter((r) => !PORTAL_PAGE_FUNCTIONS.includes(r.name));
    expect(apiRegistrations.map((r) => r.name).sort(), fix).toEqual(expected.map((g) => g.name).sort());
    for (const group of expected) {
      const reg = registrations.find((r) => r.name === group.name)!;
      expect(reg.options.route, fix).toBe(azureRouteOf(group));
      expect(reg.options.route).toMatch(/\{\*\w+\}$/);
      expect(reg.options.authLevel).toBe("anonymous");
      expect([...(reg.options.methods ?? [])].sort()).toEqual(["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"]);
    }
  });

  it("registers the event fan-out, delivery, reconcile and gamebook workers on their Service Bus queues, the approval expiry, outbox sweep and reconciler timers", () => {
    expect(queueTriggers.map((t) => [t.name, t.options.queueName, t.options.connection]).sort()).toEqual([
      ["event-fan-out", "events", "SERVICEBUS"],
      ["gamebook-executor", "gamebook-runs", "SERVICEBUS"],
      ["reconcile-workspace", "reconcile", "SERVICEBUS"],
      ["webhook-delivery", "deliveries", "SERVICEBUS"],
    ]);
    expect(timers.map((t) => [t.name, t.options.schedule]).sort()).toEqual([
      ["approval-expiry", "15 * * * * *"],
      ["outbox-sweep", "0 * * * * *"],
      ["reconciler", "30 * * * * *"],
    ]);
  });

  it("routes every path to its own group's function: the most specific matching template is its group's", () => {
    const groups = [...apiGroups, metaGroup];
    const templates = groups.map((g) => ({ name: g.name, route: azureRouteOf(g) }));
    expect(new Set(templates.map((t) => t.route)).size).toBe(templates.length);
    for (const group of groups) {
      for (const route of group.routes) {
        const path = "api/v2" + route.path.replace(/\{\w+\}/g, "x");
        const matching = templates.filter((t) => templateMatches(t.route, path)).sort((a, b) => compareSpecificity(a.route, b.route));
        expect(matching[0]?.name, `${route.method} ${route.path}`).toBe(group.name);
      }
    }
  });

  it("orders templates as the host does: a literal beats a parameter, which beats a catch-all", () => {
    expect(compareSpecificity("v2/workspaces/{workspaceId}/incidents/{*rest}", "v2/workspaces/{workspaceId}/{*rest}")).toBeLessThan(0);
    expect(compareSpecificity("v2/{*rest}", "v2/webhooks/{*rest}")).toBeGreaterThan(0);
    expect(templateMatches("v2/webhooks/{*rest}", "v2/webhooks")).toBe(true);
    expect(templateMatches("v2/webhooks/{*rest}", "v2/webhooksx")).toBe(false);
    expect(templateMatches("v2/workspaces/{workspaceId}/incidents/{*rest}", "v2/workspaces/w/incidents/SourceA/1")).toBe(true);
  });

  it("host.json adds no route prefix: the API's functions name `api/v2` themselves, the portal page lives at /portal", () => {
    const host = JSON.parse(readFileSync(join(__dirname, "../../host.json"), "utf8"));
    expect(host.extensions.http.routePrefix).toBe("");
    for (const reg of registrations) {
      if (PORTAL_PAGE_FUNCTIONS.includes(reg.name)) expect(reg.options.route).toMatch(/^portal(\/\{\*path\})?$/);
      else expect(reg.options.route).toMatch(/^api\/v2\//);
    }
  });

  it("the portal page's function answers with the page under its strict policy, and its root redirects to the page", async () => {
    const page = registrations.find((r) => r.name === "portal-page")!;
    const root = registrations.find((r) => r.name === "portal-page-root")!;
    const context = new azure.InvocationContext({ functionName: "portal-page" });
    const redirect = (await root.options.handler(new azure.HttpRequest({ method: "GET", url: "https://example.azurewebsites.net/portal" }), context)) as azure.HttpResponse;
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get("location")).toBe("/portal/");
    const answer = (await page.options.handler(new azure.HttpRequest({ method: "GET", url: "https://example.azurewebsites.net/portal/approvals" }), context)) as azure.HttpResponse;
    // The suite's global setup built the page, as `npm run build` does.
    expect(answer.status).toBe(200);
    expect(await answer.text()).toMatch(/<script type="module" src="\/portal\/assets\/app-\w+\.js">/);
    expect(answer.headers.get("content-security-policy")).toContain("script-src 'self'");
    const wrongVerb = (await page.options.handler(new azure.HttpRequest({ method: "POST", url: "https://example.azurewebsites.net/portal/x" }), context)) as azure.HttpResponse;
    expect(wrongVerb.status).toBe(405);
  });

  it("a registered handler answers an Azure HttpRequest through the same pipeline", async () => {
    const { admin } = await seedDemoData(getServices());
    const reg = registrations.find((r) => r.name === "service-accounts")!;
    const request = new azure.HttpRequest({
      method: "GET",
      url: `https://example.azurewebsites.net/api/v2/service-accounts/${admin.clientId}`,
      headers: { authorization: `Basic ${Buffer.from(`${admin.clientId}:${admin.clientSecret}`).toString("base64")}` },
    });
    const context = new azure.InvocationContext({ functionName: "service-accounts" });
    const info = vi.spyOn(getServices().logger, "info").mockImplementation(() => {});
    const response = (await reg.options.handler(request, context)) as azure.HttpResponseInit;
    expect(response.status).toBe(200);
    const body = JSON.parse(response.body as string);
    expect(body.data.id).toBe(admin.clientId);
    expect((response.headers as Record<string, string>)["X-Request-Id"]).toBe(body.meta.requestId);
    // The access log line carries the request id as a field (a custom dimension in Azure).
    expect(info).toHaveBeenCalledWith("request", expect.objectContaining({ requestId: body.meta.requestId, status: 200, invocationId: context.invocationId }));
    info.mockRestore();
  });

  it("the catch-all answers unknown paths with a 404 problem and wrong verbs with 405", async () => {
    const reg = registrations.find((r) => r.name === metaGroup.name)!;
    const context = new azure.InvocationContext({ functionName: "meta" });
    vi.spyOn(context, "log").mockImplementation(() => {});
    const notFound = (await reg.options.handler(
      new azure.HttpRequest({ method: "GET", url: "https://example.azurewebsites.net/api/v2/nothing-here" }),
      context,
    )) as azure.HttpResponseInit;
    expect(notFound.status).toBe(404);
    expect((notFound.headers as Record<string, string>)["Content-Type"]).toBe("application/problem+json");
    const wrongVerb = (await reg.options.handler(
      new azure.HttpRequest({ method: "DELETE", url: "https://example.azurewebsites.net/api/v2/users" }),
      context,
    )) as azure.HttpResponseInit;
    expect(wrongVerb.status).toBe(405);
    expect((wrongVerb.headers as Record<string, string>).Allow).toBe("GET, PUT");
  });
});
