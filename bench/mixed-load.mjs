// A mixed load against the local API host, shared by the soak and overload scenarios
// (bench/scenarios/soak.mjs, bench/scenarios/overload.mjs): the world it works on (open incidents,
// workspaces whose gamebook runs dispatch at once), the operations it sends (reads, cross-workspace
// pages, status and assignee changes, gamebook runs, the vendors' console), what each write should
// make the service emit, and two ways to send them: open loop (arrivals at a fixed rate, not waiting
// for answers) and closed loop (each worker sends its next request when its last one is answered).
//
// Every write carries what identifies its effects afterwards: a status change flips one incident
// New <-> Active and at most one write per incident is in flight, so (incident, from, to) pairs it with
// its event; an assignee change sets a unique e-mail address (a marker, found in the event and in the
// audit event's metadata); a gamebook run has its own id; an incident created at the vendor has its id.

import path from "node:path";
import { pathToFileURL } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { Agent, request } from "undici";
import { apiJson, portalJson, ROOT, signInPerson } from "./api-host.mjs";

const DEMO_SEED = "secops-demo";

/**
 * What the load works on, read through the API once before it starts: the admin's workspaces, those
 * whose gamebook runs dispatch without approval (read as the demo's SOC lead, as the portal shows
 * them), and up to `incidents` open (New or Active) SourceA/SourceB incidents with their titles.
 */
export async function prepareWorld(api, { incidents: want = 600 } = {}) {
  const { demoId } = await import(pathToFileURL(path.join(ROOT, "dist/shared/hosts/local/demo-data.js")).href);
  const { subscribableEventTypes } = await import(pathToFileURL(path.join(ROOT, "dist/shared/model/events/event-types.js")).href);
  const account = await apiJson(api, "GET", `/service-accounts/${api.clientId}`);
  const workspaces = account.data.workspaceAssignments.map((a) => a.workspaceId);
  const lead = await signInPerson(api, "jonas");
  const noApproval = [];
  for (const workspaceId of workspaces) {
    const policy = await portalJson(api, lead, "GET", `/portal/workspaces/${workspaceId}/approval-policy`);
    if (policy.data.mode === "NoApproval") noApproval.push(workspaceId);
  }
  const pool = [];
  let body = { isFirstCall: true, workspacePageTokens: [], sources: ["SourceA", "SourceB"] };
  for (let page = 0; page < 200 && pool.length < want; page++) {
    const { data } = await apiJson(api, "POST", "/incidents/across-workspaces", body);
    for (const item of data.incidents) {
      const { workspaceId, id, status, title } = item.incident;
      if (status !== "New" && status !== "Active") continue;
      if (item.serviceStatus !== status) continue; // OnHold / WaitingOnCustomer: not a plain flip
      const source = String(item.source);
      pool.push({ workspaceId, source, id, title, status, key: `${workspaceId}/${source.toLowerCase()}/${id}`, busy: false });
    }
    if (!data.moreIncidentsAvailable || data.sourcePageTokens.length === 0) break;
    body = { isFirstCall: false, workspacePageTokens: data.sourcePageTokens, sources: ["SourceA", "SourceB"] };
  }
  return {
    workspaces,
    noApproval,
    incidents: pool.slice(0, want),
    eventTypes: subscribableEventTypes,
    addCommentPlaybook: (workspaceId) => demoId(DEMO_SEED, `playbook/${workspaceId}/add-comment`),
  };
}

/**
 * The operations of a mix. Each takes the load's context and returns { status, ms, ... } (status 0: no
 * answer: a socket error or the client's own timeout). Writes that succeed call `ctx.expect(...)` with
 * the event they should produce, and `ctx.marked(...)` with what identifies them in the audit trail.
 */
