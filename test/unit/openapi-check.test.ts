import { describe, expect, it } from "vitest";
import { buildOpenApi } from "../../shared/platform/http/openapi";
import { allRoutes } from "../../shared/api/route-groups";
import { OpenApiResponseCheck } from "../support/openapi-check";

const origin = "http://127.0.0.1:7071";
const check = new OpenApiResponseCheck(buildOpenApi(allRoutes(), origin) as ConstructorParameters<typeof OpenApiResponseCheck>[0]);
const problem = (status: number, code: string) =>
  JSON.stringify({ type: `${origin}/api/v2/errors#${code}`, title: "t", status, detail: "d", instance: "/x", code, requestId: "r", timestamp: "2026-01-01T00:00:00.000Z" });
const meta = { requestId: "r", timestamp: "2026-01-01T00:00:00.000Z" };

describe("the OpenAPI response check of the API tests", () => {
  it("accepts an answer as documented", () => {
    const body = JSON.stringify({ data: true, meta });
    expect(check.check({ method: "PUT", url: "/api/v2/users", status: 201, contentType: "application/json; charset=utf-8", body })).toEqual([]);
    expect(check.check({ method: "GET", url: "/api/v2/users/x", status: 404, contentType: "application/problem+json", body: problem(404, "NOT_FOUND") })).toEqual([]);
  });

  it("refuses an undocumented status, a body off its schema, and a problem whose status or code is wrong", () => {
    expect(check.check({ method: "GET", url: "/api/v2/users", status: 418, contentType: "application/problem+json", body: problem(418, "BAD_REQUEST") })[0]).toMatch(/not documented/);
    expect(check.check({ method: "PUT", url: "/api/v2/users", status: 200, contentType: "application/json", body: JSON.stringify({ data: "yes", meta }) })).not.toEqual([]);
    expect(check.check({ method: "GET", url: "/api/v2/users", status: 400, contentType: "application/problem+json", body: problem(401, "VALIDATION_ERROR") })[0]).toMatch(/differs/);
    expect(check.check({ method: "GET", url: "/api/v2/users", status: 400, contentType: "application/problem+json", body: problem(400, "TEAPOT") })).not.toEqual([]);
    expect(check.check({ method: "GET", url: "/api/v2/users", status: 400, contentType: "application/json", body: problem(400, "BAD_REQUEST") })[0]).toMatch(/Content-Type/);
  });

  it("an answer of no documented operation must be a 4xx problem", () => {
    expect(check.check({ method: "GET", url: "/api/v2/nowhere", status: 404, contentType: "application/problem+json", body: problem(404, "NOT_FOUND") })).toEqual([]);
    expect(check.check({ method: "GET", url: "/api/v2/nowhere", status: 200, contentType: "application/json", body: "{}" })).not.toEqual([]);
  });
});
