// The local API host as the scenarios in bench/scenarios/ use it: where the repository and the built
// host are, starting the host with a fresh admin service account, and the calls the scenarios make to
// it (setup calls, a person's portal calls, the /_local controls, the cross-workspace listing).

import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { childEnv, freePort, httpGet, startIpcChild, startServer } from "./lib.mjs";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
const API_HOST = path.join(ROOT, "dist/shared/hosts/local/main.js");
const HEAP_PROBE = path.join(ROOT, "bench/heap-probe.cjs");

/**
 * Starts the local API host with a freshly generated admin service account and waits until that
 * account can be read with its own credentials, which proves the host is listening, seeded and
 * authenticating. Later scenarios can reuse this and then seed what they need through the API.
 *
 * `env` adds to (or overrides) the host's fixed environment, e.g. DEMO_WORKSPACES for a bigger
 * demo world; `readyTimeoutMs` leaves room for seeding such a world. With `heapProbe`, the host runs
 * with bench/heap-probe.cjs preloaded (and --expose-gc), and the result has `heapAfterGc()`: the
 * host's heap and RSS after a full collection, in MB; and `heapSnapshot(file)`, which writes one.
 * `nodeArgs` go to node before the host's script (e.g. `--require` of another probe).
 */
export async function startApiHost({ env = {}, readyTimeoutMs, heapProbe = false, nodeArgs = [], root = ROOT, sameAccountAs } = {}) {
  // `root`: another built checkout of this repository, to run an older build beside this one (older
  // builds kept the host at dist/shared/local/). `sameAccountAs`: a started host whose admin account
  // this one gets too, so that one load's headers serve both.
  const apiHost = root === ROOT ? API_HOST : [path.join(root, "dist/shared/hosts/local/main.js"), path.join(root, "dist/shared/local/main.js")].find(existsSync) ?? path.join(root, "dist/shared/hosts/local/main.js");
  if (!existsSync(apiHost)) {
    throw new Error(`${apiHost} does not exist; run \`npm run build\` there (npm run bench does it here).`);
  }
  const port = await freePort();
  const clientId = sameAccountAs?.clientId ?? randomUUID();
  const clientSecret = sameAccountAs?.clientSecret ?? randomBytes(32).toString("base64url"); // 43 chars, no ':' to confuse Basic auth
  const baseUrl = `http://127.0.0.1:${port}/api/v2`;
  const authHeaders = { Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}` };
  const accountUrl = `${baseUrl}/service-accounts/${clientId}`;
  // BENCH_CPU_PROF_DIR: each API host runs under --cpu-prof and writes its profile there when stopped.
  const profileDir = process.env.BENCH_CPU_PROF_DIR;
  const probePort = heapProbe ? await freePort() : null;
  const server = await startServer({
    name: "api host",
    script: apiHost,
    nodeArgs: [
      ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(profileDir)}`] : []),
      ...(heapProbe ? ["--expose-gc", "--require", HEAP_PROBE] : []),
      ...nodeArgs,
    ],
    cwd: root,
    env: childEnv({
      PORT: String(port),
      LOCAL_ADMIN_CLIENT_ID: clientId,
      LOCAL_ADMIN_CLIENT_SECRET: clientSecret,
      // Limits far above anything the bench can send: we measure the request path, not 429s.
      RATE_LIMIT_BURST: "100000000",
      RATE_LIMIT_PER_SECOND: "100000000",
      // Per-request info logs would turn the benchmark into a logging benchmark.
      LOG_LEVEL: "warn",
      ...(heapProbe ? { BENCH_HEAP_PROBE_PORT: String(probePort) } : {}),
      ...env,
    }),
    readyUrl: accountUrl,
    headers: authHeaders,
    ...(readyTimeoutMs === undefined ? {} : { timeoutMs: readyTimeoutMs }),
  });
  const probe = async (pathname) => JSON.parse((await httpGet(`http://127.0.0.1:${probePort}${pathname}`, {}, 120_000)).body.toString("utf8"));
  const heapAfterGc = heapProbe ? () => probe("/heap") : undefined;
  const heapSnapshot = heapProbe ? async (file) => (await probe(`/snapshot?file=${encodeURIComponent(file)}`)).file : undefined;
  return { server, baseUrl, authHeaders, clientId, clientSecret, accountUrl, heapAfterGc, heapSnapshot };
}

/** The Cosmos emulator's published key; the Cosmos-protocol server does not check it. */
const COSMOS_KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

/**
 * Starts the Cosmos-protocol server in a process of its own (bench/cosmos-server.mjs). Resolves with
 * { server (stop() it), endpoint, hostEnv(database) }: the environment that puts the API host on it.
 */
export async function startCosmosServer() {
  const server = await startIpcChild({ name: "cosmos server", script: path.join(ROOT, "bench/cosmos-server.mjs"), cwd: ROOT, env: childEnv({}) });
  const { endpoint } = server.ready;
  // A durable store needs the keys a deployment has (the memory store makes up its own at start).
  const key = () => randomBytes(32).toString("base64");
  const hostEnv = (database) => ({
    STORE: "cosmos",
    COSMOS_ENDPOINT: endpoint,
    COSMOS_KEY,
    COSMOS_DATABASE: database,
    COSMOS_TRUST_SELF_SIGNED: "true",
    SECRET_HASH_KEY: key(),
    PAGE_TOKEN_KEY: key(),
    WEBHOOK_SECRETS_KEY: key(),
  });
  return { server, endpoint, hostEnv };
}

