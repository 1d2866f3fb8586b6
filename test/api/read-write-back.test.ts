import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allRoutes } from "../../shared/api/route-groups";
import { seedDemoAdministration } from "../../shared/hosts/local/demo-administration";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

/*
 * What a GET shows can be PUT back as it is, for every resource with a GET and a PUT at the same
 * address: the read, less the fields the PUT does not take (read-only: ids, timestamps, what the
 * service works out; docs/decisions.md lists them per resource), is accepted (2xx) and changes
 * nothing. Every demo resource of each kind is tried, so demo data that no write would accept fails
 * here too.
 */

let host: TestHost;
let admin: TestPerson;
beforeAll(async () => {
  host = await startTestHost();
  await seedDemoAdministration(host.services, host.demo);
  admin = await host.person({ organizationalRole: "Admin", workspaceAssignments: host.demo.workspaces.map((w) => ({ workspaceId: w.id, role: "Owner" as const })) });
}, 60_000);
afterAll(() => host?.close());

type Caller = "serviceAccount" | "person";

interface Pair {
  caller: Caller;
  /** The addresses of every resource of the kind: what GET reads and PUT writes (the PUT's own when it differs). */
  targets(): Promise<{ get: string; put?: string }[]>;
  /** Fields of the read the PUT does not take: `a`, `a[].b` (in each element), `*.b` (in each property). */
  readOnly: string[];
  /** Fields the PUT names otherwise than the read: read name → PUT name. */
  renamed?: Record<string, string>;
  /** A collection read: each element is one resource, written back to the same address. */
  collection?: boolean;
  /** The field of the read that holds the resource, when the read shows more beside it (figures, actions). */
  part?: string;
}

function send(caller: Caller, method: string, path: string, body?: unknown): Promise<Response> {
  return caller === "serviceAccount" ? host.call(method, path, { body }) : host.portal(admin, method, path, { body });
}

async function dataOf(caller: Caller, path: string): Promise<Json> {
  const res = await send(caller, "GET", path);
  expect(res.status, `GET ${path}`).toBe(200);
  return (await json(res)).data;
}

/** A copy of `value` without the fields at `path` (see Pair.readOnly). */
function without(value: Json, path: string[]): Json {
  if (value === null || typeof value !== "object") return value;
  const [head, ...rest] = path;
  if (head!.endsWith("[]")) {
    const key = head!.slice(0, -2);
    return { ...value, [key]: (value[key] as Json[]).map((element) => (rest.length === 0 ? element : without(element, rest))) };
  }
  if (rest.length === 0) {
    const { [head!]: _dropped, ...kept } = value;
    return kept;
  }
  if (head === "*") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, without(v, rest)]));
  return { ...value, [head!]: without(value[head!], rest) };
}

function writable(read: Json, pair: Pair): Json {
  let body = read;
  for (const field of pair.readOnly) body = without(body, field.split("."));
  for (const [from, to] of Object.entries(pair.renamed ?? {})) {
    const { [from]: value, ...rest } = body;
    body = { ...rest, [to]: value };
  }
  return body;
}

const resourceOf = (read: Json, pair: Pair): Json => (pair.part ? read[pair.part] : read);

/** What a write may move on its own: when the resource last changed. */
const volatile = (value: Json) => without(without(value, ["lastModifiedAt"]), ["updatedAt"]);

const idsOf = async (caller: Caller, path: string, key = "id") => ((await dataOf(caller, path)) as Json[]).map((item) => item[key] as string);
const workspaces = () => idsOf("person", "/portal/workspaces");

