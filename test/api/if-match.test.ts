import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoAdministration } from "../../shared/hosts/local/demo-administration";
import { seedDemoGamebookRuns } from "../../shared/hosts/local/demo-gamebook-runs";
import { exampleRequests, sendExample } from "../support/example-requests";
import { fakeDns, startTestHost, type TestHost, type TestPerson } from "../support/test-host";
import { json, type Json } from "../support/json";

/**
 * `If-Match` is documented exactly where it is honoured. Every change the document describes is
 * sent as its example, in the examples' order, with an `If-Match` naming a version no resource has:
 * an operation documenting the header must refuse it (409 `CONFLICT`, `target` `If-Match`), and one
 * that does not must not. The answers are checked against the document as well.
 */

const STALE = '"a-version-no-resource-has"';

let host: TestHost;
let person: TestPerson;
beforeAll(async () => {
  host = await startTestHost({ resolveHost: async () => ["127.0.0.1"] });
  host.services.resolveHost = fakeDns;
  await seedDemoAdministration(host.services, host.demo);
  await seedDemoGamebookRuns(host.services, host.demo.workspaces);
  person = await host.person({ organizationalRole: "Admin", workspaceAssignments: host.demo.workspaces.map((w) => ({ workspaceId: w.id, role: "Owner" as const })) });
});
afterAll(async () => host?.close());

describe("If-Match in the OpenAPI document", () => {
  it("is documented on every change that honours it, and only there", async () => {
    const doc = await json(await host.call("GET", "/openapi.json", { auth: null }));
    const documents = (r: { method: string; template: string }) =>
      (doc.paths[r.template][r.method.toLowerCase()].parameters ?? []).some((p: Json) => p.$ref === "#/components/parameters/If-Match");
    // Changes only; signing out has no resource and would end the session the others are sent with.
    const changes = exampleRequests(doc).requests.filter((r) => r.method !== "GET" && !r.template.endsWith("/portal/auth/sign-out"));
    const wrong: string[] = [];
    let honoured = 0;
    for (const request of changes) {
      const res = await sendExample(host, person, request, { "If-Match": STALE });
      const text = await res.text();
      const refused = res.status === 409 && (JSON.parse(text) as { target?: string }).target === "If-Match";
      if (documents(request)) {
        honoured++;
        if (!refused) wrong.push(`${request.method} ${request.template} documents If-Match, yet answered ${res.status} ${text.slice(0, 200)}`);
      } else if (refused) wrong.push(`${request.method} ${request.template} honours If-Match without documenting it`);
    }
    expect(wrong).toEqual([]);
    expect(honoured).toBeGreaterThan(25);
    expect(changes.length - honoured).toBeGreaterThan(20);
  }, 120_000);
});
