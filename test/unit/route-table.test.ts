import { describe, expect, it, vi } from "vitest";
import { allGroups, allRoutes } from "../../shared/api/route-groups";
import { META_GROUP, groupNames, loadGroup } from "../../shared/api/route-table";
import { prefixOf } from "../../shared/hosts/azure/http-function";
import httpFunctions from "../../shared/hosts/azure/http-functions.json";
import { buildOpenApi } from "../../shared/platform/http/openapi";
import { publicRoute } from "../../shared/api/route-kinds";
import type { HttpMethod, Route } from "../../shared/platform/http/route";
import { GroupRouter, Router, type RouteMatch } from "../../shared/platform/http/router";

/*
 * The route table built a group at a time (`route-table.ts`, what the Azure functions serve) against
 * the one built at once (`route-groups.ts`, what the OpenAPI tooling, the fuzz and authorization
 * suites and the local host read): the same groups, the same routes, the same answers.
 */

const METHODS: HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];
const shape = (r: Route) => `${r.method} ${r.path} ${r.kind} ${r.auth}`;
/** A match with its route named by method and path: the two tables build their own route objects. */
const comparable = (m: RouteMatch) => (m.kind === "found" ? { kind: m.kind, route: `${m.route.method} ${m.route.path}`, params: m.params } : m);

describe("the route table, a group at a time", () => {
  it("lists every group of route-groups.ts, in its order, the API catch-all last", () => {
    expect(groupNames).toEqual(allGroups().map((g) => g.name));
    expect(groupNames.at(-1)).toBe(META_GROUP);
    expect(httpFunctions.map((f) => f.name)).toEqual(groupNames);
  });

  it("builds each group with the routes route-groups.ts has, and the same group on every call", async () => {
    for (const eager of allGroups()) {
      const group = await loadGroup(eager.name);
      expect({ name: group.name, routes: group.routes.map(shape) }).toEqual({ name: eager.name, routes: eager.routes.map(shape) });
      expect(await loadGroup(eager.name)).toBe(group);
    }
    await expect(loadGroup("nothing")).rejects.toThrow("No endpoint group is named nothing.");
  });

  it("serves the OpenAPI document of every route, the same document as route-groups.ts gives", async () => {
    const meta = await loadGroup(META_GROUP);
    const openApi = meta.routes.find((r) => r.path === "/openapi.json")!;
    const origin = "https://api.example.com";
    const served = (await openApi.handler({ origin })) as { raw: string };
    expect(JSON.parse(served.raw)).toEqual(JSON.parse(JSON.stringify(buildOpenApi(allRoutes(), origin))));
  });

  it("each group's routes start with the prefix its Azure function's route names", () => {
    for (const fn of httpFunctions) {
      const prefix = prefixOf(fn.route).split("/").filter(Boolean);
      const group = allGroups().find((g) => g.name === fn.name)!;
      for (const route of group.routes) {
        const segments = route.path.split("/").filter(Boolean);
        expect(prefix.every((s, i) => (s.startsWith("{") ? segments[i]?.startsWith("{") : segments[i] === s)), `${route.method} ${route.path} under ${fn.route}`).toBe(true);
      }
    }
    expect(prefixOf("api/v2/workspaces/{workspaceId}/tickets/{*rest}")).toBe("/workspaces/{workspaceId}/tickets");
    expect(prefixOf("api/v2/{*rest}")).toBe("");
    expect(() => prefixOf("portal/{*path}")).toThrow();
  });

  it("the API catch-all's routing over every group answers every path and method as one router over every route", async () => {
    const everything = new Router(allRoutes());
    const lazy = new GroupRouter(httpFunctions.map((f) => ({ prefix: prefixOf(f.route), load: async () => (await loadGroup(f.name)).routes })));
    const paths = [
      ...new Set(allRoutes().map((r) => r.path.replace(/\{\w+\}/g, "x"))),
      "/",
      "/nothing-here",
      "/users/x/y/z",
      "/workspaces/x",
      "/workspaces/x/incidents",
      "/workspaces/x/incidents/SourceA",
      "/portal",
      "/Users",
    ];
    for (const path of paths) {
      for (const method of METHODS) {
        expect(comparable(await lazy.match(method, path)), `${method} ${path}`).toEqual(comparable(everything.match(method, path)));
      }
    }
  });
});

describe("GroupRouter", () => {
  const route = (method: HttpMethod, path: string) => publicRoute({ method, path, summary: path, tag: "t", handler: async () => ({ data: null }) });
  function groups() {
    const loads = { accounts: vi.fn(), workspaces: vi.fn(), reference: vi.fn() };
    const router = new GroupRouter([
      { prefix: "/accounts", load: async () => (loads.accounts(), [route("GET", "/accounts"), route("GET", "/accounts/{id}")]) },
      { prefix: "/workspaces/{workspaceId}/tickets", load: async () => (loads.workspaces(), [route("GET", "/workspaces/{workspaceId}/tickets"), route("POST", "/workspaces/{workspaceId}/tickets/{id}/notes")]) },
      { prefix: "", load: async () => (loads.reference(), [route("GET", "/health")]) },
    ]);
    return { loads, router };
  }

  it("builds only the groups whose prefix the path starts with, once, however many requests wait for them", async () => {
    const { loads, router } = groups();
    const [first, second] = await Promise.all([router.match("GET", "/accounts/a1"), router.match("GET", "/accounts")]);
    expect(first).toMatchObject({ kind: "found", params: { id: "a1" } });
    expect(second).toMatchObject({ kind: "found", route: { path: "/accounts" } });
    expect(loads.accounts).toHaveBeenCalledTimes(1);
    expect(loads.workspaces).not.toHaveBeenCalled();
    // The group without a prefix may hold any path: it is built with every other.
    expect(loads.reference).toHaveBeenCalledTimes(1);
    // Once built, the answer comes at once.
    expect(router.match("DELETE", "/accounts/a1")).toEqual({ kind: "method-not-allowed", allow: ["GET"] });
    expect(loads.accounts).toHaveBeenCalledTimes(1);
  });

  it("matches parameters in a prefix, and answers 404 and 405 from the groups a path reaches", async () => {
    const { loads, router } = groups();
    expect(await router.match("POST", "/workspaces/w1/tickets/t1/notes")).toMatchObject({ kind: "found", params: { workspaceId: "w1", id: "t1" } });
    expect(await router.match("GET", "/workspaces/w1/tickets/t1/notes")).toEqual({ kind: "method-not-allowed", allow: ["POST"] });
    expect(await router.match("GET", "/workspaces/w1")).toEqual({ kind: "not-found" });
    expect(await router.match("GET", "/health")).toMatchObject({ kind: "found" });
    expect(loads.accounts).not.toHaveBeenCalled();
  });

  it("tries a group whose build failed again on the next request", async () => {
    let fail = true;
    const router = new GroupRouter([
      {
        prefix: "/accounts",
        load: async () => {
          if (fail) throw new Error("module failed to load");
          return [route("GET", "/accounts")];
        },
      },
    ]);
    await expect(router.match("GET", "/accounts")).rejects.toThrow("module failed to load");
    fail = false;
    expect(await router.match("GET", "/accounts")).toMatchObject({ kind: "found" });
  });

  it("answers 404 without building anything when no group's prefix fits the path", async () => {
    const load = vi.fn(async () => [route("GET", "/accounts")]);
    const router = new GroupRouter([{ prefix: "/accounts", load }]);
    expect(await router.match("GET", "/users")).toEqual({ kind: "not-found" });
    expect(load).not.toHaveBeenCalled();
  });
});