export const operations = {
  /** GET one incident (the vendor read plus the service's state). */
  async readIncident(ctx) {
    const inc = ctx.anyIncident();
    return ctx.call("GET", `/workspaces/${inc.workspaceId}/incidents/${inc.source}/${encodeURIComponent(inc.id)}`);
  },
  /** GET one incident's comments. */
  async readComments(ctx) {
    const inc = ctx.anyIncident();
    return ctx.call("GET", `/workspaces/${inc.workspaceId}/incidents/${inc.source}/${encodeURIComponent(inc.id)}/comments`);
  },
  /** The first page of the cross-workspace listing (every workspace, every source). */
  async listPage(ctx) {
    return ctx.call("POST", "/incidents/across-workspaces", { isFirstCall: true, workspacePageTokens: [] });
  },
  /** A page of one of the load's webhooks' delivery log (what the portal's webhook page reads). */
  async readDeliveryLog(ctx) {
    if (ctx.webhookIds.length === 0) return operations.readIncident(ctx);
    const id = ctx.webhookIds[ctx.random(ctx.webhookIds.length)];
    return ctx.call("GET", `/webhooks/${id}/delivery-logs?pageSize=20`);
  },
  /** Flips a free open incident New <-> Active: exactly one incident.status.changed.v1 on a 204. */
  async changeStatus(ctx) {
    const inc = ctx.takeIncident();
    if (!inc) return operations.readIncident(ctx);
    try {
      const from = inc.status;
      const to = from === "Active" ? "New" : "Active";
      const res = await ctx.call("PUT", `/workspaces/${inc.workspaceId}/incidents/${inc.source}/${encodeURIComponent(inc.id)}/status`, { status: to });
      if (res.status === 204) {
        inc.status = to;
        ctx.expect({ type: "incident.status.changed.v1", key: inc.key, from, to, answeredAt: res.answeredAt });
        ctx.marked({ kind: "status", key: inc.key, targetResourceId: `${inc.source}/${inc.id}`, workspaceId: inc.workspaceId, status: to, res });
      } else {
        // Whether the vendor took it is unknown (a 504, a 409): read where it stands before the next flip.
        ctx.marked({ kind: "status", key: inc.key, targetResourceId: `${inc.source}/${inc.id}`, workspaceId: inc.workspaceId, status: to, res });
        await ctx.resync(inc);
      }
      return { ...res, write: true };
    } finally {
      inc.busy = false;
    }
  },
  /** Assigns a free open incident to a unique address (the marker): one incident.assignee.changed.v1 on a 204. */
  async changeAssignee(ctx) {
    const inc = ctx.takeIncident();
    if (!inc) return operations.readIncident(ctx);
    try {
      const email = ctx.nextMarker();
      const res = await ctx.call("PUT", `/workspaces/${inc.workspaceId}/incidents/${inc.source}/${encodeURIComponent(inc.id)}/assignee`, { userId: null, email });
      if (res.status === 204) ctx.expect({ type: "incident.assignee.changed.v1", key: inc.key, assigneeEmail: email, answeredAt: res.answeredAt });
      ctx.marked({ kind: "assignee", key: inc.key, workspaceId: inc.workspaceId, marker: email, res });
      return { ...res, write: true };
    } finally {
      inc.busy = false;
    }
  },
  /** A gamebook run of one "add a comment" playbook on an incident of a workspace without approval. */
  async runGamebook(ctx) {
    const inc = ctx.takeIncident((i) => ctx.world.noApproval.includes(i.workspaceId));
    if (!inc) return operations.readIncident(ctx);
    try {
      const body = {
        incidentId: inc.id,
        incidentTitle: inc.title,
        source: inc.source,
        playbooks: [{ id: ctx.world.addCommentPlaybook(inc.workspaceId), entityId: inc.id, parameters: { message: `Bench note ${ctx.nextMarker()}` }, sequence: 1 }],
      };
      const res = await ctx.call("POST", `/workspaces/${inc.workspaceId}/gamebooks/run`, body);
      if (res.status === 201) {
        const runId = res.json?.data?.id;
        ctx.expect({ type: "gamebook.run.v1", key: inc.key, runId, answeredAt: res.answeredAt });
        ctx.expect({ type: "incident.comment.added.v1", key: inc.key, answeredAt: res.answeredAt });
      }
      return { ...res, write: true };
    } finally {
      inc.busy = false;
    }
  },
  /** An analyst creates an incident in SourceA's console: incident.created.v1 once a reconcile has run. */
  async createAtVendor(ctx) {
    const workspaceId = ctx.world.workspaces[ctx.random(ctx.world.workspaces.length)];
    const res = await ctx.local("POST", `/sources/SourceA/workspaces/${workspaceId}/incidents`, { title: `Soak incident ${ctx.nextMarker()}`, severity: "Low" });
    if (res.status === 201) ctx.vendor.created.push({ workspaceId, id: res.json.data.id, key: `${workspaceId}/sourcea/${res.json.data.id}`, at: res.answeredAt, closed: false });
    return { ...res, write: true };
  },
  /** An analyst closes, in the console, an incident created there that a reconcile has ingested: incident.closed.v1 at the next reconcile. */
  async closeAtVendor(ctx) {
    const ingested = ctx.vendor.created.filter((c) => !c.closed && c.at < ctx.vendor.lastPassStartedAt);
    if (ingested.length === 0) return operations.createAtVendor(ctx);
    const inc = ingested[ctx.random(ingested.length)];
    inc.closed = true;
    const res = await ctx.local("POST", `/sources/SourceA/workspaces/${inc.workspaceId}/incidents/${encodeURIComponent(inc.id)}/close`, { classification: "FalsePositive" });
    if (res.status === 204) ctx.vendor.closed.push({ ...inc, at: res.answeredAt });
    return { ...res, write: true };
  },
};

