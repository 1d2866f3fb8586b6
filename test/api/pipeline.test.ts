import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { organizationRoute, publicRoute, workspaceRoute, type PublicInput } from "../../shared/api/route-kinds";
import { ensureAdminAccount } from "../../shared/domain/organizations/admin-account";
import { startTestHost, type TestHost } from "../support/test-host";

/** Routes that exist only in this test, to reach pipeline paths no real endpoint reaches on demand. */
let slowEntered = false;
const probeRoutes = [
  organizationRoute({
    method: "GET",
    path: "/_probe/boom",
    summary: "throws",
    tag: "probe",
    auth: "org:users:read",
    async handler() {
      throw new Error("database password is hunter2 at /srv/secret/path.ts:42");
    },
  }),
  organizationRoute({
    method: "GET",
    path: "/_probe/slow",
    summary: "waits until the client goes away",
    tag: "probe",
    auth: "org:users:read",
    async handler({ signal }) {
      await new Promise<void>((resolve) => {
        slowEntered = true;
        signal.addEventListener("abort", () => resolve());
      });
      return { data: "late" };
    },
  }),
  workspaceRoute({
    method: "GET",
    path: "/workspaces/{workspaceId}/_probe",
    summary: "workspace-scoped",
    tag: "probe",
    auth: "org:users:read",
    params: z.object({ workspaceId: z.guid() }),
    async handler({ params }) {
      return { data: params.workspaceId };
    },
  }),
  // What each kind of route hands its handler: the caller and the workspace exactly where they exist.
  ...(["public", "organization", "workspace"] as const).map((kind) => {
    const route = {
      method: "GET" as const,
      summary: `what a ${kind} route's handler gets`,
      tag: "probe",
      async handler(input: PublicInput<unknown, unknown, unknown> & { principal?: unknown; actor?: unknown; workspace?: { id: string } }) {
        return {
          data: {
            principal: input.principal !== undefined,
            actor: input.actor !== undefined,
            workspace: input.workspace?.id ?? null,
            services: typeof input.now === "function" && input.stores !== undefined,
          },
        };
      },
    };
    if (kind === "public") return publicRoute({ ...route, path: "/_probe/kind/public" });
    if (kind === "organization") return organizationRoute({ ...route, path: "/_probe/kind/organization", auth: "org:users:read" });
    return workspaceRoute({ ...route, path: "/workspaces/{workspaceId}/_probe/kind", auth: "org:users:read", params: z.object({ workspaceId: z.guid() }) });
  }),
];

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ extraRoutes: probeRoutes });
});
afterAll(async () => host?.close());

async function problem(res: Response) {
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  return (await res.json()) as Record<string, unknown>;
}