const pairs: Record<string, Pair> = {
  "PUT /service-accounts/{id}": {
    caller: "serviceAccount",
    // Platform-managed accounts (the admins) take no change through the API at all (403), written back or not.
    async targets() {
      const accounts = (await dataOf("serviceAccount", "/service-accounts?pageSize=200")) as Json[];
      return accounts.filter((a) => !a.isPlatformManaged).map((a) => ({ get: `/service-accounts/${a.id}` }));
    },
    readOnly: ["id", "accountId", "isPlatformManaged", "clientSecretPrefix", "credentialExpirationDate", "credentials", "lastUsedAt", "createdAt", "lastModifiedAt", "workspaceAssignments[].workspaceName"],
  },
  "PUT /users": {
    caller: "serviceAccount",
    collection: true,
    targets: async () => [{ get: "/users?pageSize=200" }],
    // The contract reads a user as `id`, `organizationalRole`, `isActive` and writes it as `userId`, `isOwner`: the role
    // changes through isOwner only, activity not at all here.
    readOnly: ["organizationalRole", "isActive"],
    renamed: { id: "userId" },
  },
  "PUT /workspaces/{workspaceId}/incidents/{source}/{incidentId}/comments/{commentId}": {
    caller: "serviceAccount",
    // The demo holds no integration's comment: one is written first, on an incident of each demo workspace's SourceA.
    targets: async () => {
      const found: { get: string; put: string }[] = [];
      for (const ws of host.demo.workspaces) {
        const page = await host.services.sources.gateway("SourceA").listIncidents({ workspaceId: ws.id, field: "createdAt", from: new Date(0).toISOString(), to: new Date().toISOString(), limit: 1 });
        const incident = page.items[0];
        if (!incident) continue;
        const base = `/workspaces/${ws.id}/incidents/SourceA/${incident.id}/comments`;
        const made = await host.call("POST", base, { body: { message: "Enrichment done: 2 of 3 indicators known." } });
        expect(made.status).toBe(201);
        const id = (await json(made)).data.id as string;
        found.push({ get: `${base}/${id}`, put: `${base}/${id}?extensionId=${host.admin.clientId}` });
      }
      return found;
    },
    // Only the text changes; who wrote it and when, and what it is, stay.
    readOnly: ["id", "createdTime", "authorEmail", "authorName", "isActivityComment", "isAgentComment", "agentName", "isClosingComment", "ticketNoteId", "ticketId"],
  },
  "PUT /webhooks/{id}": {
    caller: "serviceAccount",
    targets: async () => (await idsOf("serviceAccount", "/webhooks")).map((id) => ({ get: `/webhooks/${id}` })),
    // State changes through pause/resume/enable, authentication through POST …/credentials.
    readOnly: ["id", "serviceProviderId", "targetAccountId", "targetAccountName", "workspaceId", "status", "authenticationType", "hasSigningToken", "disableReason", "disabledAt", "createdAt", "lastModifiedAt"],
  },
  "PUT /portal/webhooks/{webhookId}": {
    caller: "person",
    targets: async () => ((await dataOf("person", "/portal/webhooks")) as Json[]).map((w) => ({ get: `/portal/webhooks/${w.webhook.id}` })),
    // The page reads a webhook with its delivery figures beside it: the configuration is `webhook`.
    part: "webhook",
    readOnly: ["id", "serviceProviderId", "targetAccountId", "targetAccountName", "workspaceId", "status", "authenticationType", "hasSigningToken", "disableReason", "disabledAt", "createdAt", "lastModifiedAt"],
  },
  "PUT /portal/organizations/{accountId}/partner-approval": {
    caller: "person",
    targets: async () => (await idsOf("person", "/portal/organizations")).map((id) => ({ get: `/portal/organizations/${id}/partner-approval` })),
    readOnly: [],
  },
  "PUT /portal/workspaces/{workspaceId}/integrations": {
    caller: "person",
    targets: async () => (await workspaces()).map((id) => ({ get: `/portal/workspaces/${id}/integrations` })),
    readOnly: ["*.inEffect", "*.notInEffect"],
  },
  "PUT /portal/people/{userId}": {
    caller: "person",
    async targets() {
      const people = (await dataOf("person", "/portal/people?pageSize=200")) as Json[];
      return people.map((p) => ({ get: `/portal/people/${p.userId}?accountId=${p.accountId}`, put: `/portal/people/${p.userId}` }));
    },
    readOnly: ["userId", "sessionsValidFrom", "createdAt", "lastModifiedAt"],
  },
  "PUT /portal/workspaces/{workspaceId}/approval-policy": {
    caller: "person",
    targets: async () => (await workspaces()).map((id) => ({ get: `/portal/workspaces/${id}/approval-policy` })),
    readOnly: [],
  },
  "PUT /portal/workspaces/{workspaceId}/sla-policy": {
    caller: "person",
    targets: async () => (await workspaces()).map((id) => ({ get: `/portal/workspaces/${id}/sla-policy` })),
    readOnly: [],
  },
  "PUT /portal/workspaces/{workspaceId}/playbooks/{playbookId}": {
    caller: "person",
    async targets() {
      const out: { get: string }[] = [];
      for (const ws of await workspaces()) {
        const catalogue = await dataOf("person", `/portal/workspaces/${ws}/playbooks`);
        out.push(...(catalogue.playbooks as Json[]).map((p) => ({ get: `/portal/workspaces/${ws}/playbooks/${p.id}` })));
      }
      return out;
    },
    readOnly: ["id", "usage"],
  },
  "PUT /portal/workspaces/{workspaceId}/gamebook-rules": {
    caller: "person",
    targets: async () => (await workspaces()).map((id) => ({ get: `/portal/workspaces/${id}/gamebook-rules` })),
    readOnly: ["workspaceId", "updatedAt", "rules[].playbooks"],
  },
  "PUT /portal/workspaces/{workspaceId}/agent-configuration": {
    caller: "person",
    targets: async () => (await workspaces()).map((id) => ({ get: `/portal/workspaces/${id}/agent-configuration` })),
    readOnly: ["workspaceId", "updatedAt", "cards[].webhooks"],
  },
};

