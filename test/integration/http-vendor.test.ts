import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ApiError } from "../../shared/platform/errors/api-error";
import { createHttpVendorGateway, type HttpVendorOptions } from "../../shared/systems/vendors/http/http-vendor";
import type { NewVendorComment } from "../../shared/systems/vendors/port";
import type { VendorComment, VendorIncident } from "../../shared/model/incidents/incident";
import { apiErrorOf } from "../support/api-error-of";
import { sendJson, startFakeHttpServer, type FakeHandler, type FakeHttpServer } from "../support/fake-http-server";

// A fake bridge on node:http: the adapter's real fetch goes over a real socket, so encoding, headers,
// timeouts and aborts are exercised as they happen in production.

const AUTH = "Bearer s3cr3t-bridge-token";
const LEAK = "internal-db-password-hunter2"; // in every error body the fake bridge sends
const WS = "ws 1/ü"; // needs encoding in a path segment
const INC = "INC/42+?";

let fake: FakeHttpServer;
let base: string;
const seen: ApiError[] = [];

function incident(workspaceId: string, id: string, extra: Partial<VendorIncident> = {}): VendorIncident {
  return {
    id,
    source: "SourceA",
    workspaceId,
    number: 42,
    title: "Suspicious sign-in",
    description: "Impossible travel",
    severity: "High",
    status: "New",
    classification: null,
    closingComment: null,
    owner: null,
    createdAt: "2024-05-01T10:00:00.000Z",
    lastModificationTime: "2024-05-01T11:00:00.000Z",
    lastActivityTime: "2024-05-01T10:30:00.000Z",
    entities: [{ id: "e1", kind: "Account", name: "ann@example.com", properties: { domain: "example.com", risky: true } }],
    alerts: [
      {
        id: "a1",
        title: "Sign-in from new country",
        severity: "High",
        timeGenerated: "2024-05-01T10:30:00.000Z",
        productName: "IdP",
        tactics: ["InitialAccess"],
        entityIds: ["e1"],
      },
    ],
    gamebookCatalog: { isolate: { name: "Isolate host" } },
    vendorIdentifiers: { sourceA: { incidentId: id, incidentUrl: `https://vendor.example/${id}` } },
    ...extra,
  };
}

const comment: VendorComment = {
  id: "c1",
  message: "Looking into it",
  createdTime: "2024-05-01T12:00:00.000Z",
  authorEmail: "ann@example.com",
  authorName: "Ann",
  isActivityComment: false,
  isAgentComment: false,
  agentName: null,
  isClosingComment: false,
  ticketNoteId: null,
  ticketId: null,
  extensionId: null,
};

const evidence = {
  rows: [{ id: "r1", entityId: "e1", kind: "SignIn", verdict: "Suspicious", detail: "new ASN", collectedAt: "2024-05-01T10:31:00.000Z" }],
};


/** The bridge's routes, with a fixed data set. Segments are decoded as a bridge would decode them. */
function route(req: IncomingMessage, res: ServerResponse, body: string) {
  if (req.headers.authorization !== AUTH) return sendJson(res, 401, { error: LEAK });
  const url = new URL(req.url ?? "/", "http://bridge");
  const parts = url.pathname.split("/").slice(1).map(decodeURIComponent);
  const [b1, b2, w, ws, kind, id, sub, subId] = parts;
  if (b1 !== "bridge" || b2 !== "source-a" || w !== "workspaces" || ws === undefined) return sendJson(res, 404, {});
  const key = `${req.method} ${kind}${id === undefined ? "" : "/:id"}${sub === undefined ? "" : `/${sub}`}${subId === undefined ? "" : "/:id"}`;
  switch (key) {
    case "GET incidents/:id":
      return sendJson(res, 200, incident(ws, id!, { createdAt: "2024-05-01T10:00:00Z" }));
    case "GET incidents": {
      const first = !url.searchParams.has("cursor");
      const items = first ? [incident(ws, "1"), incident(ws, "2")] : [incident(ws, "3")];
      return sendJson(res, 200, first ? { items, cursor: "page 2+/=" } : { items, cursor: null });
    }
    case "PUT incidents/:id/status":
      return sendJson(res, 200, incident(ws, id!, JSON.parse(body) as Partial<VendorIncident>));
    case "PUT incidents/:id/owner":
      return sendJson(res, 200, incident(ws, id!, JSON.parse(body) as Partial<VendorIncident>));
    case "GET incidents/:id/comments":
      return sendJson(res, 200, { items: [comment] });
    case "POST incidents/:id/comments":
      return sendJson(res, 201, { ...comment, ...(JSON.parse(body) as NewVendorComment), id: "c2", unknownField: 1 });
    case "DELETE incidents/:id/comments/:id":
      return sendJson(res, 204);
    case "GET incidents/:id/evidence":
      return sendJson(res, 200, evidence);
    case "GET related-incidents":
      return sendJson(res, 200, { items: [incident(ws, "7")] });
    default:
      return sendJson(res, 404, { error: LEAK });
  }
}

