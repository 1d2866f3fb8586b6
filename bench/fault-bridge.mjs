// A vendor bridge (docs/vendor-bridge.md) for benchmarks, with faults to inject: it serves SourceA
// under `<origin>/source-a` for ANY workspace id, each workspace holding a fixed, deterministic set of
// incidents derived from its id, and answers each workspace as its fault mode says:
//
//   ok     answers normally
//   500    answers 500
//   429    answers 429 with `Retry-After: 30`
//   hang   never answers: the request is held open until the client gives up (aborts)
//
// Every answer (faults included) comes `latencyMs` late (default 200). Every request is counted per
// workspace with its arrival time, so a scenario can tell how often the service calls a failing one.
//
// In-process: `const bridge = await startFaultBridge({ latencyMs: 200 })`; `bridge.baseUrl` is the
// SOURCE_A_URL to give the API host. At run time, `bridge.setFault(workspaceId, "500")` or
// `POST <origin>/_control/faults` with `{ "workspaceId": "...", "mode": "hang" }` (or
// `{ "faults": { "<id>": "429", ... } }`, `{ "latencyMs": 0 }`); `GET <origin>/_control/counts` gives
// the request count per workspace. Standalone: `node bench/fault-bridge.mjs [port]` prints the base URL.

import { createHash } from "node:crypto";
import http from "node:http";
import { pathToFileURL } from "node:url";

export const FAULT_MODES = ["ok", "500", "429", "hang"];
const SOURCE = "SourceA";
const PREFIX = "source-a";
const DAY_MS = 24 * 3_600_000;
const severities = ["Informational", "Low", "Medium", "High"];
const statuses = ["New", "Active", "Closed"];
const classifications = ["TruePositive", "BenignPositive", "FalsePositive", "Undetermined"];

/** A short, stable digest of a text: the source of every "random" choice, so runs repeat. */
const digest = (text) => createHash("sha256").update(text).digest();

/**
 * The incidents of one workspace: `count` of them, ids derived from the workspace id, created over the
 * 24 hours before `epoch` (one per slot, newest first, a few seconds' jitter inside each slot).
 */
export function incidentsOf(workspaceId, { count, epoch }) {
  const tag = digest(`workspace/${workspaceId}`).toString("hex").slice(0, 10);
  const items = [];
  for (let i = 0; i < count; i++) {
    const d = digest(`${workspaceId}/${i}`);
    const slot = DAY_MS / count;
    const created = epoch - Math.floor(slot * i) - 1_000 - (d.readUInt32BE(0) % Math.max(1, Math.floor(slot / 2)));
    const modified = Math.min(epoch - 1, created + (d.readUInt32BE(4) % 3_600_000));
    const id = `FA-${tag}-${String(i + 1).padStart(4, "0")}`;
    const status = statuses[d[8] % statuses.length];
    const severity = severities[d[9] % severities.length];
    const host = `host-${tag.slice(0, 4)}-${d[10] % 16}.corp.example`;
    const account = `user${d[11] % 50}@corp.example`;
    const owned = d[12] % 2 === 0;
    items.push({
      id,
      source: SOURCE,
      workspaceId,
      number: i + 1,
      title: `Suspicious sign-in for ${account} (${i + 1})`,
      description: `Deterministic bench incident ${i + 1} of workspace ${workspaceId}.`,
      severity,
      status,
      classification: status === "Closed" ? classifications[d[13] % classifications.length] : null,
      closingComment: status === "Closed" ? "Closed by the bench bridge." : null,
      owner: owned ? { userId: null, email: `analyst${d[14] % 5}@corp.example`, name: `Analyst ${d[14] % 5}` } : null,
      createdAt: new Date(created).toISOString(),
      lastModificationTime: new Date(modified).toISOString(),
      lastActivityTime: new Date(created).toISOString(),
      entities: [
        { id: "e1", kind: "Account", name: account, properties: { domain: "corp.example" } },
        { id: "e2", kind: "Host", name: host, properties: { os: "Windows" } },
      ],
      alerts: [
        {
          id: "a1",
          title: "Sign-in from an unfamiliar location",
          severity,
          timeGenerated: new Date(created).toISOString(),
          productName: "Fault bridge",
          tactics: ["InitialAccess"],
          entityIds: ["e1", "e2"],
        },
      ],
      gamebookCatalog: {},
      vendorIdentifiers: { sourceA: { incidentId: id, incidentUrl: `https://vendor.example/incidents/${id}` } },
    });
  }
  return items;
}

