import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import { createServiceAccount, startTestHost, type TestHost } from "../support/test-host";

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(async () => host?.close());

describe("GET /health", () => {
  it("answers without credentials: up, store and queue reachable", async () => {
    const res = await host.call("GET", "/health", { auth: null });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Record<string, any> };
    expect(body.data).toMatchObject({
      status: "ok",
      checks: { store: { status: "ok" }, queue: { status: "ok" } },
    });
    expect(Date.parse(body.data.checkedAt)).not.toBeNaN();
  });

  it("checks the store once for the cache period, whichever requests ask", async () => {
    const own = await startTestHost();
    try {
      const get = vi.spyOn(own.services.stores.accounts, "get");
      for (let i = 0; i < 3; i++) expect((await own.call("GET", "/health", { auth: null })).status).toBe(200);
      expect(get).toHaveBeenCalledTimes(1);
    } finally {
      vi.restoreAllMocks();
      await own.close();
    }
  });

  it("stays 200 when the store is unreachable: liveness, with the failed check as data and no upstream detail", async () => {
    // A host of its own: the first host's answer is cached for 5 s.
    const broken = await startTestHost();
    try {
      vi.spyOn(broken.services.stores.accounts, "get").mockRejectedValue(
        new ApiError("UPSTREAM_ERROR", "The store is unavailable.", { cause: new Error("connect ECONNREFUSED 10.1.2.3:443") }),
      );
      const res = await broken.call("GET", "/health", { auth: null });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: Record<string, unknown> };
      expect(body.data).toMatchObject({ status: "degraded", checks: { store: { status: "failed", code: "UPSTREAM_ERROR" }, queue: { status: "ok" } } });
      expect(JSON.stringify(body)).not.toContain("10.1.2.3");
    } finally {
      vi.restoreAllMocks();
      await broken.close();
    }
  });

  it("stays 200 when the store is slow: the check times out and is reported, the answer does not wait for it", async () => {
    const slow = await startTestHost();
    try {
      vi.spyOn(slow.services.stores.accounts, "get").mockImplementation(() => new Promise(() => {}));
      const started = performance.now();
      const res = await slow.call("GET", "/health", { auth: null });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: Record<string, unknown> };
      expect(body.data).toMatchObject({ status: "degraded", checks: { store: { status: "failed", code: "TIMEOUT" } } });
      // The check's own timeout (800 ms), not the store's: a generous bound, not a speed figure.
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      vi.restoreAllMocks();
      await slow.close();
    }
  });

  it("is never shed: answers 200 while the instance is at its bound of requests in progress", async () => {
    const busy = await startTestHost({ env: { MAX_CONCURRENT_REQUESTS: "1" } });
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const authenticate = busy.services.auth.authenticate.bind(busy.services.auth);
      const spy = vi.spyOn(busy.services.auth, "authenticate").mockImplementationOnce(async (header) => {
        await held;
        return authenticate(header);
      });
      const first = busy.call("GET", "/service-accounts");
      await vi.waitFor(() => expect(spy).toHaveBeenCalledTimes(1));
      const shed = await busy.call("GET", "/service-accounts");
      expect(shed.status).toBe(429);
      expect(shed.headers.get("retry-after")).toBe("1");
      expect((await busy.call("GET", "/health", { auth: null })).status).toBe(200);
      release();
      expect((await first).status).toBe(200);
    } finally {
      vi.restoreAllMocks();
      await busy.close();
    }
  });

  it("keeps the last places for callers with nothing in progress: a busy caller is shed there, another caller is served", async () => {
    // A bound of 4 keeps 1 place in reserve.
    const busy = await startTestHost({ env: { MAX_CONCURRENT_REQUESTS: "4" } });
    try {
      const other = await createServiceAccount(busy, { scopes: ["org:service-accounts:read"] });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const authenticate = busy.services.auth.authenticate.bind(busy.services.auth);
      const spy = vi.spyOn(busy.services.auth, "authenticate").mockImplementation(async (header) => {
        if (header === busy.basic(busy.admin.clientId, busy.admin.clientSecret)) await held;
        return authenticate(header);
      });
      const first = [busy.call("GET", "/service-accounts"), busy.call("GET", "/service-accounts"), busy.call("GET", "/service-accounts")];
      await vi.waitFor(() => expect(spy).toHaveBeenCalledTimes(3));
      // The admin has three in progress: its fourth would take the reserved place.
      const shed = await busy.call("GET", "/service-accounts");
      expect(shed.status).toBe(429);
      expect(shed.headers.get("retry-after")).toBe("1");
      // Another caller, with nothing in progress, takes it.
      expect((await busy.call("GET", `/service-accounts/${other.clientId}`, { auth: other })).status).toBe(200);
      release();
      expect((await Promise.all(first)).map((r) => r.status)).toEqual([200, 200, 200]);
    } finally {
      vi.restoreAllMocks();
      await busy.close();
    }
  });
});