/** The served document's request body schema of an operation. */
async function requestSchema(method: string, path: string): Promise<Json> {
  const doc = (await (await fetch(`${host.base}/openapi.json`)).json()) as Json;
  return doc.paths[`/api/v2${path}`][method.toLowerCase()].requestBody.content["application/json"].schema;
}

describe("a resource read can be written back as read", () => {
  const routes = allRoutes();
  const withGet = routes
    .filter((r) => r.method === "PUT" && routes.some((g) => g.method === "GET" && g.path === r.path))
    .map((r) => `PUT ${r.path}`);

  it("every PUT with a GET at its address is tried here", () => {
    expect(withGet.sort()).toEqual(Object.keys(pairs).sort());
  });

  for (const [operation, pair] of Object.entries(pairs)) {
    it(`${operation}: every resource's read, less its read-only fields, is accepted and changes nothing`, async () => {
      const template = operation.slice("PUT ".length);
      // A read-only field is one the PUT does not take.
      const properties = Object.keys((await requestSchema("PUT", template)).properties ?? {});
      for (const field of pair.readOnly.filter((f) => !f.includes("."))) expect(properties, `${operation} takes ${field}`).not.toContain(field);

      const targets = await pair.targets();
      expect(targets.length, operation).toBeGreaterThan(0);
      let written = 0;
      for (const target of targets) {
        const read = resourceOf(await dataOf(pair.caller, target.get), pair);
        for (const item of pair.collection ? (read as Json[]) : [read]) {
          const body = writable(item, pair);
          const put = await send(pair.caller, "PUT", target.put ?? target.get.split("?")[0]!, body);
          expect(put.status, `${operation} ${target.get}: ${JSON.stringify(body)} → ${JSON.stringify(await json(put))}`).toBeLessThan(300);
          written++;
        }
        // Written back, the resource is as it was.
        const again = resourceOf(await dataOf(pair.caller, target.get), pair);
        expect(volatile(again), target.get).toEqual(volatile(read));
      }
      expect(written).toBeGreaterThan(0);
    }, 60_000);
  }
});
