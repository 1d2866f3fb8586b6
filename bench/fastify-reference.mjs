// The competitor for the API benchmark: what a competent Fastify user would build to serve
// GET /api/v2/service-accounts/{id} with the same work the API does per request — HTTP Basic, a
// principal lookup, an HMAC-SHA256 check of the secret in constant time, a scope check, a token
// bucket with RateLimit-* headers, a request id, an ETag, the API's other response headers, and the {data, meta} envelope serialised
// per request (with Fastify's own schema-compiled serializer, as its users do). The data is the
// service account the API answered with, held in memory as a store would hand it out.
//
// Usage: node bench/fastify-reference.mjs, with env PORT, REF_CLIENT_ID, REF_CLIENT_SECRET and
// REF_BODY_BASE64 (the API's captured body). Prints "fastify-reference ready http://127.0.0.1:<port>".

import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import Fastify from "fastify";

const port = Number(process.env.PORT ?? 0);
const clientId = process.env.REF_CLIENT_ID;
const clientSecret = process.env.REF_CLIENT_SECRET;
const captured = JSON.parse(Buffer.from(process.env.REF_BODY_BASE64 ?? "", "base64").toString("utf8"));
if (!clientId || !clientSecret || !captured?.data) {
  console.error("fastify-reference: REF_CLIENT_ID, REF_CLIENT_SECRET and REF_BODY_BASE64 are required");
  process.exit(2);
}

const hashKey = randomBytes(32);
const hash = (secret) => createHmac("sha256", hashKey).update(secret, "utf8").digest();
const SCOPE = "org:service-accounts:read";

// The "store": service accounts by client id, with their credentials' hashes, scopes and an etag.
const accounts = new Map([
  [clientId.toLowerCase(), { id: clientId.toLowerCase(), etag: '"1"', view: Object.freeze(captured.data), credentials: [{ secretHash: hash(clientSecret), scopes: new Set([SCOPE]) }] }],
]);

// A token bucket per credential, as the API has (burst and rate far above the load, as in the API host).
const BURST = 100_000_000;
const PER_SECOND = 100_000_000;
const buckets = new Map();
function take(key) {
  const now = Date.now();
  const bucket = buckets.get(key) ?? { tokens: BURST, at: now };
  bucket.tokens = Math.min(BURST, bucket.tokens + ((now - bucket.at) / 1000) * PER_SECOND);
  bucket.at = now;
  buckets.set(key, bucket);
  const allowed = bucket.tokens >= 1;
  if (allowed) bucket.tokens -= 1;
  return { allowed, remaining: Math.floor(bucket.tokens), reset: Math.ceil((BURST - bucket.tokens) / PER_SECOND) };
}

function problem(reply, status, code, detail, requestId) {
  return reply
    .code(status)
    .header("Content-Type", "application/problem+json")
    .send(JSON.stringify({ type: `/api/v2/errors#${code}`, title: code, status, detail, code, requestId, timestamp: new Date().toISOString() }));
}

const app = Fastify({ logger: false });

app.addHook("onRequest", async (request, reply) => {
  request.requestId = randomUUID();
  reply.header("X-Request-Id", request.requestId);
  reply.header("Cache-Control", "no-store");
  // What the API sends on every JSON answer: no content sniffing, and Vary since it may compress.
  reply.header("X-Content-Type-Options", "nosniff");
  reply.header("Vary", "Accept-Encoding");
  const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(request.headers.authorization ?? "");
  const decoded = match ? Buffer.from(match[1], "base64").toString("utf8") : "";
  const colon = decoded.indexOf(":");
  const account = colon > 0 ? accounts.get(decoded.slice(0, colon).toLowerCase()) : undefined;
  const presented = hash(colon > 0 ? decoded.slice(colon + 1) : "");
  const credential = account?.credentials.find((c) => timingSafeEqual(c.secretHash, presented));
  if (!account || !credential) return problem(reply, 401, "UNAUTHORIZED", "Authenticate with HTTP Basic.", request.requestId);
  const limit = take(account.id);
  reply.header("RateLimit-Limit", String(BURST)).header("RateLimit-Remaining", String(limit.remaining)).header("RateLimit-Reset", String(limit.reset));
  if (!limit.allowed) return problem(reply, 429, "RATE_LIMITED", "Too many requests.", request.requestId);
  request.principal = { account, credential };
});

/** The JSON schema of a value, as a user would write it for the response: Fastify compiles a serializer from it. */
function schemaOf(value) {
  if (value === null) return { type: "null" };
  if (Array.isArray(value)) return { type: "array", items: value.length ? schemaOf(value[0]) : {} };
  if (typeof value === "object") {
    const properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schemaOf(v)]));
    return { type: "object", properties, required: Object.keys(value) };
  }
  return { type: typeof value === "number" ? (Number.isInteger(value) ? "integer" : "number") : typeof value };
}

// The envelope's schema, so Fastify compiles its serializer (fast-json-stringify), as its users do.
const itemSchema = schemaOf(captured.data);
app.get(
  "/api/v2/service-accounts/:id",
  {
    schema: {
      response: {
        200: {
          type: "object",
          properties: {
            data: itemSchema,
            meta: { type: "object", properties: { requestId: { type: "string" }, timestamp: { type: "string" } }, required: ["requestId", "timestamp"] },
          },
          required: ["data", "meta"],
        },
      },
    },
  },
  async (request, reply) => {
    if (!request.principal.credential.scopes.has(SCOPE)) return problem(reply, 403, "INSUFFICIENT_SCOPE", `This operation needs the scope ${SCOPE}.`, request.requestId);
    const found = accounts.get(request.params.id.toLowerCase());
    if (!found) return problem(reply, 404, "NOT_FOUND", "The service account was not found.", request.requestId);
    reply.header("ETag", found.etag);
    return { data: found.view, meta: { requestId: request.requestId, timestamp: new Date().toISOString() } };
  },
);

await app.listen({ port, host: "127.0.0.1" });
console.log(`fastify-reference ready http://127.0.0.1:${app.server.address().port}`);
for (const signal of ["SIGTERM", "SIGINT"]) process.once(signal, () => void app.close().then(() => process.exit(0)));
