import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INVALID_PAGE_TOKEN_MESSAGE } from "../../shared/platform/errors/api-error";
import { ACROSS_WORKSPACES_MAX_BODY_BYTES, LAST_MODIFIED_CAP, LISTING_PAGE_TARGET, MAX_LISTED_WORKSPACES } from "../../shared/domain/incidents/cross-workspace-listing";
import { sources } from "../../shared/model/sources";
import { vendorCount } from "../support/vendor-count";
import { createServiceAccount, startTestHost, storeKind, type TestHost } from "../support/test-host";
import { json, type Json } from "../support/json";

// A controllable clock: the simulated vendors and the service read the same one.
let clock = Date.parse("2026-11-20T12:00:00.000Z");
const now = () => new Date(clock);

let host: TestHost;
let caller: { clientId: string; clientSecret: string };
let mapped: string[];
beforeAll(async () => {
  host = await startTestHost({ now, env: { SIMULATED_INCIDENTS_PER_WORKSPACE: "120" } });
  mapped = [host.demo.workspaces[0]!.id, host.demo.workspaces[2]!.id];
  caller = await createServiceAccount(host, {
    workspaceAssignments: mapped.map((workspaceId) => ({ workspaceId, role: "Analyst" })),
    scopes: ["incidents:read", "incidents:write"],
  });
});
afterAll(async () => host?.close());

const list = (body: Json, auth: { clientId: string; clientSecret: string } | undefined = caller) =>
  host.call("POST", "/incidents/across-workspaces", { body, auth });

/** Pages through a listing the way the contract says, returning every incident and the number of calls. */
async function pageThrough(first: Json) {
  const seen: Json[] = [];
  let body = await json(await list({ ...first, isFirstCall: true, workspacePageTokens: [] }));
  let calls = 1;
  for (;;) {
    expect(body.data).toBeDefined();
    expect(body.data.incidents.length).toBeLessThanOrEqual(LISTING_PAGE_TARGET);
    seen.push(...body.data.incidents);
    if (!body.data.moreIncidentsAvailable) {
      expect(body.data.sourcePageTokens).toEqual([]);
      return { seen, calls };
    }
    body = await json(await list({ ...first, isFirstCall: false, workspacePageTokens: body.data.sourcePageTokens }));
    calls++;
  }
}


