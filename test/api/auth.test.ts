import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServiceAccount, startTestHost, type TestHost } from "../support/test-host";

let host: TestHost;
let clock = Date.now();
beforeAll(async () => {
  host = await startTestHost({ now: () => new Date(clock), env: { PRINCIPAL_CACHE_TTL_MS: "60000" } });
});
afterAll(async () => host?.close());

/** The parts of a 401 that must not vary with its cause. */
async function unauthorizedShape(res: Response) {
  expect(res.status).toBe(401);
  const body = (await res.json()) as Record<string, unknown>;
  const { requestId, timestamp, ...stable } = body;
  expect(requestId).toBe(res.headers.get("x-request-id"));
  expect(typeof timestamp).toBe("string");
  return { ...stable, wwwAuthenticate: res.headers.get("www-authenticate") } as Record<string, unknown>;
}

describe("authentication", () => {
  it("answers every kind of bad credential with the same 401", async () => {
    const member = await createServiceAccount(host, { scopes: ["org:users:read"] });
    const revoked = await createServiceAccount(host, { scopes: ["org:users:read"] });
    const credentialId = (revoked.data.credentials as { id: string }[])[0]!.id;
    expect((await host.call("DELETE", `/service-accounts/${revoked.clientId}/credentials/${credentialId}`)).status).toBe(204);
    const inactive = await createServiceAccount(host, { scopes: ["org:users:read"] });
    expect((await host.call("PUT", `/service-accounts/${inactive.clientId}`, { body: { isActive: false } })).status).toBe(200);

    const attempts: Record<string, Record<string, string>> = {
      missing: {},
      notBasic: { authorization: `Bearer ${member.clientSecret}` },
      malformedBase64: { authorization: "Basic ###" },
      noColon: { authorization: `Basic ${Buffer.from(member.clientId).toString("base64")}` },
      unknownId: { authorization: host.basic("6f1c1c1e-1111-4111-8111-111111111111", member.clientSecret) },
      nonGuidId: { authorization: host.basic("admin", member.clientSecret) },
      wrongSecret: { authorization: host.basic(member.clientId, member.clientSecret + "x") },
      otherAccountsSecret: { authorization: host.basic(member.clientId, revoked.clientSecret) },
      revoked: { authorization: host.basic(revoked.clientId, revoked.clientSecret) },
      inactiveAccount: { authorization: host.basic(inactive.clientId, inactive.clientSecret) },
    };
    const shapes = [];
    for (const [name, headers] of Object.entries(attempts)) {
      const res = await host.call("GET", "/users", { auth: null, headers });
      shapes.push({ name, shape: await unauthorizedShape(res) });
    }
    const first = shapes[0]!.shape;
    expect(first.code).toBe("UNAUTHORIZED");
    for (const { shape } of shapes) expect(shape).toEqual(first);
    // And the member's own good credential still works.
    expect((await host.call("GET", "/users", { auth: member })).status).toBe(200);
  });

  it("an expired credential is 401", async () => {
    const soon = new Date(clock + 60_000).toISOString();
    const account = await createServiceAccount(host, { scopes: ["org:users:read"], expirationDate: soon });
    expect((await host.call("GET", "/users", { auth: account })).status).toBe(200);
    clock += 120_000;
    try {
      expect((await host.call("GET", "/users", { auth: account })).status).toBe(401);
    } finally {
      clock -= 120_000;
    }
  });

  it("a revocation takes effect at once on this instance, despite the principal cache", async () => {
    const account = await createServiceAccount(host, { scopes: ["org:users:read"] });
    expect((await host.call("GET", "/users", { auth: account })).status).toBe(200);
    const credentialId = (account.data.credentials as { id: string }[])[0]!.id;
    expect((await host.call("DELETE", `/service-accounts/${account.clientId}/credentials/${credentialId}`)).status).toBe(204);
    expect((await host.call("GET", "/users", { auth: account })).status).toBe(401);
  });

  it("a revocation also stops a caller that spells its client id in upper case", async () => {
    const account = await createServiceAccount(host, { scopes: ["org:users:read"] });
    const upper = { clientId: account.clientId.toUpperCase(), clientSecret: account.clientSecret };
    expect((await host.call("GET", "/users", { auth: upper })).status).toBe(200);
    const credentialId = (account.data.credentials as { id: string }[])[0]!.id;
    expect((await host.call("DELETE", `/service-accounts/${account.clientId}/credentials/${credentialId}`)).status).toBe(204);
    expect((await host.call("GET", "/users", { auth: upper })).status).toBe(401);
  });

  it("deleting a service account stops its credentials at once", async () => {
    const account = await createServiceAccount(host, { scopes: ["org:users:read"] });
    expect((await host.call("GET", "/users", { auth: account })).status).toBe(200);
    expect((await host.call("DELETE", `/service-accounts/${account.clientId}`)).status).toBe(204);
    expect((await host.call("GET", "/users", { auth: account })).status).toBe(401);
  });

  it("a missing scope is 403 INSUFFICIENT_SCOPE naming the scope", async () => {
    const account = await createServiceAccount(host, { scopes: ["org:users:read"] });
    const res = await host.call("GET", "/service-accounts", { auth: account });
    expect(res.status).toBe(403);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.code).toBe("INSUFFICIENT_SCOPE");
    expect(body.target).toBe("org:service-accounts:read");
  });

  it("records when a credential was last used", async () => {
    const account = await createServiceAccount(host, { scopes: ["org:users:read", "org:service-accounts:read"] });
    expect(account.data.lastUsedAt).toBeNull();
    await host.call("GET", "/users", { auth: account });
    await expect
      .poll(async () => {
        const res = await host.call("GET", `/service-accounts/${account.clientId}`);
        const data = ((await res.json()) as { data: { lastUsedAt: string | null; credentials: { lastUsedAt: string | null }[] } }).data;
        return data.lastUsedAt !== null && data.credentials[0]!.lastUsedAt !== null;
      })
      .toBe(true);
  });

  it("public reference routes need no credential", async () => {
    expect((await host.call("GET", "/openapi.json", { auth: null })).status).toBe(200);
    expect((await host.call("GET", "/docs", { auth: null })).status).toBe(200);
  });
});