/**
 * One load's state and the calls it makes: `mix` maps operation names to weights. `random` is a seeded
 * generator, so two runs send the same sequence of operations. Requests go over one keep-alive pool
 * (undici), at most `connections` sockets; the client gives up on a request after `clientTimeoutMs`.
 */
export function createLoad({ api, world, mix, webhookIds = [], tag, connections = 256, clientTimeoutMs = 60_000, seed = 1 }) {
  const agent = new Agent({ connections, keepAliveTimeout: 60_000, headersTimeout: clientTimeoutMs, bodyTimeout: clientTimeoutMs });
  const origin = new URL(api.baseUrl).origin;
  const names = Object.keys(mix);
  const total = names.reduce((n, k) => n + mix[k], 0);
  let state = seed >>> 0 || 1;
  const random = (n) => {
    // xorshift32: deterministic, good enough to pick operations and incidents.
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state % n;
  };
  let markers = 0;
  const ctx = {
    world,
    webhookIds,
    random,
    expected: [],
    marks: [],
    vendor: { created: [], closed: [], lastPassStartedAt: -Infinity },
    nextMarker: () => `${tag}-${++markers}@bench.example`,
    expect: (e) => ctx.expected.push(e),
    marked: (m) => ctx.marks.push(m),
    anyIncident: () => world.incidents[random(world.incidents.length)],
    /** A random incident with no write in flight (marked busy: the caller frees it), or null after a few tries. */
    takeIncident(filter = () => true) {
      for (let i = 0; i < 8; i++) {
        const inc = world.incidents[random(world.incidents.length)];
        if (!inc.busy && filter(inc)) {
          inc.busy = true;
          return inc;
        }
      }
      return null;
    },
    async resync(inc) {
      const res = await ctx.call("GET", `/workspaces/${inc.workspaceId}/incidents/${inc.source}/${encodeURIComponent(inc.id)}`);
      const status = res.json?.data?.incident?.status;
      if (status === "New" || status === "Active") inc.status = status;
    },
    call: (method, pathname, body) => send(`${api.baseUrl}${pathname}`, method, { ...api.authHeaders }, body),
    local: (method, pathname, body) => send(`${origin}/_local${pathname}`, method, {}, body),
    close: () => agent.close().catch(() => {}),
  };

  async function send(url, method, headers, body) {
    const sentAt = performance.now();
    try {
      const res = await request(url, {
        method,
        dispatcher: agent,
        headers: body === undefined ? headers : { ...headers, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.body.text();
      const answeredAt = performance.now();
      let json = null;
      if (text && String(res.headers["content-type"] ?? "").includes("json")) {
        try {
          json = JSON.parse(text);
        } catch {
          // not JSON after all: the status says enough
        }
      }
      return { status: res.statusCode, ms: answeredAt - sentAt, sentAt, answeredAt, json, code: json?.code, retryAfter: res.headers["retry-after"] };
    } catch (err) {
      const answeredAt = performance.now();
      return { status: 0, ms: answeredAt - sentAt, sentAt, answeredAt, json: null, error: err?.code ?? err?.message ?? String(err) };
    }
  }

  /** Picks the next operation by weight and runs it; resolves with { op, ...its result }. */
  const next = async () => {
    let r = random(total);
    let op = names[0];
    for (const name of names) {
      if (r < mix[name]) {
        op = name;
        break;
      }
      r -= mix[name];
    }
    return { op, ...(await operations[op](ctx)) };
  };
  return { ctx, next, close: ctx.close };
}

/**
 * Open loop: starts `next()` at `rate` per second for `durationMs` (arrivals on a fixed schedule, not
 * waiting for answers), each result to `onResult`. An arrival finding `maxInFlight` requests already
 * outstanding is not sent and counted as `notSent`: the client's own limit, reported, never hidden.
 * `rate` may be a function of the elapsed ms (a phase plan). Resolves when every request has answered.
 */
export async function openLoop({ rate, durationMs, maxInFlight, next, onResult, onNotSent = () => {}, stop = () => false }) {
  const rateAt = typeof rate === "function" ? rate : () => rate;
  const started = performance.now();
  let issued = 0;
  let due = 0;
  let notSent = 0;
  const pending = new Set();
  let last = started;
  for (;;) {
    const now = performance.now();
    if (now - started >= durationMs || stop()) break;
    due += ((now - last) / 1000) * rateAt(now - started);
    last = now;
    while (issued + notSent < Math.floor(due)) {
      if (pending.size >= maxInFlight) {
        notSent++;
        onNotSent();
        continue;
      }
      issued++;
      const p = next()
        .then(onResult)
        .finally(() => pending.delete(p));
      pending.add(p);
    }
    await sleep(2);
  }
  await Promise.all(pending);
  return { issued, notSent, seconds: (performance.now() - started) / 1000 };
}

/**
 * Closed loop: `workers` chains, each sending its next request when its last one is answered, for
 * `durationMs`. A worker told to come back later (429 with Retry-After) waits that long first, as a
 * client should, rather than spinning on refusals.
 */
export async function closedLoop({ workers, durationMs, next, onResult }) {
  const started = performance.now();
  let issued = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() - started < durationMs) {
        issued++;
        const result = await next();
        onResult(result);
        const retryAfterS = result.status === 429 ? Number(result.retryAfter) : NaN;
        if (Number.isFinite(retryAfterS)) await sleep(Math.min(retryAfterS * 1000, started + durationMs - performance.now()));
      }
    }),
  );
  return { issued, seconds: (performance.now() - started) / 1000 };
}