/** Adds a page's incidents to those seen (workspace/source/id); returns how many were seen already. */
function addSeen(seen: Set<string>, incidents: Json[]): number {
  let repeated = 0;
  for (const i of incidents) {
    const key = `${i.incident.workspaceId}/${i.source}/${i.incident.id}`;
    if (seen.has(key)) repeated++;
    seen.add(key);
  }
  return repeated;
}
describe("POST /incidents/across-workspaces", () => {
  it("pages through every incident of the mapped workspaces exactly once, and only theirs", async () => {
    const { seen, calls } = await pageThrough({});
    let expected = 0;
    for (const w of mapped) for (const s of sources) expected += await vendorCount(host.services, w, s, clock);
    expect(expected).toBeGreaterThan(0);
    expect(seen.length).toBe(expected);
    expect(new Set(seen.map((i) => `${i.incident.workspaceId}/${i.source}/${i.incident.id}`)).size).toBe(expected);
    expect(new Set(seen.map((i) => i.incident.workspaceId))).toEqual(new Set(mapped));
    expect(calls).toBeGreaterThan(1);
  });

  it("a finished workspace/source drops out of the tokens; the tokens name only mapped workspaces", async () => {
    const first = await json(await list({ isFirstCall: true, workspacePageTokens: [], sources: ["SourceG"] }));
    for (const entry of first.data.sourcePageTokens) {
      expect(mapped).toContain(entry.workspaceId);
      expect(Object.keys(entry.sourceTokens)).toEqual(["SourceG"]);
    }
  });

  it("filters by severity, status, source, text and assignee", async () => {
    const { seen } = await pageThrough({ severities: ["High"], statuses: ["New", "Active"], sources: ["sourcea", "SourceB"] });
    expect(seen.length).toBeGreaterThan(0);
    for (const i of seen) {
      expect(i.incident.severity).toBe("High");
      expect(["New", "Active"]).toContain(i.incident.status);
      expect(["SourceA", "SourceB"]).toContain(i.source);
    }
    const email = "filter.target@contoso-mssp.example";
    const target = host.simulated.vendors.createIncident("SourceB", mapped[0]!, { title: "Quasar exfiltration beacon", severity: "Low" });
    expect((await host.call("PUT", `/workspaces/${mapped[0]}/incidents/SourceB/${target.id}/assignee`, { body: { userId: null, email } })).status).toBe(204);
    const byText = await pageThrough({ query: "quasar exfiltration" });
    expect(byText.seen.map((i) => i.incident.id)).toEqual([target.id]);
    const byAssignee = await pageThrough({ assigneeEmails: [email.toUpperCase()] });
    expect(byAssignee.seen.map((i) => i.incident.id)).toEqual([target.id]);
    expect(byAssignee.seen[0]!.assignee.email).toBe(email);
    const unassigned = await pageThrough({ includeUnassigned: true, sources: ["SourceB"] });
    expect(unassigned.seen.every((i) => i.assignee === null)).toBe(true);
  });

  it("bounds the creation time with the relative and Custom windows", async () => {
    const { seen } = await pageThrough({ timeFilterSelection: { type: "FortyEightHours" } });
    for (const i of seen) expect(Date.parse(i.incident.createdAt)).toBeGreaterThanOrEqual(clock - 48 * 3600_000);
    const start = new Date(clock - 10 * 24 * 3600_000).toISOString();
    const end = new Date(clock - 5 * 24 * 3600_000).toISOString();
    const custom = await pageThrough({ timeFilterSelection: { type: "Custom", customStartUtc: start, customEndUtc: end } });
    expect(custom.seen.length).toBeGreaterThan(0);
    for (const i of custom.seen) {
      expect(i.incident.createdAt >= start && i.incident.createdAt < end).toBe(true);
    }
  });

  it("rejects bad bodies with 400 VALIDATION_ERROR naming the field", async () => {
    const cases: [Json, string | string[]][] = [
      [{ isFirstCall: true, timeFilterSelection: { type: "SevenDays" } }, "timeFilterSelection.type"],
      [{ isFirstCall: true, timeFilterSelection: { type: "Custom" } }, ["timeFilterSelection.customStartUtc", "timeFilterSelection.customEndUtc"]],
      [{ isFirstCall: true, timeFilterSelection: { type: "Custom", customStartUtc: "2026-01-02T00:00:00Z", customEndUtc: "2026-01-01T00:00:00Z" } }, "timeFilterSelection.customEndUtc"],
      [{ isFirstCall: true, filterByLastModified: true, sources: ["SourceA", "SourceC"] }, "sources"],
      [{ isFirstCall: true, sources: ["SourceX"] }, "sources[0]"],
      [{ isFirstCall: true, workspacePageTokens: [{ workspaceId: mapped[0], sourceTokens: { SourceA: "x" } }] }, "workspacePageTokens"],
      [{ isFirstCall: false, workspacePageTokens: [] }, "workspacePageTokens"],
      [{ isFirstCall: true, pageSize: 10 }, "pageSize"],
      // Required: no default could tell a first call from a client that lost its tokens.
      [{ workspacePageTokens: [] }, "isFirstCall"],
    ];
    for (const [body, field] of cases) {
      const problem = await json(await list(body));
      expect([JSON.stringify(body), problem.code, Object.keys(problem.errors ?? {})]).toEqual([JSON.stringify(body), "VALIDATION_ERROR", [field].flat()]);
    }
  });

  it("a modified, hand-built, foreign or misplaced token is 400 with the fixed message", async () => {
    const first = await json(await list({ isFirstCall: true, workspacePageTokens: [] }));
    const tokens = first.data.sourcePageTokens as Json[];
    expect(tokens.length).toBeGreaterThan(0);
    const [entry] = tokens as [Json];
    const [source, token] = Object.entries(entry.sourceTokens)[0] as [string, string];
    const variants: Json[][] = [
      [{ workspaceId: entry.workspaceId, sourceTokens: { [source]: token.slice(0, -2) + (token.endsWith("A") ? "BB" : "AA") } }],
      [{ workspaceId: entry.workspaceId, sourceTokens: { [source]: Buffer.from(JSON.stringify({ w: entry.workspaceId, s: source, k: "0" })).toString("base64url") } }],
      [{ workspaceId: mapped.find((w) => w !== entry.workspaceId), sourceTokens: { [source]: token } }],
      [{ workspaceId: entry.workspaceId, sourceTokens: { [source === "SourceA" ? "SourceB" : "SourceA"]: token } }],
    ];
    for (const workspacePageTokens of variants) {
      const problem = await json(await list({ isFirstCall: false, workspacePageTokens }));
      expect(problem.code).toBe("VALIDATION_ERROR");
      expect(problem.detail).toBe(INVALID_PAGE_TOKEN_MESSAGE);
    }
    // Last-modified mode issues no tokens: any token sent with it is not one of ours.
    expect((await json(await list({ isFirstCall: false, filterByLastModified: true, workspacePageTokens: tokens }))).detail).toBe(INVALID_PAGE_TOKEN_MESSAGE);
    // Replayed with other filters, or by another credential.
    expect((await json(await list({ isFirstCall: false, workspacePageTokens: tokens, severities: ["Low"] }))).detail).toBe(INVALID_PAGE_TOKEN_MESSAGE);
    const stranger = await createServiceAccount(host, { workspaceAssignments: mapped.map((workspaceId) => ({ workspaceId, role: "Analyst" })), scopes: ["incidents:read"] });
    expect((await json(await list({ isFirstCall: false, workspacePageTokens: tokens }, stranger))).detail).toBe(INVALID_PAGE_TOKEN_MESSAGE);
  });

  it("needs incidents:read", async () => {
    const sa = await createServiceAccount(host, { workspaceAssignments: [{ workspaceId: mapped[0], role: "Analyst" }], scopes: ["gamebooks:read"] });
    expect((await json(await list({ isFirstCall: true }, sa))).code).toBe("INSUFFICIENT_SCOPE");
  });
});

