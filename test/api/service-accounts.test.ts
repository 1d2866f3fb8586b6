import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INVALID_PAGE_TOKEN_MESSAGE } from "../../shared/platform/errors/api-error";
import { ensureAdminAccount } from "../../shared/domain/organizations/admin-account";
import { createServiceAccount, startTestHost, type TestHost } from "../support/test-host";
import { json, type Json } from "../support/json";

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(async () => host?.close());

/** A service account of an organization the admin has nothing to do with. */
async function foreignOrganization(h: TestHost) {
  const accountId = randomUUID();
  await h.services.stores.accounts.upsert({ id: accountId, name: "Unrelated Co", kind: "Customer", managedByAccountId: null });
  const workspaceId = randomUUID();
  await h.services.stores.workspaces.upsert({ id: workspaceId, name: "unrelated-ws", tenantId: randomUUID(), accountId });
  const admin = await ensureAdminAccount(h.services, { accountId, name: "Unrelated admin", workspaceIds: [workspaceId] });
  return { accountId, workspaceId, admin: { clientId: admin.clientId, clientSecret: admin.clientSecret } };
}

describe("creating service accounts", () => {
  it("returns the secret once with clientId, a Location, and the secret works for the granted scopes only", async () => {
    const workspace = host.demo.workspaces[2]!;
    const res = await host.call("POST", "/service-accounts", {
      body: {
        name: "SOAR connector",
        description: "pulls incidents",
        organizationalRole: "Member",
        workspaceAssignments: [{ workspaceId: workspace.id.toUpperCase(), role: "Analyst" }],
        scopes: ["org:users:read", "org:users:read"],
      },
    });
    expect(res.status).toBe(201);
    const data = (await json(res)).data;
    expect(res.headers.get("location")).toBe(`${host.base}/service-accounts/${data.id}`);
    expect(data.clientId).toBe(data.id);
    expect(data.clientSecret).toMatch(/^soms_[A-Za-z0-9_-]{43}$/);
    expect(data.clientSecretPrefix).toBe(data.clientSecret.slice(0, 11));
    expect(data).toMatchObject({
      accountId: host.demo.provider.id,
      name: "SOAR connector",
      description: "pulls incidents",
      isActive: true,
      isPlatformManaged: false,
      organizationalRole: "Member",
      workspaceAssignments: [{ workspaceId: workspace.id, workspaceName: workspace.name, role: "Analyst" }],
      lastUsedAt: null,
    });
    expect(data.credentials).toHaveLength(1);
    expect(data.credentials[0]).toMatchObject({ status: "Active", scopes: ["org:users:read"], lastUsedAt: null });
    expect(data.credentialExpirationDate).toBe(data.credentials[0].expirationDate);

    const auth = { clientId: data.clientId, clientSecret: data.clientSecret };
    expect((await host.call("GET", "/users", { auth })).status).toBe(200);
    expect((await host.call("GET", "/service-accounts", { auth })).status).toBe(403);

    // Never shown again, and stored only as a keyed hash.
    const again = await json(await host.call("GET", `/service-accounts/${data.id}`));
    expect(JSON.stringify(again)).not.toContain(data.clientSecret);
    expect(again.data.clientSecret).toBeUndefined();
    const stored = await host.services.stores.serviceAccounts.get(data.id);
    expect(JSON.stringify(stored)).not.toContain(data.clientSecret.slice(5));
    expect(stored!.value.credentials[0]!.secretHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("rejects unknown scopes and roles with errors naming the fields", async () => {
    const res = await host.call("POST", "/service-accounts", {
      body: { name: "x", organizationalRole: "Member", scopes: ["incidents:read", "incidents:delete"] },
    });
    expect(res.status).toBe(400);
    expect(Object.keys((await json(res)).errors)).toEqual(["scopes[1]"]);
  });

  it("requires at least one scope", async () => {
    const res = await host.call("POST", "/service-accounts", { body: { name: "x", organizationalRole: "Member", scopes: [] } });
    expect(res.status).toBe(400);
    expect(Object.keys((await json(res)).errors)).toEqual(["scopes"]);
  });

  it("rejects expiration dates in the past or too far out", async () => {
    for (const expirationDate of ["2001-01-01T00:00:00Z", "2099-01-01T00:00:00Z", "tomorrow"]) {
      const res = await host.call("POST", "/service-accounts", {
        body: { name: "x", organizationalRole: "Member", scopes: ["org:users:read"], expirationDate },
      });
      expect(res.status).toBe(400);
      expect(Object.keys((await json(res)).errors)).toEqual(["expirationDate"]);
    }
  });

  it("accepts workspace assignments only to workspaces of the caller's organization", async () => {
    const foreign = await foreignOrganization(host);
    const res = await host.call("POST", "/service-accounts", {
      body: {
        name: "x",
        organizationalRole: "Member",
        scopes: ["org:users:read"],
        workspaceAssignments: [
          { workspaceId: host.demo.workspaces[0]!.id, role: "Owner" },
          { workspaceId: foreign.workspaceId, role: "Owner" },
          { workspaceId: randomUUID(), role: "Analyst" },
        ],
      },
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(body.errors).sort()).toEqual(["workspaceAssignments[1].workspaceId", "workspaceAssignments[2].workspaceId"]);
    expect(body.errors["workspaceAssignments[1].workspaceId"]).toEqual(body.errors["workspaceAssignments[2].workspaceId"]);
  });

  it("rejects a workspace assigned twice", async () => {
    const ws = host.demo.workspaces[0]!.id;
    const res = await host.call("POST", "/service-accounts", {
      body: { name: "x", organizationalRole: "Member", scopes: ["org:users:read"], workspaceAssignments: [{ workspaceId: ws, role: "Owner" }, { workspaceId: ws, role: "Analyst" }] },
    });
    expect(res.status).toBe(400);
    expect(Object.keys((await json(res)).errors)).toEqual(["workspaceAssignments"]);
  });

  it("a caller cannot grant scopes it lacks or the Admin role unless it is an Admin (403 FORBIDDEN)", async () => {
    const manager = await createServiceAccount(host, { organizationalRole: "UserAdmin", scopes: ["org:service-accounts:manage", "org:users:read"] });
    const tooMuch = await host.call("POST", "/service-accounts", {
      auth: manager,
      body: { name: "x", organizationalRole: "Member", scopes: ["org:users:read", "webhooks:manage"] },
    });
    expect(tooMuch.status).toBe(403);
    expect(await json(tooMuch)).toMatchObject({ code: "FORBIDDEN", target: "scopes" });
    const admin = await host.call("POST", "/service-accounts", {
      auth: manager,
      body: { name: "x", organizationalRole: "Admin", scopes: ["org:users:read"] },
    });
    expect(admin.status).toBe(403);
    const fine = await host.call("POST", "/service-accounts", {
      auth: manager,
      body: { name: "x", organizationalRole: "Member", scopes: ["org:users:read"] },
    });
    expect(fine.status).toBe(201);
  });
});

describe("reading service accounts", () => {
  it("pages through every account of the organization with signed tokens", async () => {
    for (let i = 0; i < 5; i++) await createServiceAccount(host, { name: `pager ${i}`, scopes: ["org:users:read"] });
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const res = await host.call("GET", `/service-accounts?pageSize=2${token ? `&continuationToken=${encodeURIComponent(token)}` : ""}`);
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body.data.length).toBeLessThanOrEqual(2);
      expect(typeof body.pagination.hasMore).toBe("boolean");
      seen.push(...body.data.map((sa: Json) => sa.id));
      token = body.pagination.hasMore ? body.pagination.continuationToken : undefined;
      pages++;
    } while (token);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toContain(host.admin.clientId);
    const direct = await host.services.stores.serviceAccounts.list([host.demo.provider.id, ...host.demo.customers.map((c) => c.id)], { limit: 1000 });
    expect(seen.sort()).toEqual(direct.items.map((s) => s.id).sort());
  });

  it("rejects a modified, hand-built or foreign page token with the fixed message", async () => {
    await createServiceAccount(host, { scopes: ["org:users:read"] });
    const first = await json(await host.call("GET", "/service-accounts?pageSize=1"));
    const token: string = first.pagination.continuationToken;
    const [payload, signature] = token.split(".");
    const decoded = JSON.parse(Buffer.from(payload!, "base64url").toString());
    const forged = Buffer.from(JSON.stringify({ ...decoded, c: "00000000" })).toString("base64url") + "." + signature;
    const other = await createServiceAccount(host, { scopes: ["org:service-accounts:read"] });
    const cases: [string, Parameters<TestHost["call"]>[2]?][] = [
      [token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA")],
      [forged],
      ["hand-built"],
      [token, { auth: other }],
    ];
    for (const [bad, options] of cases) {
      const res = await host.call("GET", `/service-accounts?pageSize=1&continuationToken=${encodeURIComponent(bad)}`, options);
      expect(res.status).toBe(400);
      const body = await json(res);
      expect(body.code).toBe("VALIDATION_ERROR");
      expect(body.detail).toBe(INVALID_PAGE_TOKEN_MESSAGE);
      expect(body.errors.continuationToken[0]).toBe(INVALID_PAGE_TOKEN_MESSAGE);
    }
  });

  it("rejects unknown query parameters and out-of-range page sizes", async () => {
    expect((await host.call("GET", "/service-accounts?pageSize=0")).status).toBe(400);
    expect((await host.call("GET", "/service-accounts?pageSize=201")).status).toBe(400);
    const res = await host.call("GET", "/service-accounts?color=red");
    expect(res.status).toBe(400);
    expect(Object.keys((await json(res)).errors)).toEqual(["color"]);
  });

  it("another organization's service accounts are 404 and never listed", async () => {
    const foreign = await foreignOrganization(host);
    const res = await host.call("GET", `/service-accounts/${foreign.admin.clientId}`);
    expect(res.status).toBe(404);
    expect((await json(res)).code).toBe("NOT_FOUND");
    expect((await host.call("GET", `/service-accounts/${randomUUID()}`)).status).toBe(404);
    const list = await json(await host.call("GET", "/service-accounts?pageSize=200"));
    expect(list.data.map((s: Json) => s.id)).not.toContain(foreign.admin.clientId);
    // And the other way round.
    const theirs = await host.call("GET", `/service-accounts/${host.admin.clientId}`, { auth: foreign.admin });
    expect(theirs.status).toBe(404);
    for (const [method, path, body] of [
      ["PUT", `/service-accounts/${host.admin.clientId}`, { name: "x" }],
      ["DELETE", `/service-accounts/${host.admin.clientId}`, undefined],
      ["POST", `/service-accounts/${host.admin.clientId}/credentials`, { scopes: ["org:users:read"] }],
    ] as const) {
      expect((await host.call(method, path, { auth: foreign.admin, body })).status).toBe(404);
    }
  });
});

describe("changing service accounts", () => {
  it("updates only the fields sent, honours If-Match, and audits the change", async () => {
    const account = await createServiceAccount(host, { name: "before", description: "keep me", scopes: ["org:users:read"] });
    const read = await host.call("GET", `/service-accounts/${account.clientId}`);
    const etag = read.headers.get("etag")!;
    expect(etag).toBeTruthy();
    const res = await host.call("PUT", `/service-accounts/${account.clientId}`, { body: { name: "after" }, headers: { "if-match": etag } });
    expect(res.status).toBe(200);
    const data = (await json(res)).data;
    expect(data).toMatchObject({ name: "after", description: "keep me" });
    expect(res.headers.get("etag")).not.toBe(etag);

    const stale = await host.call("PUT", `/service-accounts/${account.clientId}`, { body: { name: "lost" }, headers: { "if-match": etag } });
    expect(stale.status).toBe(409);
    expect((await json(stale)).code).toBe("CONFLICT");

    const audit = await host.services.stores.audit.listRecent(host.demo.provider.id, 50);
    const entry = audit.find((e) => e.activityType === "ServiceAccountUpdated" && e.targetResourceId === account.clientId);
    expect(entry).toMatchObject({ actorId: host.admin.clientId, actorName: "Local admin", activityAction: "Update", targetResourceType: "ServiceAccount", targetResourceName: "after" });
    expect(JSON.parse(entry!.metadata)).toMatchObject({ changed: ["name"] });
  });

  it("concurrent credential additions are all kept (no lost update)", async () => {
    const account = await createServiceAccount(host, { scopes: ["org:users:read"] });
    const results = await Promise.all(
      [0, 1, 2, 3].map(() => host.call("POST", `/service-accounts/${account.clientId}/credentials`, { body: { scopes: ["org:users:read"] } })),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    const stored = await host.services.stores.serviceAccounts.get(account.clientId);
    expect(stored!.value.credentials).toHaveLength(5);
    const secrets = await Promise.all(results.map(async (r) => (await json(r)).data.clientSecret as string));
    for (const clientSecret of secrets) {
      expect((await host.call("GET", "/users", { auth: { clientId: account.clientId, clientSecret } })).status).toBe(200);
    }
  });

  it("adds credentials up to the limit, then 409", async () => {
    const account = await createServiceAccount(host, { scopes: ["org:users:read"] });
    for (let i = 0; i < 4; i++) {
      const res = await host.call("POST", `/service-accounts/${account.clientId}/credentials`, { body: { scopes: ["org:users:read"] } });
      expect(res.status).toBe(201);
      const data = (await json(res)).data;
      expect(Object.keys(data).sort()).toEqual(
        ["clientId", "clientSecret", "clientSecretPrefix", "createdAt", "expirationDate", "id", "lastUsedAt", "scopes", "status"].sort(),
      );
      expect(data.clientId).toBe(account.clientId);
    }
    const sixth = await host.call("POST", `/service-accounts/${account.clientId}/credentials`, { body: { scopes: ["org:users:read"] } });
    expect(sixth.status).toBe(409);
  });

  it("revoking twice is 409 and an unknown credential is 404", async () => {
    const account = await createServiceAccount(host, { scopes: ["org:users:read"] });
    const credentialId = (account.data.credentials as { id: string }[])[0]!.id;
    const path = `/service-accounts/${account.clientId}/credentials/${credentialId}`;
    expect((await host.call("DELETE", path)).status).toBe(204);
    expect((await host.call("DELETE", path)).status).toBe(409);
    expect((await host.call("DELETE", `/service-accounts/${account.clientId}/credentials/${randomUUID()}`)).status).toBe(404);
    const view = (await json(await host.call("GET", `/service-accounts/${account.clientId}`))).data;
    expect(view.credentials[0].status).toBe("Revoked");
    expect(view.clientSecretPrefix).toBeNull();
  });

  it("platform-managed accounts and the caller itself cannot be deleted or deactivated (403 FORBIDDEN)", async () => {
    const del = await host.call("DELETE", `/service-accounts/${host.admin.clientId}`);
    expect(del.status).toBe(403);
    expect((await json(del)).code).toBe("FORBIDDEN");
    const manager = await createServiceAccount(host, { scopes: ["org:service-accounts:manage", "org:service-accounts:read"] });
    const self = await host.call("DELETE", `/service-accounts/${manager.clientId}`, { auth: manager });
    expect(self.status).toBe(403);
    const deactivate = await host.call("PUT", `/service-accounts/${manager.clientId}`, { auth: manager, body: { isActive: false } });
    expect(deactivate.status).toBe(403);
  });

  it("every write leaves an audit event with the contract's fields", async () => {
    const account = await createServiceAccount(host, { scopes: ["org:users:read"] });
    await host.call("POST", `/service-accounts/${account.clientId}/credentials`, { body: { scopes: ["org:users:read"] } });
    await host.call("DELETE", `/service-accounts/${account.clientId}`);
    const events = (await host.services.stores.audit.listRecent(host.demo.provider.id, 500)).filter(
      (e) => e.targetResourceId === account.clientId || JSON.parse(e.metadata).serviceAccountId === account.clientId,
    );
    expect(events.map((e) => e.activityType).sort()).toEqual(
      ["ServiceAccountCreated", "ServiceAccountCredentialCreated", "ServiceAccountDeleted"].sort(),
    );
    for (const e of events) {
      for (const field of ["id", "timeGenerated", "discriminator", "activityType", "activityAction", "actorId", "targetResourceType", "targetResourceId", "actorName", "actorEmail", "targetResourceName", "metadata"]) {
        expect(e).toHaveProperty(field);
      }
      expect(JSON.stringify(e)).not.toMatch(/soms_/);
    }
  });
});