/** Setup calls against the API (not measured): plain fetch, JSON in and out. */
export async function apiJson(api, method, pathname, body) {
  const res = await fetch(`${api.baseUrl}${pathname}`, {
    method,
    headers: { ...api.authHeaders, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${pathname}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : null;
}

/**
 * Signs a demo person in on the host through its local identity provider (beside it on PORT + 1), as
 * `npm run sign-in` does: their session cookie and CSRF token, for `portalJson`.
 */
export async function signInPerson(api, key) {
  const dist = (file) => import(pathToFileURL(path.join(ROOT, "dist/shared/hosts/local/identity-provider", file)).href);
  const [{ signInToPortal }, { demoPerson }] = await Promise.all([dist("headless-sign-in.js"), dist("demo-people.js")]);
  return signInToPortal(api.baseUrl, demoPerson(key).oid);
}

/** Setup calls against the portal as a signed-in person (not measured): JSON in and out, status checked. */
export async function portalJson(api, session, method, pathname, body) {
  const res = await fetch(`${api.baseUrl}${pathname}`, {
    method,
    headers: { cookie: session.cookie, "X-CSRF-Token": session.csrfToken, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${pathname}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : null;
}

/** A call to the local host's /_local controls (no authentication): JSON in and out, status checked. */
export async function localControl(api, method, pathname, body, expectStatus) {
  const res = await fetch(`${new URL(api.baseUrl).origin}/_local${pathname}`, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expectStatus) throw new Error(`${method} /_local${pathname}: HTTP ${res.status} (expected ${expectStatus}) ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : null;
}

/**
 * One POST /incidents/across-workspaces with plain fetch (Node's global fetch keeps connections
 * alive). The latency runs from sending the request to the last byte of the response, so it covers
 * the server's work and the transfer, not our JSON parsing.
 */
export async function postListing(api, body) {
  const payload = JSON.stringify(body);
  const started = performance.now();
  const res = await fetch(`${api.baseUrl}/incidents/across-workspaces`, {
    method: "POST",
    headers: { ...api.authHeaders, "Content-Type": "application/json" },
    body: payload,
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`HTTP ${res.status} from the listing: ${bytes.toString("utf8").slice(0, 300)}`);
  return { ms, bytes: bytes.length, data: JSON.parse(bytes.toString("utf8")).data };
}

/**
 * Pages through the whole listing as the contract says (each call sends the previous response's
 * sourcePageTokens) and checks on the way that every incident comes exactly once. Stops early,
 * marked `complete: false`, when the paging budget runs out. `query` adds filters to every call (e.g.
 * `sources`); `onItem` sees each incident the first time it comes.
 */
export async function pageThrough(api, budgetMs, { query = {}, onItem } = {}) {
  const seen = new Set();
  const workspaces = new Set();
  const pages = [];
  const problems = [];
  let duplicates = 0;
  let cutShort = false;
  let body = { ...query, isFirstCall: true, workspacePageTokens: [] };
  const started = performance.now();
  for (;;) {
    const page = await postListing(api, body);
    for (const item of page.data.incidents) {
      const key = `${item.incident.workspaceId}/${item.source}/${item.incident.id}`;
      if (seen.has(key)) {
        duplicates++;
      } else {
        seen.add(key);
        onItem?.(item);
      }
      workspaces.add(item.incident.workspaceId);
    }
    pages.push({ ms: page.ms, incidents: page.data.incidents.length, bytes: page.bytes });
    if (!page.data.moreIncidentsAvailable) break;
    if (page.data.sourcePageTokens.length === 0) {
      problems.push(`page ${pages.length} says more incidents are available but returns no tokens to continue with`);
      break;
    }
    if (performance.now() - started > budgetMs) {
      cutShort = true;
      break;
    }
    body = { ...query, isFirstCall: false, workspacePageTokens: page.data.sourcePageTokens };
  }
  const totalMs = performance.now() - started;
  const complete = problems.length === 0 && !cutShort;
  return { pages, totalMs, incidents: seen.size + duplicates, distinct: seen.size, duplicates, workspaces: workspaces.size, problems, complete };
}

/**
 * Open (New or Active) SourceA and SourceB incidents across every workspace of the admin, from the
 * cross-workspace listing, paged until `want` are found or it runs out.
 */
export async function openIncidents(api, want) {
  const found = [];
  const workspaces = new Set();
  let body = { isFirstCall: true, workspacePageTokens: [], sources: ["SourceA", "SourceB"] };
  for (let page = 0; page < 100 && found.length < want; page++) {
    const { data } = await apiJson(api, "POST", "/incidents/across-workspaces", body);
    for (const item of data.incidents) {
      const { workspaceId, id, status } = item.incident;
      if (status !== "New" && status !== "Active") continue;
      const source = String(item.source);
      found.push({ workspaceId, source, id, status, key: `${workspaceId}/${source.toLowerCase()}/${id}` });
      workspaces.add(workspaceId);
    }
    if (!data.moreIncidentsAvailable || data.sourcePageTokens.length === 0) break;
    body = { isFirstCall: false, workspacePageTokens: data.sourcePageTokens, sources: ["SourceA", "SourceB"] };
  }
  return { incidents: found.slice(0, want), workspaces: workspaces.size };
}
