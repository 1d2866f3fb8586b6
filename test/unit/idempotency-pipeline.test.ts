import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createLocalServices } from "../../shared/hosts/local/local-services";
import { seedDemoData } from "../../shared/hosts/local/demo-data";
import { loadConfig } from "../../shared/platform/config/config";
import type { Deadline } from "../../shared/platform/concurrency/deadline";
import { ApiError } from "../../shared/platform/errors/api-error";
import { createPipeline, type ApiRequest } from "../../shared/platform/http/pipeline";
import { organizationRoute } from "../../shared/api/route-kinds";
import type { Logger } from "../../shared/platform/logger";

/*
 * What the pipeline keeps of a keyed request that did not simply succeed: one whose instance died
 * while it ran, one that failed before and one that failed after its change was written.
 */
const quiet = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;

async function harness(handler: (attempt: number, deadline: Deadline) => Promise<void>) {
  let clock = Date.parse("2026-03-05T09:00:00.000Z");
  const config = loadConfig({ LOCAL_ADMIN_CLIENT_SECRET: "soms_" + randomBytes(32).toString("base64url"), REQUEST_DEADLINE_MS: "2000", LOG_LEVEL: "error" });
  const { services } = createLocalServices(config, { logger: quiet, now: () => new Date(clock) });
  const { admin } = await seedDemoData(services);
  let attempts = 0;
  const route = organizationRoute({
    method: "POST",
    path: "/probes",
    summary: "A probe",
    tag: "Probes",
    auth: "org:users:read",
    idempotencyKey: true,
    successStatus: 201,
    async handler(input) {
      await handler(++attempts, input.deadline);
      return { data: { attempt: attempts }, status: 201, headers: { Location: `/probes/${attempts}` } };
    },
  });
  const handle = createPipeline([route], services);
  const authorization = `Basic ${Buffer.from(`${admin.clientId}:${admin.clientSecret}`).toString("base64")}`;
  const send = async (key: string) => {
    const headers: Record<string, string> = { authorization, "content-type": "application/json", "idempotency-key": key };
    const request: ApiRequest = {
      method: "POST",
      path: "/api/v2/probes",
      search: "",
      origin: "http://127.0.0.1",
      header: (name) => headers[name],
      body: async () => Buffer.from("{}"),
      clientAddress: "127.0.0.1",
      signal: new AbortController().signal,
    };
    const { response } = await handle(request);
    return { status: response.status, headers: response.headers, body: response.body === undefined ? undefined : JSON.parse(response.body.toString()) };
  };
  return { send, advance: (ms: number) => (clock += ms), attempts: () => attempts };
}

describe("Idempotency-Key in the pipeline", () => {
  it("a request whose instance died while it held the key is run afresh once its lock (twice the deadline) has passed, and not before", async () => {
    let hang = true;
    const { send, advance, attempts } = await harness(() => (hang ? new Promise(() => {}) : Promise.resolve()));
    // The first never answers in time (504) and never finishes: as if its instance had stopped.
    expect((await send("died")).status).toBe(504);
    hang = false;
    expect(await send("died")).toMatchObject({ status: 409, body: { code: "IDEMPOTENCY_KEY_IN_USE" } });
    advance(4_001);
    const retried = await send("died");
    expect([retried.status, retried.body.data.attempt, attempts()]).toEqual([201, 2, 2]);
    expect((await send("died")).headers["Idempotent-Replayed"]).toBe("true");
  });

  it("a request refused before its change keeps nothing; one that failed after it keeps its problem, so the change is never made twice", async () => {
    const { send, attempts } = await harness(async (attempt, deadline) => {
      if (attempt === 1) throw new ApiError("NOT_FOUND", "Not yet.");
      if (attempt === 2) {
        await deadline.commit(async () => {});
        throw new ApiError("UPSTREAM_ERROR", "Written, then a read failed.");
      }
    });
    expect((await send("refused")).status).toBe(404);
    const failedAfter = await send("refused");
    expect([failedAfter.status, failedAfter.body.code]).toEqual([502, "UPSTREAM_ERROR"]);
    const repeated = await send("refused");
    expect([repeated.status, repeated.body, repeated.headers["Idempotent-Replayed"]]).toEqual([502, failedAfter.body, "true"]);
    expect(attempts()).toBe(2);
  });
});
