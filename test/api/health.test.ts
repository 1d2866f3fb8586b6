import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../shared/platform/errors/api-error";
import { startTestHost, type TestHost } from "../support/test-host";

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(async () => host?.close());

describe("GET /health", () => {
  it("answers without credentials: up, store and queue reachable", async () => {
    const res = await host.call("GET", "/health", { auth: null });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
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

  it("answers 502 UPSTREAM_ERROR naming the failed check when the store is unreachable, with no upstream detail", async () => {
    // A host of its own: the first host's answer is cached for 5 s.
    const broken = await startTestHost();
    try {
      vi.spyOn(broken.services.stores.accounts, "get").mockRejectedValue(
        new ApiError("UPSTREAM_ERROR", "The store is unavailable.", { cause: new Error("connect ECONNREFUSED 10.1.2.3:443") }),
      );
      const res = await broken.call("GET", "/health", { auth: null });
      expect(res.status).toBe(502);
      const problem = (await res.json()) as Record<string, unknown>;
      expect(problem).toMatchObject({ code: "UPSTREAM_ERROR", detail: "Health check failed: store (UPSTREAM_ERROR)." });
      expect(JSON.stringify(problem)).not.toContain("10.1.2.3");
    } finally {
      vi.restoreAllMocks();
      await broken.close();
    }
  });
});
