import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCodes } from "../../shared/platform/errors/api-error";
import { connect } from "node:net";
import { parseResponse, rawExchange, type RawResponse } from "../support/raw-http";
import { startTestHost, type TestHost } from "../support/test-host";

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host.close());

function expectProblem(response: RawResponse, status: number, code = "BAD_REQUEST"): Record<string, unknown> {
  expect(response.status).toBe(status);
  expect(response.headers["content-type"]).toBe("application/problem+json");
  const problem = JSON.parse(response.body) as Record<string, unknown>;
  expect(problem).toMatchObject({ status, code });
  expect(Object.keys(errorCodes)).toContain(problem.code);
  for (const field of ["type", "title", "detail", "instance", "requestId", "timestamp"]) expect(typeof problem[field]).toBe("string");
  return problem;
}

const malformed: [string, string, number][] = [
  ["a lower-case method", "get /api/v2/openapi.json HTTP/1.1\r\nHost: h\r\n\r\n", 400],
  ["an unknown method", "FOO /api/v2/openapi.json HTTP/1.1\r\nHost: h\r\n\r\n", 400],
  ["a bare CR in a header", "GET /api/v2/openapi.json HTTP/1.1\r\nHost: h\rX-A: b\r\n\r\n", 400],
  ["an obs-fold header line", "GET /api/v2/openapi.json HTTP/1.1\r\nHost: h\r\nX-A: b\r\n  c\r\n\r\n", 400],
  ["a bad chunk size", "POST /api/v2/users HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n", 400],
  ["Content-Length with Transfer-Encoding", "POST /api/v2/users HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400],
  ["a non-numeric Content-Length", "POST /api/v2/users HTTP/1.1\r\nHost: h\r\nContent-Length: abc\r\n\r\n", 400],
  ["an unknown Expect", "POST /api/v2/users HTTP/1.1\r\nHost: h\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\n{}", 417],
  ["a NUL in the request target", "GET /api/v2/us\0ers HTTP/1.1\r\nHost: h\r\n\r\n", 400],
  ["an HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400],
  ["a CONNECT request", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 400],
  ["headers over Node's limit", `GET /api/v2/users HTTP/1.1\r\nHost: h\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, 431],
  ["a body announced too large with Expect: 100-continue", "PUT /api/v2/users HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n", 413],
  // Refused before the client sends the body, so the answer does not wait for it.
  ["a body announced a little too large with Expect: 100-continue", "PUT /api/v2/users HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n", 413],
];

describe("protocol errors", () => {
  for (const [name, payload, status] of malformed) {
    it(`${name} gets a complete ${status} problem document, then the connection is closed`, async () => {
      const outcome = await rawExchange(host.base, payload);
      expect(outcome.kind).toBe("answered");
      if (outcome.kind !== "answered") return;
      expectProblem(outcome.response, status);
      expect(outcome.response.headers.connection).toBe("close");
      expect(outcome.closed).toBe(true);
    });
  }

  it("an unmet Expect is answered 417 at once, without the body being sent; a body sent after the answer is read, not reset", async () => {
    const { hostname, port } = new URL(host.base);
    const socket = connect(Number(port), hostname);
    const started = Date.now();
    const response = await new Promise<RawResponse>((resolve, reject) => {
      let received = Buffer.alloc(0);
      socket.on("data", (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        const parsed = parseResponse(received);
        if (parsed) resolve(parsed);
      });
      socket.on("error", reject);
      socket.on("close", () => reject(new Error(`closed before an answer: ${received.toString("latin1")}`)));
      // The headers only: the 20 bytes Content-Length announces are never sent before the answer.
      socket.write(`POST /api/v2/users HTTP/1.1\r\nHost: h\r\nExpect: teapot\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n`);
    });
    // Well under the 10 s the host gives a body to arrive.
    expect(Date.now() - started).toBeLessThan(2_000);
    expectProblem(response, 417);
    expect(response.headers.connection).toBe("close");
    // The client sends the body anyway: the host reads it and closes the connection, without a reset.
    const closed = new Promise<string | undefined>((resolve) => {
      let error: string | undefined;
      socket.removeAllListeners("close").removeAllListeners("error");
      socket.on("error", (e: NodeJS.ErrnoException) => (error = e.code));
      socket.on("close", () => resolve(error));
    });
    socket.write(" ".repeat(20));
    expect(await closed).toBeUndefined();
  });

  it("a bad Host header falls back to the configured host, and the host keeps serving", async () => {
    for (const bad of ["", "a:99999", "a:port", "a b", "[::1", "user@evil.example"]) {
      const outcome = await rawExchange(host.base, `GET /api/v2/no-such-thing HTTP/1.1\r\nHost: ${bad}\r\nConnection: close\r\n\r\n`);
      expect(outcome.kind, bad).toBe("answered");
      if (outcome.kind !== "answered") continue;
      const problem = expectProblem(outcome.response, 404, "NOT_FOUND");
      expect(problem.type).toBe(`${new URL(host.base).origin}/api/v2/errors#NOT_FOUND`);
    }
    const withoutHost = await rawExchange(host.base, "GET /api/v2/no-such-thing HTTP/1.1\r\nConnection: close\r\n\r\n");
    expect(withoutHost.kind === "answered" && withoutHost.response.status).toBe(404);
    expect((await host.call("GET", "/openapi.json")).status).toBe(200);
  });

  it("a 20 MB body gets 413 BAD_REQUEST, not a reset, also when the client closes after sending", async () => {
    const payload = `PUT /api/v2/users HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nConnection: close\r\nAuthorization: ${host.basic(host.admin.clientId, host.admin.clientSecret)}\r\nContent-Length: ${20_000_000}\r\n\r\n${" ".repeat(20_000_000)}`;
    const outcome = await rawExchange(host.base, payload, 20_000);
    expect(outcome.kind).toBe("answered");
    if (outcome.kind === "answered") expectProblem(outcome.response, 413);
  });

  it("an oversized chunked body (no Content-Length) gets 413 BAD_REQUEST", async () => {
    const chunk = " ".repeat(512 * 1024);
    const chunks = Array.from({ length: 6 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join("");
    const payload = `PUT /api/v2/users HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nAuthorization: ${host.basic(host.admin.clientId, host.admin.clientSecret)}\r\n\r\n${chunks}0\r\n\r\n`;
    const outcome = await rawExchange(host.base, payload, 20_000);
    expect(outcome.kind).toBe("answered");
    if (outcome.kind === "answered") {
      expectProblem(outcome.response, 413);
      expect(outcome.response.headers.connection).toBe("close");
    }
  });
});

describe("request keys named like Object.prototype members", () => {
  const user = { userId: "4d2d1b62-0d0c-4a4b-9e8f-1b2c3d4e5f60", displayName: "Proto Test", email: "proto@example.com", tenantId: "4d2d1b62-0d0c-4a4b-9e8f-1b2c3d4e5f61" };

  it("PUT /users with __proto__ is 400 VALIDATION_ERROR naming it as an unknown field", async () => {
    const body = `{"__proto__":{"isOwner":true},${JSON.stringify(user).slice(1)}`;
    const res = await host.call("PUT", "/users", { body });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { code: string; errors: Record<string, string[]> };
    expect(problem.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(problem.errors)).toEqual(["__proto__"]);
  });

  it("POST /webhooks/{id}/credentials with constructor is 400 VALIDATION_ERROR", async () => {
    const res = await host.call("POST", "/webhooks/4d2d1b62-0d0c-4a4b-9e8f-1b2c3d4e5f60/credentials", { body: { constructor: { name: "x" }, authenticationType: "None" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: Record<string, string[]> }).errors).toHaveProperty("constructor");
  });

  it("query parameters named __proto__ or constructor are unknown parameters", async () => {
    for (const query of ["__proto__=1", "__proto__=a&__proto__=b", "constructor=1", "toString=x&valueOf=y"]) {
      const res = await host.call("GET", `/users?${query}`);
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe("VALIDATION_ERROR");
    }
  });

  it("a documentation asset named like a prototype member is 404", async () => {
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      expect((await host.call("GET", `/docs/assets/${name}`, { auth: null })).status).toBe(404);
    }
  });
});
