// The webhook receiver of the "end-to-end webhook delivery" and "soak" scenarios
// (bench/scenarios/webhook-delivery.mjs, bench/scenarios/soak.mjs), run as a child process of the
// bench (node:child_process fork, so it has an IPC channel): an HTTPS server on 127.0.0.1 with a
// self-signed certificate generated at start, which verifies the signature of every POST, answers 200
// at once (401 when verification fails) and records when each event arrived.
//
// It has its own process (its own event loop) so that the raw undici client of the bench and the
// receiver never share one event loop, and it is the very same receiver for the service's deliveries
// and for the raw POSTs: whatever it costs, it costs both.
//
// Verification is written out here with node:crypto rather than imported from the service, so a bug
// in the service's signer cannot be "confirmed" by the same code: a request counts as verified only
// when BOTH schemes the service sends check out, with the secret given at creation:
//   X-Svc-Signature:   v1=hex(HMAC-SHA256(key, "<X-Svc-Timestamp>.<body>"))
//   webhook-signature: v1,base64(HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>"))  (Standard Webhooks)
// where key is the base64-decoded part of a `whsec_` secret; both timestamps within 300 s of now, and
// webhook-id equal to X-Svc-Event-Id. The body is parsed only when results are collected, so the
// per-request work is: read the body, two HMACs, record, answer.
//
// IPC protocol (bench -> receiver, each answered with { replyTo, ...result }):
//   { op: "configure", secret }   the signing secret to verify with
//   { op: "reset" }               forget everything received so far (start of a measurement)
//   { op: "count" }               -> { verified, failed, duplicates }
//   { op: "collect", withBodies } -> counts, failure samples, a sample delivery (body + headers) and
//                                    per event { id, t } (+ the event's incident fields when withBodies)
// and once at start, unasked: { type: "ready", port, cert } (cert: PEM of the self-signed certificate).
//
// Several webhooks at once (the soak scenario): each gets a path of its own, /hooks/<name>, verified
// with its own secret and counted on its own. Their events are summarized on arrival (id, type, the
// incident, the fields a scenario matches on) and the bodies dropped, so a long run stays small here.
//   { op: "configureHooks", hooks: { <name>: secret } }   the hooks and their signing secrets
//   { op: "respond", status }     answer every verified hook request with `status` (e.g. 500: an outage;
//                                 null: back to 200); such a request is counted as refused, not received
//   { op: "hookCounts" }          -> { hooks: { <name>: { received, duplicates, failed, refused } } }
//   { op: "collectHooks" }        -> { hooks: { <name>: { ...counts, failures, events: [{ id, t, type,
//                                    key, status, previousStatus, assigneeEmail, repeats }] } } }
// A duplicate is an event id answered 200 again after a first 200.
// Times `t` are wall-clock milliseconds with sub-millisecond precision (performance.timeOrigin +
// performance.now()), comparable with the same expression in the bench process.

import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:https";
// The certificate helper the receivers share (compiled: the bench runs `npm run build` first).
import { createSelfSignedCertificate } from "../dist/scripts/webhook-receiver/self-signed-certificate.js";

const TOLERANCE_S = 300;
const now = () => performance.timeOrigin + performance.now();

let key = null;
let verifiedIds = new Map(); // event id -> { t, body }
let failures = [];
let failedCount = 0;
let duplicates = 0;
let sample = null;

function reset() {
  verifiedIds = new Map();
  failures = [];
  failedCount = 0;
  duplicates = 0;
  sample = null;
}

/** The HMAC key of a signing secret: the base64-decoded part of a `whsec_` secret, else its UTF-8 bytes. */
function keyOf(secret) {
  return secret.startsWith("whsec_") ? Buffer.from(secret.slice(6), "base64") : Buffer.from(secret, "utf8");
}

function sameBytes(a, b) {
  return a.length === b.length && timingSafeEqual(a, b);
}

function timestampOk(raw, nowS) {
  if (typeof raw !== "string" || !/^\d{1,15}$/.test(raw)) return false;
  return Math.abs(nowS - Number(raw)) <= TOLERANCE_S;
}

/** null when the request verifies with `key`, otherwise the reason. */
function verify(headers, body, key) {
  if (!key) return "receiver not configured with a secret";
  const nowS = Math.floor(Date.now() / 1000);

  const svcTs = headers["x-svc-timestamp"];
  const svcSig = headers["x-svc-signature"];
  if (!svcSig || !svcTs) return "missing X-Svc-Signature / X-Svc-Timestamp";
  if (!timestampOk(svcTs, nowS)) return `X-Svc-Timestamp ${svcTs} invalid or outside ${TOLERANCE_S} s`;
  const svcExpected = createHmac("sha256", key).update(`${svcTs}.${body}`, "utf8").digest();
  const svcOk = svcSig
    .split(" ")
    .filter((e) => /^v1=[0-9a-fA-F]{64}$/.test(e))
    .some((e) => sameBytes(Buffer.from(e.slice(3), "hex"), svcExpected));
  if (!svcOk) return "X-Svc-Signature does not match";

  const id = headers["webhook-id"];
  const swTs = headers["webhook-timestamp"];
  const swSig = headers["webhook-signature"];
  if (!id || !swTs || !swSig) return "missing webhook-id / webhook-timestamp / webhook-signature";
  if (!timestampOk(swTs, nowS)) return `webhook-timestamp ${swTs} invalid or outside ${TOLERANCE_S} s`;
  const swExpected = createHmac("sha256", key).update(`${id}.${swTs}.${body}`, "utf8").digest();
  const swOk = swSig
    .split(" ")
    .filter((e) => e.startsWith("v1,"))
    .some((e) => sameBytes(Buffer.from(e.slice(3), "base64"), swExpected));
  if (!swOk) return "webhook-signature does not match";
  if (headers["x-svc-event-id"] !== id) return "X-Svc-Event-Id differs from webhook-id";
  return null;
}

