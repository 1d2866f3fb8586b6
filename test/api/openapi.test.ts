import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PREFIX } from "../../shared/platform/http/router";
import { allRoutes } from "../../shared/api/route-groups";
import { startTestHost, type TestHost } from "../support/test-host";

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(async () => host?.close());

describe("the machine-readable contract", () => {
  it("is a valid OpenAPI 3.1 document labelled 2.0, served without authentication", async () => {
    const res = await host.call("GET", "/openapi.json", { auth: null });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, any>;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("2.0");
    // An ES module; the tests compile as CommonJS, so it is loaded dynamically.
    const { Validator } = await import("@seriousme/openapi-schema-validator");
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("documents every route of the tables with its method, scope and parameters", async () => {
    const doc = (await (await host.call("GET", "/openapi.json", { auth: null })).json()) as Record<string, any>;
    const routes = allRoutes().filter((r) => !r.hidden);
    expect(routes.length).toBeGreaterThan(10);
    const shape = (path: string) => path.replace(/\{[^}]+\}/g, "{}");
    for (const route of routes) {
      // Templates differing only in parameter names are one OpenAPI path, spelt as the first route spells it.
      const path = Object.keys(doc.paths).find((p) => shape(p) === shape(API_PREFIX + route.path))!;
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      // A portal operation is a person's, with the organizational roles that may call it; any other names its scope.
      if (route.auth === "session") expect(op.security).toEqual([{ portalSession: [] }]);
      else if (route.auth !== "public") expect(op["x-required-scope"]).toBe(route.auth);
      for (const name of [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
        expect(op.parameters.some((p: { name: string; in: string }) => p.name === name && p.in === "path")).toBe(true);
      }
    }
    expect(new Set(Object.keys(doc.paths).map(shape)).size).toBe(Object.keys(doc.paths).length);
    const documented = Object.values(doc.paths).reduce((n: number, item) => n + Object.keys(item as object).length, 0);
    expect(documented).toBe(routes.length);
  });

  it("names no host of its own: its one server is the origin it is served from", async () => {
    const doc = (await (await host.call("GET", "/openapi.json", { auth: null })).json()) as Record<string, any>;
    expect(doc.servers).toEqual([{ url: "/", description: expect.any(String) }]);
    expect(doc.info.license.name).toBeTruthy();
  });

  it("has an error reference that renders inline code as code, with no literal backticks", async () => {
    const res = await host.call("GET", "/errors", { auth: null });
    const html = await res.text();
    expect(html).toContain("<code>Retry-After</code>");
    expect(html).toContain("<code>requestId</code>");
    expect(html).not.toContain("`");
    for (const code of ["VALIDATION_ERROR", "NOT_FOUND", "TIMEOUT"]) expect(html).toContain(`<tr id="${code}">`);
  });

  it("has a readable reference page whose assets all come from the service itself", async () => {
    const res = await host.call("GET", "/docs", { auth: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
    // No other site frames it.
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await res.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    for (const ref of refs) {
      expect(ref.startsWith("/api/v2/")).toBe(true);
      const asset = await fetch(new URL(ref, host.base));
      expect(asset.status, ref).toBe(200);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    const init = await (await fetch(new URL("/api/v2/docs/assets/init.js", host.base))).text();
    expect(init).toContain("/api/v2/openapi.json");
    expect((await host.call("GET", "/docs/assets/package.json", { auth: null })).status).toBe(404);
    expect((await host.call("GET", "/docs/assets/..%2F..%2Fpackage.json", { auth: null })).status).toBe(404);
  });
});
