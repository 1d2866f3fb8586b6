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

  it("holds an answer's headers to those documented for its status", () => {
    const pipeline = { "x-request-id": "0b8e6f4c-2a1d-4c3b-9e5f-7a6d8c9b0e1f", "cache-control": "no-store", "x-content-type-options": "nosniff", "ratelimit-limit": "100", "ratelimit-remaining": "99", "ratelimit-reset": "1" };
    const body = JSON.stringify({ data: true, meta });
    const answer = (status: number, headers: Record<string, string>, url = "/api/v2/users", method = "PUT") => ({
      method,
      url,
      status,
      contentType: status < 400 ? "application/json" : "application/problem+json",
      body: status < 400 ? body : problem(status, status === 401 ? "UNAUTHORIZED" : "RATE_LIMITED"),
      headers: new Headers(headers),
    });
    expect(check.check(answer(200, pipeline))).toEqual([]);
    // A header documented as always sent.
    const { "ratelimit-remaining": _, ...without } = pipeline;
    expect(check.check(answer(200, without))[0]).toMatch(/RateLimit-Remaining is documented as sent on every such answer, yet it is missing/);
    // A documented header off its schema: a number that is not one.
    expect(check.check(answer(200, { ...pipeline, "ratelimit-limit": "lots" }))[0]).toMatch(/RateLimit-Limit: "lots" is not a number/);
    // A header the document describes, on an answer it does not describe it for.
    expect(check.check(answer(200, { ...pipeline, etag: '"1"' }))[0]).toMatch(/sends header etag, which the document does not describe for this answer/);
    // Retry-After may come with a 429, and need not; WWW-Authenticate must come with a 401 of an authenticated route.
    expect(check.check(answer(429, pipeline))).toEqual([]);
    expect(check.check(answer(429, { ...pipeline, "retry-after": "2" }))).toEqual([]);
    expect(check.check(answer(429, { ...pipeline, "retry-after": "soon" }))[0]).toMatch(/Retry-After/);
    expect(check.check(answer(401, pipeline))[0]).toMatch(/WWW-Authenticate is documented as sent on every such answer/);
    // An ETag is an opaque, non-empty string.
    const one = (etag: string) => answer(200, { ...pipeline, etag }, "/api/v2/webhooks/3f0c2a8e-5d7b-4c1e-9a6f-2b8d4e6f1a3c", "GET");
    expect(check.check(one("")).some((m) => /header ETag: ""/.test(m))).toBe(true);
    expect(check.check(one('"abc"')).some((m) => /ETag/.test(m))).toBe(false);
    // Without headers (a caller that has none to give), only the status and the body are checked.
    expect(check.check({ ...answer(200, {}), headers: undefined })).toEqual([]);
  });

  it("an answer of no documented operation must be a 4xx problem, a 405 with Allow", () => {
    expect(check.check({ method: "PATCH", url: "/api/v2/users", status: 405, contentType: "application/problem+json", body: problem(405, "METHOD_NOT_ALLOWED"), headers: new Headers() })[0]).toMatch(/Allow/);
    expect(check.check({ method: "PATCH", url: "/api/v2/users", status: 405, contentType: "application/problem+json", body: problem(405, "METHOD_NOT_ALLOWED"), headers: new Headers({ allow: "GET, PUT" }) })).toEqual([]);
  });

  it("an answer of no documented operation must be a 4xx problem", () => {
    expect(check.check({ method: "GET", url: "/api/v2/nowhere", status: 404, contentType: "application/problem+json", body: problem(404, "NOT_FOUND") })).toEqual([]);
    expect(check.check({ method: "GET", url: "/api/v2/nowhere", status: 200, contentType: "application/json", body: "{}" })).not.toEqual([]);
  });
});