describe("filterByLastModified", () => {
  it("defaults to SourceA and SourceB, bounds lastModificationTime and orders by it, newest first", async () => {
    const start = new Date(clock - 3 * 24 * 3600_000).toISOString();
    const end = new Date(clock + 1000).toISOString();
    const body = await json(await list({ isFirstCall: true, filterByLastModified: true, timeFilterSelection: { type: "Custom", customStartUtc: start, customEndUtc: end } }));
    const { incidents, sourcePageTokens, moreIncidentsAvailable } = body.data;
    expect(moreIncidentsAvailable).toBe(false);
    expect(sourcePageTokens).toEqual([]);
    expect(incidents.length).toBeGreaterThan(0);
    expect(new Set(incidents.map((i: Json) => i.source))).toEqual(new Set(["SourceA", "SourceB"]));
    const times = incidents.map((i: Json) => i.lastModificationTime);
    expect([...times].sort().reverse()).toEqual(times);
    for (const t of times) expect(t >= start && t < end).toBe(true);
  });

  it("an incident created inside a bounded window and modified after its end matches the creation-time query only", async () => {
    const windowStart = new Date(clock).toISOString();
    clock += 60_000;
    const incident = host.simulated.vendors.createIncident("SourceA", mapped[1]!, { title: "Created in the window", severity: "Medium" });
    clock += 60_000;
    const windowEnd = new Date(clock).toISOString();
    clock += 60_000;
    expect((await host.call("PUT", `/workspaces/${mapped[1]}/incidents/SourceA/${incident.id}/status`, { auth: caller, body: { status: "Active" } })).status).toBe(204);

    const window = { type: "Custom", customStartUtc: windowStart, customEndUtc: windowEnd };
    const ids = (b: Json) => b.data.incidents.map((i: Json) => i.incident.id);
    const byLastModified = await json(await list({ isFirstCall: true, filterByLastModified: true, timeFilterSelection: window }));
    expect(ids(byLastModified)).not.toContain(incident.id);
    const byCreation = await pageThrough({ timeFilterSelection: window });
    expect(byCreation.seen.map((i) => i.incident.id)).toContain(incident.id);
    // The incident is returned as it is now.
    const later = await json(await list({ isFirstCall: true, filterByLastModified: true, timeFilterSelection: { type: "ThreeHours" } }));
    expect(later.data.incidents.find((i: Json) => i.incident.id === incident.id)?.incident.status).toBe("Active");
  });
});