function gateway(extra: Partial<HttpVendorOptions> = {}) {
  return createHttpVendorGateway({ source: "SourceA", baseUrl: `${base}/bridge/source-a/`, authHeader: AUTH, timeoutMs: 2000, ...extra });
}

/** Awaits a rejection, checks it is an ApiError and keeps it for the leak check at the end. */
async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await apiErrorOf(promise);
  seen.push(error);
  return error;
}

const never: FakeHandler = () => undefined;

beforeAll(async () => {
  fake = await startFakeHttpServer(route);
  base = fake.origin;
});

afterAll(() => fake.close());

beforeEach(() => {
  fake.reset();
});

const encodedIncident = "/bridge/source-a/workspaces/ws%201%2F%C3%BC/incidents/INC%2F42%2B%3F";

describe("HTTP vendor adapter: happy paths", () => {
  it("reads an incident, encoding the path and sending the Authorization header", async () => {
    const result = await gateway().getIncident(WS, INC);
    expect(result).toEqual(incident(WS, INC)); // "…00Z" came back normalised to "…00.000Z"
    expect(fake.last()).toMatchObject({ method: "GET", url: encodedIncident });
    expect(fake.last().headers.authorization).toBe(AUTH);
    expect(fake.last().headers.accept).toBe("application/json");
  });

  it("maps a vendor's own close-reason spelling to the canonical classification", async () => {
    fake.override((_req, res) => sendJson(res, 200, { ...incident(WS, INC), status: "Closed", classification: "Malicious" }));
    expect((await gateway().getIncident(WS, INC)).classification).toBe("TruePositive");
  });

  it("lists a window with every filter in the query string, and pages with the cursor", async () => {
    const gw = gateway();
    const query = {
      workspaceId: WS,
      field: "lastModificationTime" as const,
      from: "2024-05-01T00:00:00.000Z",
      to: "2024-05-02T00:00:00.000Z",
      limit: 2,
      filters: {
        severities: ["High", "Medium"] as const,
        statuses: ["New"] as const,
        query: "a b+c&d",
        assigneeEmails: ["ann@example.com", "bo+x@example.com"],
        includeUnassigned: true,
      },
    };
    const first = await gw.listIncidents(query);
    expect(first.items.map((i) => i.id)).toEqual(["1", "2"]);
    expect(first.cursor).toBe("page 2+/=");
    expect(fake.last().url).toBe(
      "/bridge/source-a/workspaces/ws%201%2F%C3%BC/incidents?field=lastModificationTime" +
        "&from=2024-05-01T00%3A00%3A00.000Z&to=2024-05-02T00%3A00%3A00.000Z&limit=2" +
        "&severity=High&severity=Medium&status=New&query=a%20b%2Bc%26d" +
        "&assigneeEmail=ann%40example.com&assigneeEmail=bo%2Bx%40example.com&includeUnassigned=true",
    );
    const second = await gw.listIncidents({ ...query, cursor: first.cursor, filters: undefined });
    expect(second).toEqual({ items: [incident(WS, "3")] });
    expect(new URL(fake.last().url, base).searchParams.get("cursor")).toBe("page 2+/=");
    expect(fake.last().url).not.toContain("severity");
  });

  it("sets the status with a JSON body", async () => {
    const change = { status: "Closed" as const, classification: "FalsePositive" as const, closingComment: "benign" };
    const result = await gateway().setStatus(WS, INC, change);
    expect(result).toMatchObject(change);
    expect(fake.last()).toMatchObject({ method: "PUT", url: `${encodedIncident}/status` });
    expect(fake.last().headers["content-type"]).toBe("application/json");
    expect(JSON.parse(fake.last().body)).toEqual(change);
  });

  it("sets and clears the owner", async () => {
    const owner = { userId: "u1", email: "ann@example.com", name: "Ann" };
    expect((await gateway().setOwner(WS, INC, owner)).owner).toEqual(owner);
    expect(fake.last()).toMatchObject({ method: "PUT", url: `${encodedIncident}/owner`, body: JSON.stringify({ owner }) });
    expect((await gateway().setOwner(WS, INC, null)).owner).toBeNull();
    expect(JSON.parse(fake.last().body)).toEqual({ owner: null });
  });

  it("lists, adds and deletes comments", async () => {
    const gw = gateway();
    expect(await gw.listComments(WS, INC)).toEqual([comment]);
    expect(fake.last()).toMatchObject({ method: "GET", url: `${encodedIncident}/comments` });

    const added: NewVendorComment = {
      message: "Agent note",
      authorEmail: "agent@svc",
      authorName: "Triage agent",
      isAgentComment: true,
      agentName: "triage",
      isClosingComment: false,
      extensionId: "ext-1",
    };
    const created = await gw.addComment(WS, INC, added);
    expect(created).toEqual({ ...comment, ...added, id: "c2" }); // unknown fields are stripped
    expect(fake.last()).toMatchObject({ method: "POST", url: `${encodedIncident}/comments` });
    expect(JSON.parse(fake.last().body)).toEqual(added);

    await expect(gw.deleteComment(WS, INC, "c 2/x")).resolves.toBeUndefined();
    expect(fake.last()).toMatchObject({ method: "DELETE", url: `${encodedIncident}/comments/c%202%2Fx` });
  });

  it("reads the evidence", async () => {
    expect(await gateway().getEvidence(WS, INC)).toEqual(evidence);
    expect(fake.last()).toMatchObject({ method: "GET", url: `${encodedIncident}/evidence` });
  });

  it("finds related incidents, sending only the parameters given", async () => {
    const items = await gateway().relatedByEntity({ workspaceId: WS, incidentId: INC, entityKind: "Ip", timeField: "createdAt", startDate: "2024-05-01T00:00:00Z", limit: 5 });
    expect(items).toEqual([incident(WS, "7")]);
    expect(fake.last().url).toBe(
      "/bridge/source-a/workspaces/ws%201%2F%C3%BC/related-incidents?incidentId=INC%2F42%2B%3F&entityKind=Ip" +
        "&timeField=createdAt&startDate=2024-05-01T00%3A00%3A00Z&limit=5",
    );
  });
});

