import { runInNewContext } from "node:vm";
import { setFlagsFromString } from "node:v8";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scopes } from "../../shared/platform/auth/scopes";
import { categories, caseArbitrary, type CaseContext, type Category } from "../support/fuzz/cases";
import { harvestValues } from "../support/fuzz/harvest";
import { operationsOf, resolverOf, type OpenApiDocument, type Operation } from "../support/fuzz/operations";
import { valueOf } from "../support/fuzz/schema-arbitrary";
import { judge, send, type Verdict } from "../support/fuzz/send";
import { OpenApiResponseCheck } from "../support/openapi-check";
import { createServiceAccount, startTestHost, type TestHost } from "../support/test-host";

/**
 * The fuzz suite: requests generated from the served OpenAPI document (every operation, so a new
 * endpoint is covered without a new case), broken in one way each (see `categories`). Every answer
 * must be a 2xx or a 4xx problem document with a contract code and a matching status, as the
 * document says; never a 5xx, never a dropped connection. Seeded: FUZZ_SEED replays a run,
 * FUZZ_PATH one case of it, FUZZ_RUNS sets the number of cases.
 */
const DEFAULT_SEED = 20_261_123;
const seed = Number(process.env.FUZZ_SEED ?? DEFAULT_SEED);
const runs = Number(process.env.FUZZ_RUNS ?? 5_000);
const replayPath = process.env.FUZZ_PATH || undefined;
/** Heap growth allowed between the first fifth of the run and its end, after garbage collection. */
const MAX_HEAP_GROWTH_BYTES = 64 * 1024 * 1024;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

let host: TestHost;
let origin: string;
let operations: Operation[];
let ctx: CaseContext;
let contract: OpenApiResponseCheck;

beforeAll(async () => {
  // Webhook test events go nowhere here: keep each attempt short.
  host = await startTestHost({ env: { WEBHOOK_TIMEOUT_MS: "1000", LOG_LEVEL: "error" } });
  origin = new URL(host.base).origin;
  const doc = (await (await host.call("GET", "/openapi.json", { auth: null })).json()) as OpenApiDocument;
  operations = operationsOf(doc);
  contract = new OpenApiResponseCheck(doc);
  // The suite's own account may do everything; its ids are kept out of the values it aims at, so no
  // case can revoke, disable or delete it.
  const fuzzer = await createServiceAccount(host, {
    scopes,
    organizationalRole: "Admin",
    workspaceAssignments: host.demo.workspaces.map((w) => ({ workspaceId: w.id, role: "Owner" })),
  });
  const authorization = host.basic(fuzzer.clientId, fuzzer.clientSecret);
  // The suite's own person, for the portal's operations: an Admin who owns every demo workspace.
  const person = await host.person({ organizationalRole: "Admin", workspaceAssignments: host.demo.workspaces.map((w) => ({ workspaceId: w.id, role: "Owner" })) });
  const exclude = new Set([fuzzer.clientId, person.userId, ...(fuzzer.data.credentials as { id: string }[]).map((c) => c.id)].map((v) => v.toLowerCase()));
  const credentialsFor = (path: string): Record<string, string> => (path.startsWith("/api/v2/portal/") ? { ...person.headers } : { authorization });
  const schemaCtx = { resolve: resolverOf(doc), pool: new Map<string, string[]>() };
  const pool = await harvestValues(
    operations,
    async (method, path, body) => {
      const res = await fetch(origin + path, {
        method,
        headers: { ...credentialsFor(path), ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return res.ok && res.headers.get("content-type")?.includes("json") ? res.json() : undefined;
    },
    exclude,
    (op: Operation) => [
      ...fc.sample(valueOf(op.body, { ...schemaCtx, minimal: true }), { seed, numRuns: 6 }),
      ...fc.sample(valueOf(op.body, schemaCtx), { seed, numRuns: 6 }),
    ],
  );
  ctx = { resolve: schemaCtx.resolve, pool, authorization, session: person.headers };
}, 120_000);
afterAll(() => host?.close());

describe("fuzz suite generated from the OpenAPI document", () => {
  it(`answers ${runs} generated malformed requests over every operation with 2xx or a contract problem, never 5xx or a dropped connection`, async () => {
    const started = performance.now();
    const verdicts = new Map<Verdict, number>();
    const byCategory = new Map<Category, number>(categories.map((c) => [c, 0]));
    const byOperation = new Map<string, number>(operations.map((o) => [`${o.method} ${o.template}`, 0]));
    const statuses = new Map<number, number>();
    const checkpointAt = Math.floor(runs / 5);
    let heapAtCheckpoint: number | undefined;
    let cases = 0;

    const property = fc.asyncProperty(caseArbitrary(operations, ctx), async ({ operation, plan }) => {
      if (cases === checkpointAt) heapAtCheckpoint = heapUsed();
      cases += 1;
      byCategory.set(plan.category, (byCategory.get(plan.category) ?? 0) + 1);
      byOperation.set(operation, (byOperation.get(operation) ?? 0) + 1);
      const outcome = await send(origin, plan);
      if (outcome.kind === "answer") statuses.set(outcome.answer.status, (statuses.get(outcome.answer.status) ?? 0) + 1);
      const { verdict, detail } = judge(plan, outcome, contract);
      verdicts.set(verdict, (verdicts.get(verdict) ?? 0) + 1);
      if (verdict !== "ok") throw new Error(`${verdict} for ${operation} (${plan.category}): ${detail}`);
    });

    try {
      await fc.assert(property, { seed, numRuns: runs, path: replayPath, endOnFailure: true });
    } catch (error) {
      throw new Error(`Fuzz case failed. Replay: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} npx vitest run --project robustness test/robustness/fuzz.test.ts (add FUZZ_PATH from the report below for this case alone)\n${(error as Error).message}`, { cause: error });
    } finally {
      const summary = {
        seed,
        operations: operations.length,
        cases,
        seconds: Math.round((performance.now() - started) / 100) / 10,
        "5xx": verdicts.get("5xx") ?? 0,
        dropped: verdicts.get("dropped") ?? 0,
        nonProblem4xx: verdicts.get("non-problem-4xx") ?? 0,
        undocumented: verdicts.get("undocumented") ?? 0,
        statuses: Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])),
        categories: Object.fromEntries(byCategory),
      };
      console.log(`fuzz summary ${JSON.stringify(summary)}`);
    }

    // The host is alive and answers normally, and its memory has not grown without bound.
    expect((await host.call("GET", "/openapi.json", { auth: null })).status).toBe(200);
    const list = await fetch(`${host.base}/service-accounts?pageSize=1`, { headers: { authorization: ctx.authorization } });
    expect(list.status).toBe(200);
    if (heapAtCheckpoint !== undefined) {
      const growth = heapUsed() - heapAtCheckpoint;
      console.log(`fuzz heap growth after case ${checkpointAt}: ${Math.round(growth / 1024 / 1024)} MiB`);
      expect(growth).toBeLessThan(MAX_HEAP_GROWTH_BYTES);
    }
    if (replayPath === undefined && runs >= 1_000) {
      // Every operation and every category was exercised.
      for (const [operation, n] of byOperation) expect(n, operation).toBeGreaterThan(0);
      for (const [category, n] of byCategory) expect(n, category).toBeGreaterThan(0);
    }
  });
});
