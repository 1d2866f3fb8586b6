import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestHost, type TestHost } from "../support/test-host";
import type { Json } from "../support/json";

let host: TestHost;
let doc: Json;
beforeAll(async () => {
  host = await startTestHost();
  doc = (await (await host.call("GET", "/openapi.json", { auth: null })).json()) as Json;
});
afterAll(async () => host?.close());

const ws = "/workspaces/{workspaceId}";

describe("the served OpenAPI document of the workspace data", () => {
  it.each([
    ["post", "/datasources/across-workspaces/anomalies"],
    ["post", `${ws}/tickets/link`],
    ["post", `${ws}/tickets/unlink`],
    ["put", `${ws}/tickets/priority`],
  ])("%s %s has a request body with an example", (method, path) => {
    const op = doc.paths[`/api/v2${path}`]?.[method] ?? doc.paths[path]?.[method];
    expect(op, path).toBeDefined();
    const schema = op.requestBody.content["application/json"].schema;
    expect(schema.examples?.length, path).toBeGreaterThan(0);
  });

  it("documents the audit export's body as bare {value, nextPageToken}, not an envelope, with its scope and parameters", () => {
    const op = doc.paths[`/api/v2${ws}/export/audit`]?.get ?? doc.paths[`${ws}/export/audit`]?.get;
    const schema = op.responses["200"].content["application/json"].schema;
    expect(Object.keys(schema.properties).sort()).toEqual(["nextPageToken", "value"]);
    expect(schema.properties.data).toBeUndefined();
    expect(op["x-required-scope"]).toBe("audit:read");
    expect(op.parameters.map((p: Json) => p.name)).toEqual(expect.arrayContaining(["pageSize", "pageToken", "startTime"]));
  });

  it("documents every new route with its scope", () => {
    const scopes: [string, string, string][] = [
      ["get", `${ws}/datasources`, "datasources:read"],
      ["get", "/datasources/across-workspaces", "datasources:read"],
      ["get", `${ws}/tickets/search`, "tickets:read"],
      ["get", `${ws}/investigation/users/signin-logs`, "investigation:read"],
      ["get", `${ws}/investigation/users/directory-logs`, "investigation:read"],
      ["get", `${ws}/agent/tools/kql/tables`, "investigation:read"],
    ];
    for (const [method, path, scope] of scopes) {
      const op = doc.paths[`/api/v2${path}`]?.[method] ?? doc.paths[path]?.[method];
      expect(op?.["x-required-scope"], path).toBe(scope);
    }
  });
});
