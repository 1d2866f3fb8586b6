import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestHost, type TestHost } from "../support/test-host";
import { admissionOf } from "../../shared/platform/http/admission";

// Every request has a server-side budget (REQUEST_DEADLINE_MS). Past it the caller is answered 504
// TIMEOUT at once, saying whether anything was changed, and a write that has not started by then
// never starts. 1 s here (the least the setting takes); a write needs a quarter of it left to start.
const DEADLINE_MS = 1_000;

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ env: { REQUEST_DEADLINE_MS: String(DEADLINE_MS) } });
});
afterAll(async () => host?.close());
afterEach(() => vi.restoreAllMocks());

async function createServiceAccount(name: string): Promise<string> {
  const res = await host.call("POST", "/service-accounts", { body: { name, organizationalRole: "Member", scopes: ["incidents:read"] } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

async function nameOf(id: string): Promise<string> {
  const res = await host.call("GET", `/service-accounts/${id}`);
  return ((await res.json()) as { data: { name: string } }).data.name;
}

/** Holds the store's reads of one service account for `ms` (the other reads, the caller's own included, go as usual). */
function slowReadsOf(id: string, ms: number) {
  const store = host.services.stores.serviceAccounts;
  const get = store.get.bind(store);
  return vi.spyOn(store, "get").mockImplementation(async (wanted) => {
    if (wanted === id) await sleep(ms);
    return get(wanted);
  });
}

type Problem = { code: string; status: number; commit?: string; detail: string };

describe("the request deadline", () => {
  it("answers 504 TIMEOUT with commit none at the deadline when a read hangs, and the caller's place is given back", async () => {
    const list = vi.spyOn(host.services.stores.serviceAccounts, "list").mockImplementation(() => new Promise(() => {}));
    const started = performance.now();
    const res = await host.call("GET", "/service-accounts");
    const elapsed = performance.now() - started;
    expect(res.status).toBe(504);
    const problem = (await res.json()) as Problem;
    expect(problem).toMatchObject({ code: "TIMEOUT", status: 504, commit: "none" });
    expect(problem.detail).toContain("Nothing was changed");
    // Answered by the deadline, not by the read (which never ends): a bound, not a speed figure.
    expect(elapsed).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(elapsed).toBeLessThan(DEADLINE_MS + 4_000);
    list.mockRestore();
    expect((await host.call("GET", "/service-accounts")).status).toBe(200);
  });

  it.each([
    { case: "a read", method: "GET" as const, headers: {} as Record<string, string> },
    { case: "a creation sent with an Idempotency-Key", method: "POST" as const, headers: { "Idempotency-Key": "deadline-place-held" } },
  ])("holds the caller's place in the instance until the work has really ended, after its 504: $case", async ({ method, headers }) => {
    const admission = admissionOf(host.services);
    // Relative to what is held already: the hung read of the case above never ends, and keeps its place.
    const held = admission.inFlight;
    let release!: () => void;
    const hung = new Promise<void>((resolve) => (release = resolve));
    const store = host.services.stores.serviceAccounts;
    const list = store.list.bind(store);
    const create = store.create.bind(store);
    vi.spyOn(store, "list").mockImplementation(async (...args) => (await hung, list(...args)));
    vi.spyOn(store, "create").mockImplementation(async (...args) => (await hung, create(...args)));
    const body = method === "POST" ? { name: "held", organizationalRole: "Member", scopes: ["incidents:read"] } : undefined;
    const res = await host.call(method, "/service-accounts", { body, headers });
    expect(res.status).toBe(504);
    // Answered, but its work still runs in the instance: its place is still taken.
    expect(admission.inFlight).toBe(held + 1);
    release();
    await vi.waitFor(() => expect(admission.inFlight).toBe(held));
  });

  // The handler goes on after its 504: each case then waits long enough for it to reach its write,
  // which must not happen. Reads that outlast the deadline; reads that end with ~150 ms left, less
  // than the 250 ms reserve a write needs.
  it.each([
    { case: "a change whose read outlasts the deadline", readMs: DEADLINE_MS + 300, thenMs: 600 },
    { case: "a change left with less than its write's reserve", readMs: DEADLINE_MS - 150, thenMs: 300 },
  ])("never writes after a timeout answer: $case is answered 504 commit none and not made", async ({ readMs, thenMs }) => {
    const id = await createServiceAccount("unchanged");
    const replace = vi.spyOn(host.services.stores.serviceAccounts, "replace");
    slowReadsOf(id, readMs);
    const res = await host.call("PUT", `/service-accounts/${id}`, { body: { name: "too late" } });
    expect(res.status).toBe(504);
    expect(((await res.json()) as Problem).commit).toBe("none");
    await sleep(thenMs);
    expect(replace).not.toHaveBeenCalled();
    vi.restoreAllMocks();
    expect(await nameOf(id)).toBe("unchanged");
  });

  it("says in-progress when the deadline passes during a write, which then completes", async () => {
    const id = await createServiceAccount("old name");
    const store = host.services.stores.serviceAccounts;
    const replace = store.replace.bind(store);
    let written = false;
    vi.spyOn(store, "replace").mockImplementation(async (...args) => {
      await sleep(DEADLINE_MS + 200);
      const result = await replace(...args);
      written = true;
      return result;
    });
    const res = await host.call("PUT", `/service-accounts/${id}`, { body: { name: "new name" } });
    expect(res.status).toBe(504);
    const problem = (await res.json()) as Problem;
    expect(problem.commit).toBe("in-progress");
    expect(problem.detail).toContain("read the resource");
    await vi.waitFor(() => expect(written).toBe(true), { timeout: 5_000 });
    vi.restoreAllMocks();
    expect(await nameOf(id)).toBe("new name");
  });

  it("aborts the handler's signal at the deadline, so an upstream call nobody waits for stops", async () => {
    let reason: unknown;
    const sources = host.services.sources;
    const real = sources.gateway.bind(sources);
    vi.spyOn(sources, "gateway").mockImplementation((source) => ({
      ...real(source),
      getIncident: (_workspaceId: string, _incidentId: string, signal?: AbortSignal) =>
        new Promise<never>((_, reject) => {
          signal?.addEventListener("abort", () => {
            reason = signal.reason;
            reject(signal.reason as Error);
          });
        }),
    }));
    const workspaceId = host.demo.workspaces[0]!.id;
    const res = await host.call("GET", `/workspaces/${workspaceId}/incidents/SourceA/INC-1`);
    expect(res.status).toBe(504);
    expect(((await res.json()) as Problem).commit).toBe("none");
    expect(reason).toMatchObject({ code: "TIMEOUT" });
  });
});