function handle(req, res) {
  if (req.url?.startsWith("/hooks/")) return handleHook(req, res);
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    const reason = req.method === "POST" ? verify(req.headers, body, key) : `method ${req.method}`;
    const t = now();
    if (reason) {
      failedCount++;
      if (failures.length < 10) failures.push({ reason, eventId: req.headers["webhook-id"] ?? null });
      res.writeHead(401, { "Content-Type": "text/plain" }).end(reason);
      return;
    }
    const id = req.headers["webhook-id"];
    if (verifiedIds.has(id)) duplicates++;
    else verifiedIds.set(id, { t, body });
    if (!sample) {
      const headers = {};
      for (let i = 0; i < req.rawHeaders.length; i += 2) headers[req.rawHeaders[i]] = req.rawHeaders[i + 1];
      sample = { body, headers };
    }
    res.writeHead(200, { "Content-Length": "0" }).end();
  });
}

// The soak's webhooks: name -> { key, events: Map(id -> summary), duplicates, failed, refused, failures }.
let hooks = new Map();
let hookStatus = null;

function handleHook(req, res) {
  const name = decodeURIComponent(req.url.slice("/hooks/".length).split("?")[0]);
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const hook = hooks.get(name);
    const body = Buffer.concat(chunks).toString("utf8");
    const reason = !hook ? `no hook named ${name}` : req.method === "POST" ? verify(req.headers, body, hook.key) : `method ${req.method}`;
    const t = now();
    if (reason) {
      if (hook) {
        hook.failed++;
        if (hook.failures.length < 10) hook.failures.push({ reason, eventId: req.headers["webhook-id"] ?? null });
      }
      res.writeHead(hook ? 401 : 404, { "Content-Type": "text/plain" }).end(reason);
      return;
    }
    if (hookStatus !== null) {
      hook.refused++;
      res.writeHead(hookStatus, { "Content-Type": "text/plain" }).end("refused by the bench");
      return;
    }
    const id = req.headers["webhook-id"];
    const seen = hook.events.get(id);
    if (seen) {
      seen.repeats++;
      hook.duplicates++;
    } else {
      hook.events.set(id, summarize(id, t, body));
    }
    res.writeHead(200, { "Content-Length": "0" }).end();
  });
}

/** What a scenario matches an event on; the body itself is not kept. */
function summarize(id, t, body) {
  try {
    const e = JSON.parse(body);
    const d = e.data ?? {};
    return {
      id,
      t,
      type: e.type,
      bodyId: e.id,
      key: `${d.workspaceId}/${String(d.source).toLowerCase()}/${d.incidentId}`,
      status: d.status,
      previousStatus: d.previousStatus,
      assigneeEmail: d.assignee?.email,
      repeats: 0,
    };
  } catch {
    return { id, t, type: null, parseError: true, repeats: 0 };
  }
}

const hookCounts = (hook) => ({ received: hook.events.size, duplicates: hook.duplicates, failed: hook.failed, refused: hook.refused });

function collect(withBodies) {
  const events = [];
  let parseErrors = 0;
  for (const [id, { t, body }] of verifiedIds) {
    if (!withBodies) {
      events.push({ id, t });
      continue;
    }
    try {
      const e = JSON.parse(body);
      const d = e.data ?? {};
      events.push({
        id,
        t,
        bodyId: e.id,
        type: e.type,
        occurredAt: e.occurredAt,
        key: `${d.workspaceId}/${String(d.source).toLowerCase()}/${d.incidentId}`,
        status: d.status,
        previousStatus: d.previousStatus,
      });
    } catch {
      parseErrors++;
    }
  }
  return { verified: verifiedIds.size, failed: failedCount, duplicates, failures, parseErrors, sample, events };
}

const pems = await createSelfSignedCertificate({ commonName: "bench-receiver.test" });

const server = createServer({ key: pems.key, cert: pems.cert }, handle);
// Idle keep-alive connections survive the pauses between measurements (Node's default is 5 s), so
// neither side pays fresh TLS handshakes mid-run depending on how long the previous phase took.
server.keepAliveTimeout = 60_000;
server.on("tlsClientError", () => {});
server.listen(0, "127.0.0.1", () => {
  process.send({ type: "ready", port: server.address().port, cert: pems.cert });
});

process.on("message", (msg) => {
  let result;
  switch (msg.op) {
    case "configure":
      key = keyOf(msg.secret);
      result = {};
      break;
    case "reset":
      reset();
      result = {};
      break;
    case "count":
      result = { verified: verifiedIds.size, failed: failedCount, duplicates };
      break;
    case "collect":
      result = collect(Boolean(msg.withBodies));
      break;
    case "configureHooks":
      hooks = new Map(
        Object.entries(msg.hooks).map(([name, secret]) => [
          name,
          { key: keyOf(secret), events: new Map(), duplicates: 0, failed: 0, refused: 0, failures: [] },
        ]),
      );
      result = {};
      break;
    case "respond":
      hookStatus = msg.status ?? null;
      result = {};
      break;
    case "hookCounts":
      result = { hooks: Object.fromEntries([...hooks].map(([name, hook]) => [name, hookCounts(hook)])) };
      break;
    case "collectHooks":
      result = { hooks: Object.fromEntries([...hooks].map(([name, hook]) => [name, { ...hookCounts(hook), failures: hook.failures, events: [...hook.events.values()] }])) };
      break;
    default:
      result = { error: `unknown op ${msg.op}` };
  }
  process.send({ replyTo: msg.id, ...result });
});
// The bench going away (its IPC channel closing) ends the receiver too.
process.on("disconnect", () => process.exit(0));