describe("many workspaces, many incidents", () => {
  let big: TestHost;
  beforeAll(async () => {
    big = await startTestHost({ env: { SIMULATED_INCIDENTS_PER_WORKSPACE: "4000", DEMO_WORKSPACES: "8" } });
  });
  afterAll(async () => big?.close());

  it("with more streams than a page can serve, pages stay at the target size and every incident comes once", async () => {
    const seen = new Set<string>();
    let body = await json(await big.call("POST", "/incidents/across-workspaces", { body: { isFirstCall: true, workspacePageTokens: [] } }));
    // 8 workspaces x 7 sources: every stream has a token from the first call, served or waiting.
    expect(body.data.sourcePageTokens.flatMap((e: Json) => Object.keys(e.sourceTokens)).length).toBe(8 * sources.length);
    for (;;) {
      expect(body.data.incidents.length).toBeLessThanOrEqual(LISTING_PAGE_TARGET);
      for (const i of body.data.incidents) seen.add(`${i.incident.workspaceId}/${i.source}/${i.incident.id}`);
      if (!body.data.moreIncidentsAvailable) break;
      body = await json(await big.call("POST", "/incidents/across-workspaces", { body: { isFirstCall: false, workspacePageTokens: body.data.sourcePageTokens } }));
    }
    expect(seen.size).toBe(8 * 4000);
  }, 120_000);

  it("a tampered token of a started stream waiting for a later page comes back untouched, and is refused with the fixed text when its turn comes", async () => {
    const call = (body: Json) => big.call("POST", "/incidents/across-workspaces", { body });
    const first = await json(await call({ isFirstCall: true, workspacePageTokens: [] }));
    // 56 streams: the first page started 40 (now at the back); the second serves the 16 unstarted and 24 of them.
    const tokens: Json[] = structuredClone(first.data.sourcePageTokens);
    const streams = tokens.flatMap((e) => Object.keys(e.sourceTokens).map((source) => ({ entry: e, source })));
    const { entry, source } = streams[40]!;
    const token = entry.sourceTokens[source] as string;
    expect(token.startsWith("~")).toBe(false);
    const tampered = token.slice(0, -3) + (token.endsWith("AAA") ? "BBB" : "AAA");
    entry.sourceTokens[source] = tampered;
    const second = await json(await call({ isFirstCall: false, workspacePageTokens: tokens }));
    const handedBack = second.data.sourcePageTokens[0];
    expect([handedBack.workspaceId, Object.keys(handedBack.sourceTokens)[0]]).toEqual([entry.workspaceId, source]);
    expect(handedBack.sourceTokens[source]).toBe(tampered);
    // Served first next time, as a waiting stream is: there it is read, and refused.
    const third = await call({ isFirstCall: false, workspacePageTokens: second.data.sourcePageTokens });
    expect(third.status).toBe(400);
    expect((await json(third)).detail).toBe(INVALID_PAGE_TOKEN_MESSAGE);
  });

  it("a window beyond the cap returns the cap per workspace and says to narrow it", async () => {
    const body = await json(await big.call("POST", "/incidents/across-workspaces", { body: { isFirstCall: true, filterByLastModified: true } }));
    expect(body.data.moreIncidentsAvailable).toBe(true);
    const perWorkspace = new Map<string, number>();
    for (const i of body.data.incidents) perWorkspace.set(i.incident.workspaceId, (perWorkspace.get(i.incident.workspaceId) ?? 0) + 1);
    expect(Math.max(...perWorkspace.values())).toBe(LAST_MODIFIED_CAP);
  });
});

/*
 * The listing at scale: 500 and 1,000 workspaces, 20,000 incidents. What is measured here is the
 * listing's own work (tokens, pages, body sizes), the same on either store: the incidents are the
 * simulated vendors', and the store is read for the mapped workspaces once a call. So these run on the
 * memory store only, where seeding 1,000 workspaces takes seconds; on the Cosmos-protocol server it is
 * 1,000 audited catalogue commits (over two minutes on a 2-core machine) and tests nothing more. The
 * Cosmos project keeps the cases above, which read the adapter: paging, partial results, tokens.
 */
const atScale = describe.runIf(storeKind === "memory");

