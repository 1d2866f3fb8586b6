import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoAdministration } from "../../shared/hosts/local/demo-administration";
import { seedDemoGamebookRuns } from "../../shared/hosts/local/demo-gamebook-runs";
import { fakeDns, startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { signInHeadless } from "../support/oidc-sign-in";
import { demoPerson } from "../../shared/hosts/local/identity-provider/demo-people";
import { exampleRequests, sendExample } from "../support/example-requests";
import { json, type Json } from "../support/json";

/**
 * "Try it out" on the reference page, for every operation: the request Swagger UI fills in from the
 * served document (path and query parameters from their `example`, `schema.example` or
 * `schema.default`, the body from its schema's first `examples` entry) is sent as the local admin to
 * a host seeded as `npm start` seeds it, and must succeed; a portal operation is sent as an Admin of
 * the provider who owns every demo workspace, with their session (its CSRF token is the session's,
 * not the document's). Reads go first, then writes, deletions last, so that no example removes what
 * a later one needs.
 */

let host: TestHost;
let person: TestPerson;
beforeAll(async () => {
  // Webhook URLs are checked against public DNS (example.com resolves), but deliveries connect
  // through the first resolver, which answers loopback: the sender refuses it, so no example
  // delivery leaves the machine.
  host = await startTestHost({ resolveHost: async () => ["127.0.0.1"], signIn: true });
  host.services.resolveHost = fakeDns;
  await seedDemoAdministration(host.services, host.demo);
  await seedDemoGamebookRuns(host.services, host.demo.workspaces);
  person = await host.person({ organizationalRole: "Admin", workspaceAssignments: host.demo.workspaces.map((w) => ({ workspaceId: w.id, role: "Owner" as const })) });
});
afterAll(async () => host?.close());

describe("the reference page's examples", () => {
  it("fill every parameter a caller must give and every request body", async () => {
    const doc = await json(await host.call("GET", "/openapi.json", { auth: null }));
    expect(exampleRequests(doc).missing).toEqual([]);
  });

  it("succeed as pre-filled for every operation, sent in order: reads, writes, deletions", async () => {
    const doc = await json(await host.call("GET", "/openapi.json", { auth: null }));
    const { requests } = exampleRequests(doc);
    const operations = Object.values<Json>(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(requests.length).toBe(operations);
    const failures: string[] = [];
    const counts = { GET: 0, write: 0, DELETE: 0 };
    for (const request of requests) {
      // `call` and `portal` check every answer against the served document as well.
      // The callback's only caller is the identity provider's redirect: its example is a real sign-in's.
      const res = request.template.endsWith("/portal/auth/callback")
        ? (await signInHeadless({ startUrl: `${host.base}/portal/auth/sign-in`, personId: demoPerson("amira").oid })).response
        : await sendExample(host, person, request);
      const text = await res.text();
      // A sign-in step answers with where the browser goes next (303), as it documents.
      const redirected = res.status === 303 && doc.paths[request.template][request.method.toLowerCase()].responses["303"] !== undefined;
      if ((res.status < 200 || res.status > 299) && !redirected) failures.push(`${request.method} ${request.url} → ${res.status} ${text.slice(0, 300)}`);
      counts[request.method === "GET" || request.method === "DELETE" ? request.method : "write"]++;
    }
    expect(failures).toEqual([]);
    expect(counts.GET).toBeGreaterThan(20);
    expect(counts.write).toBeGreaterThan(15);
    expect(counts.DELETE).toBeGreaterThanOrEqual(5);
    console.info(`example requests: ${requests.length} (${counts.GET} reads, ${counts.write} writes, ${counts.DELETE} deletions), all 2xx`);
  }, 120_000);
});