/**
 * Checks what a webhook received against what the writes should have produced, per webhook:
 * `expected` (ctx.expected) and the events of every webhook (the receiver's collectHooks). An event is
 * lost for a webhook when it never arrived there: an expected event no webhook got, or an event
 * another webhook got (all subscribe to every event of the same accounts). Expected events match by
 * type and incident plus, per type: (from, to) for a status change, the marker for an assignee change,
 * the run id for gamebook.run.v1.
 */
export function reconcileEvents(expected, hooks) {
  const names = Object.keys(hooks);
  const all = new Set();
  for (const name of names) for (const e of hooks[name].events) all.add(e.id);
  const matchKey = (e) => {
    switch (e.type) {
      case "incident.status.changed.v1":
        return `${e.type}|${e.key}|${e.from ?? e.previousStatus}|${e.to ?? e.status}`;
      case "incident.assignee.changed.v1":
        return `${e.type}|${e.assigneeEmail}`;
      case "gamebook.run.v1":
        return `${e.type}|${e.runId}`;
      default:
        return `${e.type}|${e.key}`;
    }
  };
  const perHook = {};
  const unmatchedAnywhere = new Array(expected.length).fill(0);
  for (const name of names) {
    const available = new Map();
    for (const e of hooks[name].events) {
      const k = matchKey(e);
      available.set(k, (available.get(k) ?? 0) + 1);
    }
    let missingExpected = 0;
    const missingByType = {};
    expected.forEach((x, i) => {
      const k = matchKey(x);
      const n = available.get(k) ?? 0;
      if (n > 0) {
        available.set(k, n - 1);
      } else {
        missingExpected++;
        missingByType[x.type] = (missingByType[x.type] ?? 0) + 1;
        unmatchedAnywhere[i]++;
      }
    });
    const mine = new Set(hooks[name].events.map((e) => e.id));
    let otherHooksGot = 0;
    for (const id of all) if (!mine.has(id)) otherHooksGot++;
    perHook[name] = {
      received: hooks[name].received,
      duplicates: hooks[name].duplicates,
      failedVerification: hooks[name].failed,
      refused: hooks[name].refused,
      missingExpected,
      missingByType,
      otherHooksGot,
    };
  }
  const nowhere = unmatchedAnywhere.filter((n) => n === names.length).length;
  for (const name of names) perHook[name].lost = perHook[name].otherHooksGot + nowhere;
  return { perHook, nowhere, distinctEvents: all.size, expected: expected.length };
}