atScale("a managed security provider's size: 1,000 workspaces", () => {
  let provider: TestHost;
  beforeAll(async () => {
    provider = await startTestHost({ env: { DEMO_WORKSPACES: "1000", SIMULATED_INCIDENTS_PER_WORKSPACE: "20" } });
  });
  afterAll(async () => provider?.close());
  const call = (body: Json) => provider.call("POST", "/incidents/across-workspaces", { body });

  it("hands out compact tokens: on average at most 64 characters, the whole first set well under 600 KB", async () => {
    const first = await json(await call({ isFirstCall: true, workspacePageTokens: [] }));
    const tokens = first.data.sourcePageTokens.flatMap((e: Json) => Object.values(e.sourceTokens) as string[]);
    // Every stream has one, but for the few the first page served to their end.
    expect(tokens.length).toBeGreaterThan(1000 * sources.length - 40);
    const average = tokens.reduce((n: number, t: string) => n + t.length, 0) / tokens.length;
    expect(average).toBeLessThanOrEqual(64);
    expect(JSON.stringify(first.data.sourcePageTokens).length).toBeLessThan(600_000);
  });

  it("pages through every one of the 20,000 incidents exactly once, each call reading and re-signing only the tokens it serves", async () => {
    const seen = new Set<string>();
    let duplicates = 0;
    let body = await json(await call({ isFirstCall: true, workspacePageTokens: [] }));
    let calls = 1;
    for (;;) {
      duplicates += addSeen(seen, body.data.incidents);
      if (!body.data.moreIncidentsAvailable) break;
      const sent: Json[] = body.data.sourcePageTokens;
      const sentTokens = new Set(sent.flatMap((e) => Object.values(e.sourceTokens) as string[]));
      body = await json(await call({ isFirstCall: false, workspacePageTokens: sent }));
      calls++;
      // The streams a call did not serve come back with their tokens untouched: it signed only what it served.
      const back = body.data.sourcePageTokens.flatMap((e: Json) => Object.values(e.sourceTokens) as string[]);
      const reissued = back.filter((t: string) => !sentTokens.has(t)).length;
      // The streams it served, and the unstarted streams' anchor, signed over the new set of them.
      expect(reissued).toBeLessThanOrEqual(41);
    }
    expect(duplicates).toBe(0);
    expect(seen.size).toBe(1000 * 20);
    expect(calls).toBeGreaterThan(100);
  }, 120_000);

  it("accepts back the most tokens a request may carry (10,000 workspaces x 7 sources, every stream started); a larger body is 413", async () => {
    const first = await json(await call({ isFirstCall: true, workspacePageTokens: [] }));
    const issued: Json[] = first.data.sourcePageTokens;
    // Started streams carry a vendor cursor too: take the longest tokens the service issued.
    const second = await json(await call({ isFirstCall: false, workspacePageTokens: issued }));
    const longest = [...second.data.sourcePageTokens.flatMap((e: Json) => Object.values(e.sourceTokens) as string[])].sort((a, b) => b.length - a.length)[0]!;
    const full = Object.fromEntries(sources.map((s) => [s, longest]));
    // The 1,000 workspaces' own tokens, then 9,000 more workspaces with seven tokens of the longest
    // length each: workspaces the caller is not mapped to are left out once their places are checked,
    // so this is the largest body a listing can take back, and it must be taken.
    const filler = Array.from({ length: MAX_LISTED_WORKSPACES - issued.length }, (_, i) => ({ workspaceId: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, sourceTokens: full }));
    const maximum = { isFirstCall: false, workspacePageTokens: [...issued, ...filler] };
    const maximumBytes = Buffer.byteLength(JSON.stringify(maximum));
    expect(maximumBytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(maximumBytes).toBeLessThan(ACROSS_WORKSPACES_MAX_BODY_BYTES);
    const accepted = await call(maximum);
    expect(accepted.status).toBe(200);
    expect((await json(accepted)).data.incidents.length).toBeGreaterThan(0);
    const padded = { ...maximum, query: "x", workspacePageTokens: [...maximum.workspacePageTokens, ...filler.slice(0, 10_000 - maximum.workspacePageTokens.length)] };
    const tooLarge = await provider.call("POST", "/incidents/across-workspaces", { body: JSON.stringify(padded).padEnd(ACROSS_WORKSPACES_MAX_BODY_BYTES + 1024 * 1024, " ") });
    expect(tooLarge.status).toBe(413);
    expect(await json(tooLarge)).toMatchObject({ code: "BAD_REQUEST", status: 413 });
  });

  it("a tampered mark of an unstarted stream is refused at once with the fixed text: the anchor names every unstarted stream", async () => {
    const first = await json(await call({ isFirstCall: true, workspacePageTokens: [] }));
    const tokens: Json[] = structuredClone(first.data.sourcePageTokens);
    const streams = tokens.flatMap((e) => Object.keys(e.sourceTokens).map((source) => ({ entry: e, source })));
    const { entry, source } = streams[40]!;
    expect(entry.sourceTokens[source]).toBe("~");
    entry.sourceTokens[source] = "AAA";
    const second = await call({ isFirstCall: false, workspacePageTokens: tokens });
    expect(second.status).toBe(400);
    expect((await json(second)).detail).toBe(INVALID_PAGE_TOKEN_MESSAGE);
  });
});

atScale("unstarted streams at a few thousand streams: 500 workspaces x 7 sources", () => {
  let many: TestHost;
  beforeAll(async () => {
    many = await startTestHost({ env: { DEMO_WORKSPACES: "500", SIMULATED_INCIDENTS_PER_WORKSPACE: "2" } });
  });
  afterAll(async () => many?.close());
  const call = (body: Json) => many.call("POST", "/incidents/across-workspaces", { body });
  const streamsOf = (entries: Json[]) => entries.flatMap((e) => Object.entries(e.sourceTokens as Record<string, string>).map(([source, token]) => ({ stream: `${e.workspaceId}/${source}`, token })));

  it("an unstarted stream's token is one character; one of them, the anchor, carries the first call's time, signed", async () => {
    const first = await json(await call({ isFirstCall: true, workspacePageTokens: [] }));
    const streams = streamsOf(first.data.sourcePageTokens);
    // Every stream but those the first page served to their end.
    expect(streams.length).toBeGreaterThanOrEqual(500 * sources.length - 40);
    const marks = streams.filter((s) => s.token === "~");
    const anchors = streams.filter((s) => s.token.startsWith("~") && s.token !== "~");
    expect(anchors).toHaveLength(1);
    expect(anchors[0]!.token.length).toBeLessThanOrEqual(48);
    expect(marks.length + anchors.length).toBe(500 * sources.length - 40);
    // The body that sends them back: the contract's shape (171 bytes a workspace of seven marks) and little else.
    const sentBack = Buffer.byteLength(JSON.stringify({ isFirstCall: false, workspacePageTokens: first.data.sourcePageTokens }));
    expect(sentBack).toBeLessThan(500 * 171 + 40 * 80);
  });

  it("pages to the end with every incident once, each call under the first call's body; a mark added for a finished stream is refused", async () => {
    const seen = new Set<string>();
    let duplicates = 0;
    let body = await json(await call({ isFirstCall: true, workspacePageTokens: [] }));
    let calls = 1;
    let largest = 0;
    let tried = false;
    for (;;) {
      duplicates += addSeen(seen, body.data.incidents);
      if (!body.data.moreIncidentsAvailable) break;
      const sent: Json[] = body.data.sourcePageTokens;
      if (!tried && calls === 2) {
        // A stream the first page served to its end, given a mark again: not one the service issued.
        const open = new Set(streamsOf(sent).map((s) => s.stream));
        const entry = sent.find((e) => sources.some((s) => !open.has(`${e.workspaceId}/${s}`)))!;
        const source = sources.find((s) => !open.has(`${entry.workspaceId}/${s}`))!;
        const forged = structuredClone(sent);
        forged.find((e) => e.workspaceId === entry.workspaceId)!.sourceTokens[source] = "~";
        const refused = await call({ isFirstCall: false, workspacePageTokens: forged });
        expect(refused.status).toBe(400);
        expect((await json(refused)).detail).toBe(INVALID_PAGE_TOKEN_MESSAGE);
        tried = true;
      }
      largest = Math.max(largest, Buffer.byteLength(JSON.stringify({ isFirstCall: false, workspacePageTokens: sent })));
      body = await json(await call({ isFirstCall: false, workspacePageTokens: sent }));
      calls++;
    }
    expect(tried).toBe(true);
    expect(duplicates).toBe(0);
    expect(seen.size).toBe(500 * 2);
    // 3,500 streams, 40 a call: every stream served once.
    expect(calls).toBe(Math.ceil((500 * sources.length) / 40));
    expect(largest).toBeLessThan(500 * 171 + 40 * 80);
  });
});