/**
 * Starts the bridge on 127.0.0.1 (`port` 0: any free one). Options: `latencyMs` (200), `incidentsPerWorkspace`
 * (20), `faults` (a Map or object workspaceId -> mode), `authHeader` (when set, required verbatim).
 */
export async function startFaultBridge({ port = 0, latencyMs = 200, incidentsPerWorkspace = 20, faults = new Map(), authHeader } = {}) {
  const epoch = Date.now();
  const faultOf = new Map(faults instanceof Map ? faults : Object.entries(faults));
  for (const mode of faultOf.values()) checkMode(mode);
  let latency = latencyMs;
  /** workspaceId -> arrival times (ms since the epoch) of every request for it. */
  const arrivals = new Map();
  /** Generated once per workspace, sorted per field on demand. */
  const cache = new Map();
  const held = new Set();
  const comments = new Map();
  let nextComment = 1;

  const expected = (workspaceId) => {
    let items = cache.get(workspaceId);
    if (!items) {
      items = incidentsOf(workspaceId, { count: incidentsPerWorkspace, epoch });
      cache.set(workspaceId, items);
    }
    return items;
  };

  function setFault(workspaceId, mode) {
    checkMode(mode);
    if (mode === "ok") faultOf.delete(workspaceId);
    else faultOf.set(workspaceId, mode);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent && !res.destroyed) send(res, 500, { error: String(err?.message ?? err) });
    });
  });
  // Longer than any client keeps an idle connection, so the bridge never closes one under a request.
  server.keepAliveTimeout = 65_000;

  async function handle(req, res) {
    const url = new URL(req.url, "http://bridge");
    const segments = url.pathname.split("/").filter(Boolean).map((s) => decodeURIComponent(s));
    if (segments[0] === "_control") return control(req, res, segments.slice(1));
    const [prefix, workspaces, workspaceId, kind, incidentId, sub, commentId, ...rest] = segments;
    if (prefix !== PREFIX || workspaces !== "workspaces" || !workspaceId || rest.length > 0) return send(res, 404, { error: "no such route" });

    const times = arrivals.get(workspaceId) ?? [];
    times.push(Date.now());
    arrivals.set(workspaceId, times);

    const mode = faultOf.get(workspaceId) ?? "ok";
    if (mode === "hang") {
      held.add(res);
      res.once("close", () => held.delete(res));
      return;
    }
    const body = req.method === "POST" || req.method === "PUT" ? await readBody(req) : undefined;
    if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
    if (res.destroyed) return; // the client gave up meanwhile
    if (authHeader !== undefined && req.headers.authorization !== authHeader) return send(res, 401, { error: "wrong credential" });
    if (mode === "500") return send(res, 500, { error: "injected fault: 500" });
    if (mode === "429") return send(res, 429, { error: "injected fault: 429" }, { "Retry-After": "30" });

    const items = expected(workspaceId);
    if (kind === "related-incidents" && incidentId === undefined) {
      if (req.method !== "GET") return send(res, 405, { error: "method not allowed" });
      const limit = positiveInt(url.searchParams.get("limit"));
      if (limit === null) return send(res, 400, { error: "limit must be a positive integer" });
      return send(res, 200, { items: [] });
    }
    if (kind !== "incidents") return send(res, 404, { error: "no such route" });
    if (incidentId === undefined) {
      if (req.method !== "GET") return send(res, 405, { error: "method not allowed" });
      return list(res, items, url.searchParams);
    }
    const incident = items.find((i) => i.id === incidentId);
    if (!incident) return send(res, 404, { error: "no such incident" });
    const key = `${workspaceId}/${incidentId}`;
    switch (sub) {
      case undefined:
        return req.method === "GET" ? send(res, 200, incident) : send(res, 405, { error: "method not allowed" });
      case "status": {
        if (req.method !== "PUT") return send(res, 405, { error: "method not allowed" });
        if (!statuses.includes(body?.status)) return send(res, 400, { error: "unknown status" });
        if (body.status === "Closed" && !body.classification) return send(res, 400, { error: "closing needs a classification" });
        // Stateless: the answer shows the change, the stored set stays as generated.
        return send(res, 200, {
          ...incident,
          status: body.status,
          classification: body.status === "Closed" ? body.classification : null,
          closingComment: body.status === "Closed" ? (body.closingComment ?? null) : null,
          lastModificationTime: new Date().toISOString(),
        });
      }
      case "owner":
        if (req.method !== "PUT") return send(res, 405, { error: "method not allowed" });
        if (!body || !("owner" in body)) return send(res, 400, { error: "owner is required" });
        return send(res, 200, { ...incident, owner: body.owner, lastModificationTime: new Date().toISOString() });
      case "evidence":
        return req.method === "GET" ? send(res, 200, { rows: [] }) : send(res, 405, { error: "method not allowed" });
      case "comments": {
        const list = comments.get(key) ?? [];
        if (commentId !== undefined) {
          if (req.method !== "DELETE") return send(res, 405, { error: "method not allowed" });
          const at = list.findIndex((c) => c.id === commentId);
          if (at < 0) return send(res, 404, { error: "no such comment" });
          list.splice(at, 1);
          res.writeHead(204).end();
          return;
        }
        if (req.method === "GET") return send(res, 200, { items: list.map(({ idempotencyKey: _k, ...c }) => c) });
        if (req.method !== "POST") return send(res, 405, { error: "method not allowed" });
        if (typeof body?.message !== "string") return send(res, 400, { error: "message is required" });
        const repeat = body.idempotencyKey ? list.find((c) => c.idempotencyKey === body.idempotencyKey) : undefined;
        if (repeat) {
          const { idempotencyKey: _k, ...c } = repeat;
          return send(res, 200, c);
        }
        const comment = {
          id: `c-${nextComment++}`,
          message: body.message,
          createdTime: new Date().toISOString(),
          authorEmail: String(body.authorEmail ?? ""),
          authorName: String(body.authorName ?? ""),
          isActivityComment: false,
          isAgentComment: Boolean(body.isAgentComment),
          agentName: body.agentName ?? null,
          isClosingComment: Boolean(body.isClosingComment),
          ticketNoteId: null,
          ticketId: null,
          extensionId: body.extensionId ?? null,
          idempotencyKey: body.idempotencyKey,
        };
        list.push(comment);
        comments.set(key, list);
        const { idempotencyKey: _k, ...answer } = comment;
        return send(res, 201, answer);
      }
      default:
        return send(res, 404, { error: "no such route" });
    }
  }

  /** The list endpoint: window on `field`, simple filters, newest first (ties by id), a keyset cursor. */
  function list(res, items, q) {
    const field = q.get("field");
    if (field !== "createdAt" && field !== "lastModificationTime") return send(res, 400, { error: "field must be createdAt or lastModificationTime" });
    const from = Date.parse(q.get("from") ?? "");
    const to = Date.parse(q.get("to") ?? "");
    const limit = positiveInt(q.get("limit"));
    if (Number.isNaN(from) || Number.isNaN(to) || limit === null) return send(res, 400, { error: "from, to and a positive integer limit are required" });
    const sev = q.getAll("severity");
    const st = q.getAll("status");
    const text = q.get("query")?.toLowerCase();
    const emails = q.getAll("assigneeEmail").map((e) => e.toLowerCase());
    const unassigned = q.get("includeUnassigned") === "true";
    const matches = (i) => {
      const t = Date.parse(i[field]);
      if (t < from || t >= to) return false;
      if (sev.length > 0 && !sev.includes(i.severity)) return false;
      if (st.length > 0 && !st.includes(i.status)) return false;
      if (text && !i.title.toLowerCase().includes(text) && !String(i.number).includes(text) && !i.entities.some((e) => e.name.toLowerCase().includes(text))) return false;
      const email = i.owner?.email?.toLowerCase();
      if (emails.length > 0) return (email !== undefined && emails.includes(email)) || (unassigned && !i.owner);
      if (unassigned) return !i.owner;
      return true;
    };
    const order = (a, b) => (a[field] < b[field] ? 1 : a[field] > b[field] ? -1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    let found = items.filter(matches).sort(order);
    const cursor = q.get("cursor");
    if (cursor) {
      let after;
      try {
        after = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
      } catch {
        return send(res, 400, { error: "bad cursor" });
      }
      found = found.filter((i) => order(i, { [field]: after.t, id: after.i }) > 0);
    }
    const page = found.slice(0, limit);
    const last = page.at(-1);
    const more = found.length > limit;
    return send(res, 200, more ? { items: page, cursor: Buffer.from(JSON.stringify({ t: last[field], i: last.id })).toString("base64url") } : { items: page });
  }

  async function control(req, res, segments) {
    if (segments[0] === "faults" && req.method === "POST") {
      const body = await readBody(req);
      try {
        if (body?.workspaceId !== undefined) setFault(body.workspaceId, body.mode);
        for (const [id, mode] of Object.entries(body?.faults ?? {})) setFault(id, mode);
        if (body?.latencyMs !== undefined) latency = nonNegative(body.latencyMs);
      } catch (err) {
        return send(res, 400, { error: err.message });
      }
      return send(res, 200, { faults: Object.fromEntries(faultOf), latencyMs: latency });
    }
    if (segments[0] === "faults" && req.method === "GET") return send(res, 200, { faults: Object.fromEntries(faultOf), latencyMs: latency });
    if (segments[0] === "counts" && req.method === "GET") {
      return send(res, 200, { counts: Object.fromEntries([...arrivals].map(([id, times]) => [id, times.length])) });
    }
    return send(res, 404, { error: "no such control" });
  }

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    /** The SOURCE_A_URL. */
    baseUrl: `${origin}/${PREFIX}`,
    epoch,
    setFault,
    faults: () => new Map(faultOf),
    setLatency: (ms) => (latency = nonNegative(ms)),
    /** workspaceId -> arrival times (ms since the epoch) of its requests; copies. */
    counts: () => new Map([...arrivals].map(([id, times]) => [id, [...times]])),
    /** Requests for one workspace that arrived in [fromMs, toMs). */
    requestsBetween: (workspaceId, fromMs = 0, toMs = Infinity) => (arrivals.get(workspaceId) ?? []).filter((t) => t >= fromMs && t < toMs),
    /** Requests held open right now by `hang`. */
    held: () => held.size,
    /** The incidents the workspace holds (what a complete listing of it must return). */
    expectedIncidents: (workspaceId) => expected(workspaceId),
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function checkMode(mode) {
  if (!FAULT_MODES.includes(mode)) throw new Error(`unknown fault mode ${JSON.stringify(mode)}; one of ${FAULT_MODES.join(", ")}`);
}

function nonNegative(ms) {
  const value = Number(ms);
  if (!Number.isFinite(value) || value < 0) throw new Error(`latencyMs must be a number >= 0, not ${JSON.stringify(ms)}`);
  return value;
}

function positiveInt(raw) {
  const value = Number(raw);
  return raw !== null && Number.isInteger(value) && value > 0 ? value : null;
}

function send(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  if (chunks.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return undefined;
  }
}

// Standalone: node bench/fault-bridge.mjs [port]
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const bridge = await startFaultBridge({ port: Number(process.argv[2] ?? 0) });
  console.log(`fault bridge: SOURCE_A_URL=${bridge.baseUrl}  (faults: POST ${bridge.origin}/_control/faults)`);
}