describe("HTTP vendor adapter: error mapping", () => {
  const answer = (status: number, headers: Record<string, string> = {}): FakeHandler => (_req, res) =>
    sendJson(res, status, { error: LEAK, stack: "at Db.connect" }, headers);

  it.each([
    [404, "NOT_FOUND", 404],
    [400, "VALIDATION_ERROR", 400],
    [422, "VALIDATION_ERROR", 400],
    [409, "CONFLICT", 409],
    [408, "TIMEOUT", 504],
    [504, "TIMEOUT", 504],
    [500, "UPSTREAM_ERROR", 502],
    [503, "UPSTREAM_ERROR", 502],
    [401, "UPSTREAM_ERROR", 502],
    [403, "UPSTREAM_ERROR", 502],
    [418, "UPSTREAM_ERROR", 502],
  ])("vendor %i → %s", async (vendorStatus, code, status) => {
    fake.override(answer(vendorStatus));
    const error = await failure(gateway().getIncident(WS, INC));
    expect(error).toMatchObject({ code, status });
    expect(error.message).toContain(`SourceA`);
    expect(error.message).toContain(`(status ${vendorStatus}) while reading incident ${INC} in workspace ${WS}`);
    expect(error.message).not.toContain(LEAK);
    if (code === "VALIDATION_ERROR") expect(error.errors).toEqual({ "": [error.message] });
  });

  it("maps the bridge's 401 to our missing credential as UPSTREAM_ERROR", async () => {
    const error = await failure(gateway({ authHeader: undefined }).listComments(WS, INC));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(fake.last().headers.authorization).toBeUndefined();
    expect(error.message).toMatch(/^SourceA refused the service's credential \(status 401\) while listing the comments/);
  });

  it("passes a valid Retry-After through on 429 and drops an invalid one", async () => {
    fake.override(answer(429, { "retry-after": "7" }));
    let error = await failure(gateway().setOwner(WS, INC, null));
    expect(error).toMatchObject({ code: "RATE_LIMITED", status: 429, headers: { "Retry-After": "7" } });
    expect(error.message).toContain("setting the owner");

    fake.override(answer(429, { "retry-after": new Date(Date.now() + 30_000).toUTCString() }));
    error = await failure(gateway().getIncident(WS, INC));
    expect(Number(error.headers["Retry-After"])).toBeGreaterThanOrEqual(29);
    expect(Number(error.headers["Retry-After"])).toBeLessThanOrEqual(31);

    fake.override(answer(429, { "retry-after": "soon; drop table" }));
    error = await failure(gateway().getIncident(WS, INC));
    expect(error).toMatchObject({ code: "RATE_LIMITED", headers: {} });
  });

  it("times out with TIMEOUT when the bridge never answers", async () => {
    fake.override(never);
    const started = Date.now();
    const error = await failure(gateway({ timeoutMs: 150 }).getIncident(WS, INC));
    expect(error.code).toBe("TIMEOUT");
    expect(error.message).toBe(`SourceA did not answer within 150 ms while reading incident ${INC} in workspace ${WS}.`);
    expect(error.cause).toBeDefined();
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it("times out with TIMEOUT when the body stalls after the headers", async () => {
    fake.override((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"items": [');
    });
    const error = await failure(gateway({ timeoutMs: 200 }).listComments(WS, INC));
    expect(error.code).toBe("TIMEOUT");
  });

  it("aborts the request when the caller aborts, without calling it a TIMEOUT", async () => {
    let closed = false;
    fake.override((req) => void req.socket.once("close", () => (closed = true)));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const error = await failure(gateway({ timeoutMs: 5000 }).setStatus(WS, INC, { status: "Active" }, controller.signal));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).toBe(`Request aborted: the caller went away while setting the status of incident ${INC} in workspace ${WS} at SourceA.`);
    expect(Date.now() - started).toBeLessThan(1000);
    await expect.poll(() => closed).toBe(true);

    const already = await failure(gateway().getIncident(WS, INC, AbortSignal.abort()));
    expect(already.message).toMatch(/^Request aborted/);
  });

  it("reports a refused connection as UPSTREAM_ERROR", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failure(gateway({ baseUrl: `http://127.0.0.1:${port}` }).getEvidence(WS, INC));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).toMatch(/^SourceA could not be reached while reading the evidence/);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it("treats undici's own timeouts as TIMEOUT", async () => {
    const fetch = () => Promise.reject(new TypeError("fetch failed", { cause: Object.assign(new Error("x"), { code: "UND_ERR_CONNECT_TIMEOUT" }) }));
    const error = await failure(gateway({ fetch }).getIncident(WS, INC));
    expect(error.code).toBe("TIMEOUT");
  });

  it("rejects a 200 body that is not JSON, without echoing it", async () => {
    fake.override((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<html>${LEAK}</html>`);
    });
    const error = await failure(gateway().getIncident(WS, INC));
    expect(error).toMatchObject({ code: "UPSTREAM_ERROR" });
    expect(error.message).toBe(`SourceA sent a response that is not JSON while reading incident ${INC} in workspace ${WS}.`);
  });

  it("rejects a 200 body that fails the schema", async () => {
    const { title: _title, ...untitled } = incident(WS, INC);
    fake.override((_req, res) => sendJson(res, 200, { ...untitled, description: LEAK }));
    let error = await failure(gateway().getIncident(WS, INC));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).toContain("sent an invalid response (at title)");
    expect(error.message).not.toContain(LEAK);

    fake.override((_req, res) => sendJson(res, 200, { items: [{ ...comment, createdTime: "2024-05-01T12:00:00+02:00" }] }));
    error = await failure(gateway().listComments(WS, INC));
    expect(error.message).toContain("(at items[0].createdTime)");
  });

  it.each([
    ["source", incident(WS, INC, { source: "SourceB" })],
    ["workspaceId", incident("other", INC)],
    ["id", incident(WS, "other")],
  ])("rejects an incident whose %s does not match the request", async (field, body) => {
    fake.override((_req, res) => sendJson(res, 200, body));
    const error = await failure(gateway().getIncident(WS, INC));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).toContain(`(${field} does not match the request)`);
  });

  it("rejects a list with a foreign source or more items than the limit", async () => {
    fake.override((_req, res) => sendJson(res, 200, { items: [incident(WS, "1"), incident(WS, "2", { source: "SourceC" })] }));
    const query = { workspaceId: WS, field: "createdAt" as const, from: "2024-05-01T00:00:00Z", to: "2024-05-02T00:00:00Z", limit: 5 };
    expect((await failure(gateway().listIncidents(query))).message).toContain("(source does not match the request)");
    expect((await failure(gateway().relatedByEntity({ workspaceId: WS, limit: 1 }))).message).toContain("(more items than the limit of 1)");
  });

  it("refuses a body over 5 MB, declared or streamed", async () => {
    const big = Buffer.alloc(1024 * 1024, 0x20);
    fake.override((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }); // chunked: no length announced
      for (let i = 0; i < 6; i++) res.write(big);
      res.end("{}");
    });
    let error = await failure(gateway().getEvidence(WS, INC));
    expect(error).toMatchObject({ code: "UPSTREAM_ERROR" });
    expect(error.message).toContain("larger than 5242880 bytes");

    fake.override((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(6 * 1024 * 1024) });
      res.write("{");
    });
    error = await failure(gateway().getEvidence(WS, INC));
    expect(error.message).toContain("larger than 5242880 bytes");
  });

  it("does not follow redirects", async () => {
    fake.override((_req, res) => sendJson(res, 302, undefined, { location: `${base}/bridge/source-a/elsewhere` }));
    const error = await failure(gateway().getIncident(WS, INC));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(fake.requests).toHaveLength(1);
  });

  it("answers NOT_FOUND for ids that cannot be a path segment, without calling the bridge", async () => {
    for (const id of ["", ".", ".."]) expect((await failure(gateway().getIncident(WS, id))).code).toBe("NOT_FOUND");
    expect(fake.requests).toHaveLength(0);
  });
});

describe("HTTP vendor adapter: configuration and secrecy", () => {
  it("refuses a base URL with credentials and an Authorization value that is not a header value", () => {
    expect(() => gateway({ baseUrl: "https://user:pw@bridge.example" })).toThrow(/credentials/);
    expect(() => gateway({ baseUrl: "ftp://bridge.example" })).toThrow(/http/);
    let thrown: unknown;
    try {
      gateway({ authHeader: "Bearer abc\r\nX-Evil: 1" });
    } catch (e) {
      thrown = e;
    }
    expect(String(thrown)).not.toContain("abc");
  });

  it("trims outer whitespace of the Authorization value, as a secret store may add a newline", async () => {
    await expect(gateway({ authHeader: `${AUTH}\n` }).getEvidence(WS, INC)).resolves.toEqual(evidence);
  });

  it("never puts the Authorization value in any error it raised", () => {
    expect(seen.length).toBeGreaterThan(25);
    const token = AUTH.split(" ")[1]!;
    for (const error of seen) {
      const texts = [error.message, JSON.stringify(error.headers), JSON.stringify(error.errors ?? {})];
      for (let cause = error.cause; cause instanceof Error; cause = cause.cause) texts.push(cause.message, String(cause.stack));
      for (const text of texts) expect(text).not.toContain(token);
    }
  });
});