describe("problems and envelopes", () => {
  it("an unknown route is a complete 404 problem whose requestId is the X-Request-Id header", async () => {
    const res = await host.call("GET", "/no-such-thing?x=1");
    expect(res.status).toBe(404);
    const body = await problem(res);
    expect(body).toMatchObject({
      type: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2\/errors#NOT_FOUND$/),
      title: "The resource was not found.",
      status: 404,
      code: "NOT_FOUND",
      instance: "/api/v2/no-such-thing?x=1",
      requestId: res.headers.get("x-request-id"),
    });
    expect(typeof body.detail).toBe("string");
    expect(new Date(body.timestamp as string).toISOString()).toBe(body.timestamp);
  });

  it("a path outside /api/v2 is a 404 problem too", async () => {
    const res = await fetch(host.base.replace("/api/v2", "/elsewhere"));
    expect(res.status).toBe(404);
    expect((await problem(res)).code).toBe("NOT_FOUND");
  });

  it("the problem type points into an error reference the service serves", async () => {
    const res = await host.call("GET", "/no-such-thing");
    const type = (await problem(res)).type as string;
    const page = await fetch(type);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('id="NOT_FOUND"');
  });

  it("a known route with the wrong verb is 405 with Allow", async () => {
    const res = await host.call("PATCH", "/service-accounts");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, POST");
    expect((await problem(res)).code).toBe("METHOD_NOT_ALLOWED");
  });

  it("a success carries data and meta, and meta.requestId is the X-Request-Id header", async () => {
    const res = await host.call("GET", `/service-accounts/${host.admin.clientId}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { id: string }; meta: { requestId: string; timestamp: string } };
    expect(body.data.id).toBe(host.admin.clientId);
    expect(body.meta.requestId).toBe(res.headers.get("x-request-id"));
    expect(Object.keys(body).sort()).toEqual(["data", "meta"]);
  });

  it("unparseable JSON is 400 BAD_REQUEST", async () => {
    const res = await host.call("POST", "/service-accounts", { body: '{"name": ', headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expect((await problem(res)).code).toBe("BAD_REQUEST");
  });

  it("a body with a non-JSON Content-Type is 415", async () => {
    const res = await host.call("POST", "/service-accounts", { body: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(415);
    expect((await problem(res)).code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("a body without Content-Type is 415", async () => {
    const res = await host.fetch(`${host.base}/service-accounts`, {
      method: "POST",
      headers: { authorization: host.basic(host.admin.clientId, host.admin.clientSecret) },
      body: new Uint8Array(Buffer.from('{"name":"x"}')),
    });
    expect(res.status).toBe(415);
  });

  it("a body over 1 MiB is refused as 413 with the code BAD_REQUEST, and the connection is closed", async () => {
    const res = await host.call("POST", "/service-accounts", { body: { name: "x".repeat(1024 * 1024 + 10) } });
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
    const body = await problem(res);
    expect(body.code).toBe("BAD_REQUEST");
    expect(body.status).toBe(413);
  });

  it("a body over the limit is refused even when padding hides it in one chunk with a valid JSON document", async () => {
    const padded = JSON.stringify({ name: "padded", organizationalRole: "Member", scopes: ["org:users:read"] }) + " ".repeat(2 * 1024 * 1024);
    const res = await host.call("POST", "/service-accounts", { body: padded });
    expect(res.status).toBe(413);
    expect((await problem(res)).code).toBe("BAD_REQUEST");
  });

  it("a JSON answer and a problem both tell a browser to keep to their media type (X-Content-Type-Options: nosniff)", async () => {
    const success = await host.call("GET", `/service-accounts/${host.admin.clientId}`);
    expect([success.status, success.headers.get("content-type"), success.headers.get("x-content-type-options")]).toEqual([200, "application/json; charset=utf-8", "nosniff"]);
    const refused = await host.call("GET", "/service-accounts/not-a-guid");
    expect([refused.status, refused.headers.get("content-type"), refused.headers.get("x-content-type-options")]).toEqual([400, "application/problem+json", "nosniff"]);
  });

  it("schema failures are 400 VALIDATION_ERROR with errors keyed by JSON property path", async () => {
    const res = await host.call("POST", "/service-accounts", {
      body: {
        name: "",
        organizationalRole: "Emperor",
        scopes: ["incidents:read", "nope:nope"],
        workspaceAssignments: [{ workspaceId: "not-a-guid", role: "Owner" }],
        portalOnly: true,
      },
    });
    expect(res.status).toBe(400);
    const body = await problem(res);
    expect(body.code).toBe("VALIDATION_ERROR");
    const errors = body.errors as Record<string, string[]>;
    expect(Object.keys(errors).sort()).toEqual(
      ["name", "organizationalRole", "portalOnly", "scopes[1]", "workspaceAssignments[0].workspaceId"].sort(),
    );
    for (const messages of Object.values(errors)) expect(messages.length).toBeGreaterThan(0);
  });

  it("an object-level failure is keyed by the empty path", async () => {
    const res = await host.call("PUT", `/service-accounts/${host.admin.clientId}`, { body: {} });
    expect(res.status).toBe(400);
    expect(Object.keys((await problem(res)).errors as object)).toEqual([""]);
  });

  it("a missing JSON body where one is required is VALIDATION_ERROR on the object", async () => {
    const res = await host.call("POST", "/service-accounts", { headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    const body = await problem(res);
    expect(body.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(body.errors as object)).toEqual([""]);
  });

  it("an invalid path parameter is VALIDATION_ERROR keyed by the parameter name", async () => {
    const res = await host.call("GET", "/service-accounts/not-a-guid");
    expect(res.status).toBe(400);
    expect(Object.keys((await problem(res)).errors as object)).toEqual(["id"]);
  });

  it("an unexpected exception is 500 INTERNAL_ERROR without internals, logged with the request id", async () => {
    const res = await host.call("GET", "/_probe/boom");
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toMatch(/hunter2|secret\/path|stack|Error:/);
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(body.code).toBe("INTERNAL_ERROR");
    const logged = host.logs.find((l) => l.message === "unhandled error" && l.fields.requestId === body.requestId);
    expect(JSON.stringify(logged?.fields)).toContain("hunter2");
  });

  it("a 204 has no body", async () => {
    const created = await host.call("POST", "/service-accounts", {
      body: { name: "to delete", organizationalRole: "Member", scopes: ["incidents:read"] },
    });
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    const res = await host.call("DELETE", `/service-accounts/${id}`);
    expect(res.status).toBe(204);
    expect(res.headers.get("content-type")).toBeNull();
    expect(await res.text()).toBe("");
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("a client that disconnects mid-request is logged as 499 and the host keeps serving", async () => {
    const controller = new AbortController();
    const pending = fetch(`${host.base}/_probe/slow`, {
      headers: { authorization: host.basic(host.admin.clientId, host.admin.clientSecret) },
      signal: controller.signal,
    }).catch((e: Error) => e);
    await expect.poll(() => slowEntered).toBe(true);
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    await expect
      .poll(() => host.logs.find((l) => l.message === "request" && l.fields.path === "/api/v2/_probe/slow")?.fields.status)
      .toBe(499);
    const after = await host.call("GET", `/service-accounts/${host.admin.clientId}`);
    expect(after.status).toBe(200);
  });
});

describe("workspace role", () => {
  it("hands each kind of route's handler the services by name, and the caller and the workspace exactly where they exist", async () => {
    const ws = host.demo.workspaces[0]!.id;
    const read = async (path: string, auth?: null) => ((await (await host.call("GET", path, auth === null ? { auth: null } : {})).json()) as { data: unknown }).data;
    expect(await read("/_probe/kind/public", null)).toEqual({ principal: false, actor: false, workspace: null, services: true });
    expect(await read("/_probe/kind/organization")).toEqual({ principal: true, actor: true, workspace: null, services: true });
    expect(await read(`/workspaces/${ws}/_probe/kind`)).toEqual({ principal: true, actor: true, workspace: ws, services: true });
  });

  it("refuses, when its module loads, a route whose kind does not match its path", () => {
    const base = { method: "GET" as const, summary: "mismatched", tag: "probe", auth: "org:users:read" as const, handler: async () => ({ data: null }) };
    expect(() => organizationRoute({ ...base, path: "/workspaces/{workspaceId}/x" })).toThrow(/workspaceRoute/);
    expect(() => workspaceRoute({ ...base, path: "/webhooks/x" })).toThrow(/organizationRoute/);
  });

  it("a workspace-scoped route needs a role on the workspace: 403 INSUFFICIENT_WORKSPACE_ROLE", async () => {
    const workspace = host.demo.workspaces[0]!;
    const ok = await host.call("GET", `/workspaces/${workspace.id}/_probe`);
    expect(ok.status).toBe(200);
    const res = await host.call("GET", `/workspaces/${"0".repeat(8)}-0000-4000-8000-${"0".repeat(12)}/_probe`);
    expect(res.status).toBe(403);
    expect((await problem(res)).code).toBe("INSUFFICIENT_WORKSPACE_ROLE");
  });
});

describe("rate limiting", () => {
  it("every response carries RateLimit headers, and an empty bucket is 429 RATE_LIMITED with Retry-After", async () => {
    const limited = await startTestHost({ env: { RATE_LIMIT_BURST: "3", RATE_LIMIT_PER_SECOND: "0.5" } });
    try {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 4; i++) {
        last = await limited.call("GET", `/service-accounts/${limited.admin.clientId}`);
        statuses.push(last.status);
        expect(last.headers.get("ratelimit-limit")).toBe("3");
        expect(last.headers.get("ratelimit-remaining")).not.toBeNull();
        expect(last.headers.get("ratelimit-reset")).not.toBeNull();
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      const body = await problem(last!);
      expect(body.code).toBe("RATE_LIMITED");
      expect(Number(last!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(last!.headers.get("ratelimit-remaining")).toBe("0");

      // Another credential has its own bucket.
      const other = await limitedAccount(limited);
      expect((await limited.call("GET", "/users", { auth: other })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it("failed authentication spends the caller address's budget", async () => {
    const limited = await startTestHost({ env: { RATE_LIMIT_BURST: "2", RATE_LIMIT_PER_SECOND: "0.1" } });
    try {
      const wrong = { clientId: limited.admin.clientId, clientSecret: "soms_wrong-secret-wrong-secret-wrong-secret" };
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await limited.call("GET", "/users", { auth: wrong })).status);
      expect(statuses).toEqual([401, 401, 429]);
    } finally {
      await limited.close();
    }
  });
});

/** A second credential made directly in the store, so that making it spends no API budget. */
async function limitedAccount(h: TestHost) {
  const made = await ensureAdminAccount(h.services, { accountId: h.demo.provider.id, name: "second", workspaceIds: [] });
  return { clientId: made.clientId, clientSecret: made.clientSecret };
}
