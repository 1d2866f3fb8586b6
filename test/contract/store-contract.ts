import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ErrorCode } from "../../shared/platform/errors/api-error";
import { deliveryLogPartition } from "../../shared/platform/store/delivery-log-partition";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import { workspaceDataCases } from "./workspace-data-contract";
import { apiErrorOf } from "../support/api-error-of";
import type { AuditSearchCursor, AuditSearchFilter, AwaitingApprovalCursor, AwaitingApprovalFilter, DecidedApprovalCursor, GamebookRunCursor, Page, Stores } from "../../shared/platform/store/ports";
import type { AccountRecord } from "../../shared/model/organizations/account";
import type { AuditEventRecord } from "../../shared/model/audit/audit-event";
import type { GamebookRunRecord } from "../../shared/model/gamebooks/gamebook-run";
import type { PlaybookCatalogueRecord } from "../../shared/model/gamebooks/playbook-catalogue-record";
import type { IncidentStateRecord } from "../../shared/model/incidents/incident-state-record";
import type { OutboxEventRecord, OutboxScope } from "../../shared/platform/events/outbox-record";
import { deliveryOutcomeFields, type DeliveryLogRecord } from "../../shared/model/webhooks/delivery-log";
import type { WebhookRecord } from "../../shared/model/webhooks/webhook";
import type { ServiceAccountRecord } from "../../shared/model/organizations/service-account";
import type { UserRecord } from "../../shared/model/organizations/user";
import type { WorkspaceRecord } from "../../shared/model/organizations/workspace";
import type { IdempotencyRecord } from "../../shared/platform/store/idempotency-record";

export interface StoreFixture {
  stores: Stores;
  teardown(): Promise<void>;
}

/**
 * The behaviour every store adapter must have, pinned once and run against each adapter. `setup`
 * gives every test empty stores of its own.
 */
export function describeStoreContract(name: string, setup: () => Promise<StoreFixture>): void {
  describe(`${name} stores`, () => {
    let stores: Stores;
    let teardown: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      ({ stores, teardown } = await setup());
    });
    afterEach(async () => {
      await teardown?.();
      teardown = undefined;
    });

    describe("idempotency keys", () => {
      const record = (id: string, scope = "service-account:acct-1:sa-1", extra: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
        id,
        scope,
        fingerprint: "fp-1",
        createdAt: "2026-03-05T00:00:00.000Z",
        expiresAt: "2026-03-06T00:00:00.000Z",
        lockedUntil: "2026-03-05T00:01:00.000Z",
        ...extra,
      });

      it("returns undefined for an unknown key, and a created record exactly as written", async () => {
        expect(await stores.idempotencyKeys.get("service-account:acct-1:sa-1", "k1")).toBeUndefined();
        const created = await stores.idempotencyKeys.create(record("k1"));
        expect(created.value).toStrictEqual(record("k1"));
        expect(await stores.idempotencyKeys.get("service-account:acct-1:sa-1", "k1")).toStrictEqual(created);
      });

      it("refuses a second create of the caller's key as a lost race, and keeps another caller's same key apart", async () => {
        await stores.idempotencyKeys.create(record("k1"));
        expect((await apiErrorOf(stores.idempotencyKeys.create(record("k1", undefined, { fingerprint: "fp-2" })))).code).toBe("CONFLICT");
        const theirs = await stores.idempotencyKeys.create(record("k1", "person:acct-1:u-1", { fingerprint: "fp-2" }));
        expect(theirs.value.fingerprint).toBe("fp-2");
        expect((await stores.idempotencyKeys.get("service-account:acct-1:sa-1", "k1"))?.value.fingerprint).toBe("fp-1");
      });

      it("replaces and deletes only the version read", async () => {
        const created = await stores.idempotencyKeys.create(record("k1"));
        const answered = record("k1", undefined, { lockedUntil: undefined, response: { status: 201, headers: { Location: "https://x.example/a" }, sealedBody: "v1.a.b.c" } });
        delete answered.lockedUntil;
        const replaced = await stores.idempotencyKeys.replace(answered, created.etag);
        expect(replaced.value).toStrictEqual(answered);
        expect((await apiErrorOf(stores.idempotencyKeys.replace(record("k1"), created.etag))).code).toBe("CONFLICT");
        expect((await apiErrorOf(stores.idempotencyKeys.delete("service-account:acct-1:sa-1", "k1", created.etag))).code).toBe("CONFLICT");
        await stores.idempotencyKeys.delete("service-account:acct-1:sa-1", "k1", replaced.etag);
        expect(await stores.idempotencyKeys.get("service-account:acct-1:sa-1", "k1")).toBeUndefined();
        await stores.idempotencyKeys.create(record("k1"));
      });
    });

    describe("accounts", () => {
      it("returns undefined for an unknown id", async () => {
        expect(await stores.accounts.get("acct-missing")).toBeUndefined();
      });

      it("returns an upserted account exactly as written", async () => {
        const provider = account("acct-sp", { kind: "ServiceProvider" });
        await stores.accounts.upsert(provider);
        expect(await stores.accounts.get("acct-sp")).toStrictEqual(provider);
      });

      it("upsert overwrites the existing account", async () => {
        await stores.accounts.upsert(account("acct-1", { name: "Before" }));
        await stores.accounts.upsert(account("acct-1", { name: "After" }));
        expect((await stores.accounts.get("acct-1"))?.name).toBe("After");
      });

      it("listManagedBy returns exactly the accounts managed by that provider", async () => {
        await stores.accounts.upsert(account("acct-sp1", { kind: "ServiceProvider" }));
        await stores.accounts.upsert(account("acct-c2", { managedByAccountId: "acct-sp1" }));
        await stores.accounts.upsert(account("acct-c1", { managedByAccountId: "acct-sp1" }));
        await stores.accounts.upsert(account("acct-c3", { managedByAccountId: "acct-sp2" }));
        await stores.accounts.upsert(account("acct-c4"));

        expect(ids(await stores.accounts.listManagedBy("acct-sp1")).sort()).toEqual(["acct-c1", "acct-c2"]);
        expect(ids(await stores.accounts.listManagedBy("acct-sp2"))).toEqual(["acct-c3"]);
        expect(await stores.accounts.listManagedBy("acct-c1")).toEqual([]);
      });

      it("keeps the stored account when the caller later changes its objects", async () => {
        const written = account("acct-1", { name: "Original" });
        await stores.accounts.upsert(written);
        written.name = "Changed after upsert";
        const read = await stores.accounts.get("acct-1");
        attemptToChange(() => {
          if (read) read.name = "Changed after get";
        });
        expect((await stores.accounts.get("acct-1"))?.name).toBe("Original");
      });
    });

    describe("workspaces", () => {
      it("returns undefined for an unknown id, and an upserted workspace exactly as written", async () => {
        expect(await stores.workspaces.get("ws-1")).toBeUndefined();
        const ws = workspace("ws-1", "acct-1");
        await stores.workspaces.upsert(ws);
        expect(await stores.workspaces.get("ws-1")).toStrictEqual(ws);
      });

      it("upsert overwrites the existing workspace", async () => {
        await stores.workspaces.upsert(workspace("ws-1", "acct-1", { name: "Before" }));
        await stores.workspaces.upsert(workspace("ws-1", "acct-2", { name: "After" }));
        expect(await stores.workspaces.get("ws-1")).toMatchObject({ name: "After", accountId: "acct-2" });
      });

      it("listByAccounts returns the workspaces of the given accounts only", async () => {
        await stores.workspaces.upsert(workspace("ws-3", "acct-1"));
        await stores.workspaces.upsert(workspace("ws-1", "acct-1"));
        await stores.workspaces.upsert(workspace("ws-2", "acct-2"));
        await stores.workspaces.upsert(workspace("ws-4", "acct-3"));

        expect(ids(await stores.workspaces.listByAccounts(["acct-1", "acct-3"])).sort()).toEqual(["ws-1", "ws-3", "ws-4"]);
        expect(ids(await stores.workspaces.listByAccounts(["acct-2"]))).toEqual(["ws-2"]);
        expect(await stores.workspaces.listByAccounts(["acct-9"])).toEqual([]);
        expect(await stores.workspaces.listByAccounts([])).toEqual([]);
      });

      it("getMany returns the existing workspaces among the ids, each once", async () => {
        await stores.workspaces.upsert(workspace("ws-1", "acct-1"));
        await stores.workspaces.upsert(workspace("ws-2", "acct-2"));
        await stores.workspaces.upsert(workspace("ws-3", "acct-1"));

        expect(ids(await stores.workspaces.getMany(["ws-3", "ws-1", "ws-missing", "ws-1"])).sort()).toEqual(["ws-1", "ws-3"]);
        expect(await stores.workspaces.getMany([])).toEqual([]);
      });

      it("an offboarded workspace is gone for get, getMany and the listings; read and listOffboarded still find it", async () => {
        await stores.workspaces.upsert(workspace("ws-1", "acct-1"));
        await stores.workspaces.upsert(workspace("ws-3", "acct-2"));
        const saved = await stores.workspaces.create(workspace("ws-2", "acct-1"));
        const offboarded = { ...saved.value, offboarded: { at: created, byUserId: "u-1", byName: "Amira Haddad" } };
        await stores.workspaces.replace(offboarded, saved.etag);

        expect(await stores.workspaces.get("ws-2")).toBeUndefined();
        expect(ids(await stores.workspaces.getMany(["ws-1", "ws-2"]))).toEqual(["ws-1"]);
        expect(ids(await stores.workspaces.listByAccounts(["acct-1", "acct-2"]))).toEqual(["ws-1", "ws-3"]);
        expect(ids(await stores.workspaces.listAll())).toEqual(["ws-1", "ws-3"]);
        expect((await stores.workspaces.read("ws-2"))?.value).toStrictEqual(offboarded);
        expect(ids(await stores.workspaces.listOffboarded(["acct-1"]))).toEqual(["ws-2"]);
        expect(await stores.workspaces.listOffboarded(["acct-2"])).toEqual([]);
        expect(await stores.workspaces.listOffboarded([])).toEqual([]);
      });

      it("keeps a workspace's per-source settings as written", async () => {
        const sources = { SourceA: { enabled: true, vendorWorkspaceId: "vendor-ws-1", bridge: { url: "https://bridge.example.com/a", authorization: "v1.sealed" } }, SourceC: { enabled: false } };
        const saved = await stores.workspaces.create(workspace("ws-1", "acct-1", { sources }));
        expect(await stores.workspaces.get("ws-1")).toStrictEqual(saved.value);
        expect((await stores.workspaces.get("ws-1"))?.sources).toStrictEqual(sources);
      });

      it("keeps the stored workspace when the caller later changes its objects", async () => {
        const written = workspace("ws-1", "acct-1", { name: "Original" });
        await stores.workspaces.upsert(written);
        written.name = "Changed after upsert";
        const [listed] = await stores.workspaces.listByAccounts(["acct-1"]);
        // A snapshot may be frozen (memory) or a private copy (Cosmos): either way the store is untouched.
        attemptToChange(() => {
          if (listed) listed.name = "Changed after list";
        });
        expect((await stores.workspaces.get("ws-1"))?.name).toBe("Original");
      });
    });

    describe("service accounts", () => {
      it("create returns the record with an etag, and get returns the same", async () => {
        const record = serviceAccount("sa-1", "acct-1");
        const created = await stores.serviceAccounts.create(record);
        expect(created.value).toStrictEqual(record);
        expect(created.etag).toEqual(expect.any(String));
        expect(created.etag).not.toBe("");
        expect(await stores.serviceAccounts.get("sa-1")).toStrictEqual(created);
      });

      it("get returns undefined for an unknown id", async () => {
        expect(await stores.serviceAccounts.get("sa-missing")).toBeUndefined();
      });

      it("create of an existing id fails with CONFLICT and keeps the first", async () => {
        await stores.serviceAccounts.create(serviceAccount("sa-1", "acct-1", { name: "First" }));
        await expectApiError(stores.serviceAccounts.create(serviceAccount("sa-1", "acct-2", { name: "Second" })), "CONFLICT");
        expect((await stores.serviceAccounts.get("sa-1"))?.value).toMatchObject({ name: "First", accountId: "acct-1" });
      });

      it("replace with the current etag stores the new record under a new etag", async () => {
        const created = await stores.serviceAccounts.create(serviceAccount("sa-1", "acct-1"));
        const changed = serviceAccount("sa-1", "acct-1", { name: "Renamed", isActive: false });
        const replaced = await stores.serviceAccounts.replace(changed, created.etag);
        expect(replaced.value).toStrictEqual(changed);
        expect(replaced.etag).not.toBe(created.etag);
        expect(await stores.serviceAccounts.get("sa-1")).toStrictEqual(replaced);
      });

      it("the etag changes on every write", async () => {
        const v1 = await stores.serviceAccounts.create(serviceAccount("sa-1", "acct-1"));
        const v2 = await stores.serviceAccounts.replace(serviceAccount("sa-1", "acct-1", { name: "Two" }), v1.etag);
        // An unchanged document written again still gets a new version.
        const v3 = await stores.serviceAccounts.replace(serviceAccount("sa-1", "acct-1", { name: "Two" }), v2.etag);
        expect(new Set([v1.etag, v2.etag, v3.etag]).size).toBe(3);
      });

      it("replace with a stale etag fails with CONFLICT and leaves the record as it was", async () => {
        const v1 = await stores.serviceAccounts.create(serviceAccount("sa-1", "acct-1", { name: "One" }));
        const v2 = await stores.serviceAccounts.replace(serviceAccount("sa-1", "acct-1", { name: "Two" }), v1.etag);
        await expectApiError(
          stores.serviceAccounts.replace(serviceAccount("sa-1", "acct-1", { name: "Lost update" }), v1.etag),
          "CONFLICT",
        );
        expect(await stores.serviceAccounts.get("sa-1")).toStrictEqual(v2);
      });

      it("replace of an unknown id fails with NOT_FOUND and creates nothing", async () => {
        const other = await stores.serviceAccounts.create(serviceAccount("sa-1", "acct-1"));
        await expectApiError(stores.serviceAccounts.replace(serviceAccount("sa-2", "acct-1"), other.etag), "NOT_FOUND");
        expect(await stores.serviceAccounts.get("sa-2")).toBeUndefined();
      });

      it("delete with a stale etag fails with CONFLICT and keeps the record", async () => {
        const v1 = await stores.serviceAccounts.create(serviceAccount("sa-1", "acct-1"));
        const v2 = await stores.serviceAccounts.replace(serviceAccount("sa-1", "acct-1", { name: "Two" }), v1.etag);
        await expectApiError(stores.serviceAccounts.delete("sa-1", v1.etag), "CONFLICT");
        expect(await stores.serviceAccounts.get("sa-1")).toStrictEqual(v2);
      });

      it("delete with the current etag removes the record and frees its id", async () => {
        const created = await stores.serviceAccounts.create(serviceAccount("sa-1", "acct-1"));
        await stores.serviceAccounts.delete("sa-1", created.etag);
        expect(await stores.serviceAccounts.get("sa-1")).toBeUndefined();
        expect((await stores.serviceAccounts.list(["acct-1"], { limit: 10 })).items).toEqual([]);
        const again = await stores.serviceAccounts.create(serviceAccount("sa-1", "acct-2"));
        expect((await stores.serviceAccounts.get("sa-1"))?.value.accountId).toBe("acct-2");
        expect(again.etag).not.toBe(created.etag);
      });

      it("delete of an unknown id fails with NOT_FOUND", async () => {
        const other = await stores.serviceAccounts.create(serviceAccount("sa-1", "acct-1"));
        await expectApiError(stores.serviceAccounts.delete("sa-2", other.etag), "NOT_FOUND");
        expect(await stores.serviceAccounts.get("sa-1")).toStrictEqual(other);
      });

      it("list pages through the account's records by id: 3 + 3 + 1, no repeats, no gaps", async () => {
        const inAccount = ["sa-05", "sa-02", "sa-07", "sa-01", "sa-04", "sa-06", "sa-03"];
        for (const id of inAccount) await stores.serviceAccounts.create(serviceAccount(id, "acct-1"));
        await stores.serviceAccounts.create(serviceAccount("sa-00", "acct-2"));
        await stores.serviceAccounts.create(serviceAccount("sa-08", "acct-2"));

        const pages = await allPages((after) => stores.serviceAccounts.list(["acct-1"], { limit: 3, after }));

        expect(pages.map((p) => p.items.length)).toEqual([3, 3, 1]);
        expect(pages.flatMap((p) => ids(p.items))).toEqual([...inAccount].sort());
        expect(pages.map((p) => p.nextAfter)).toEqual(["sa-03", "sa-06", undefined]);
        expect(pages[0]?.items[0]).toStrictEqual(serviceAccount("sa-01", "acct-1"));
      });

      it("list has no next page when the items exactly fill the limit", async () => {
        for (const id of ["sa-3", "sa-1", "sa-2"]) await stores.serviceAccounts.create(serviceAccount(id, "acct-1"));
        const page = await stores.serviceAccounts.list(["acct-1"], { limit: 3 });
        expect(ids(page.items)).toEqual(["sa-1", "sa-2", "sa-3"]);
        expect(page.nextAfter).toBeUndefined();
      });

      it("list continues after a cursor that is not itself a stored id", async () => {
        for (const id of ["sa-1", "sa-3", "sa-5"]) await stores.serviceAccounts.create(serviceAccount(id, "acct-1"));
        const page = await stores.serviceAccounts.list(["acct-1"], { limit: 10, after: "sa-2" });
        expect(ids(page.items)).toEqual(["sa-3", "sa-5"]);
      });

      it("list returns only records of the given accounts", async () => {
        await stores.serviceAccounts.create(serviceAccount("sa-1", "acct-1"));
        await stores.serviceAccounts.create(serviceAccount("sa-2", "acct-2"));
        await stores.serviceAccounts.create(serviceAccount("sa-3", "acct-3"));

        expect(ids((await stores.serviceAccounts.list(["acct-1", "acct-3"], { limit: 10 })).items)).toEqual([
          "sa-1",
          "sa-3",
        ]);
        expect(ids((await stores.serviceAccounts.list(["acct-2"], { limit: 10 })).items)).toEqual(["sa-2"]);
        expect(await stores.serviceAccounts.list([], { limit: 10 })).toEqual({ items: [] });
      });

      it("keeps the stored record when the caller later changes its objects", async () => {
        const written = serviceAccount("sa-1", "acct-1");
        const snapshot = structuredClone(written);
        const created = await stores.serviceAccounts.create(written);
        written.name = "Changed after create";
        written.credentials[0]!.status = "Revoked";
        written.workspaceAssignments.push({ workspaceId: "ws-9", role: "Owner" });
        attemptToChange(() => created.value.credentials[0]!.scopes.push("changed:after-create"));
        const read = await stores.serviceAccounts.get("sa-1");
        attemptToChange(() => (read!.value.workspaceAssignments.length = 0));

        expect((await stores.serviceAccounts.get("sa-1"))?.value).toStrictEqual(snapshot);

        const replacement = serviceAccount("sa-1", "acct-1", { name: "Replaced" });
        await stores.serviceAccounts.replace(replacement, created.etag);
        replacement.name = "Changed after replace";
        expect((await stores.serviceAccounts.get("sa-1"))?.value.name).toBe("Replaced");
      });
    });

    describe("users", () => {
      it("create returns the user with an etag, and find returns the same", async () => {
        const record = user("u-1", "acct-1");
        const created = await stores.users.create(record);
        expect(created.value).toStrictEqual(record);
        expect(created.etag).toEqual(expect.any(String));
        expect(await stores.users.find(["acct-1"], "u-1")).toStrictEqual(created);
      });

      it("find looks in every given account and nowhere else", async () => {
        await stores.users.create(user("u-1", "acct-2"));
        expect((await stores.users.find(["acct-1", "acct-2"], "u-1"))?.value.accountId).toBe("acct-2");
        expect(await stores.users.find(["acct-1", "acct-3"], "u-1")).toBeUndefined();
        expect(await stores.users.find(["acct-2"], "u-missing")).toBeUndefined();
        expect(await stores.users.find([], "u-1")).toBeUndefined();
      });

      it("findByDirectoryIdentity finds a person's registrations in every account by tenant and object id", async () => {
        await stores.users.create(user("u-1", "acct-2", { tenantId: "Tenant-A" }));
        await stores.users.create(user("u-1", "acct-1", { tenantId: "tenant-a" }));
        await stores.users.create(user("u-1", "acct-3", { tenantId: "tenant-b" }));
        await stores.users.create(user("u-2", "acct-1", { tenantId: "tenant-a" }));

        const found = await stores.users.findByDirectoryIdentity("TENANT-A", "u-1");
        expect(found.map((u) => u.accountId)).toEqual(["acct-1", "acct-2"]);
        expect(await stores.users.findByDirectoryIdentity("tenant-c", "u-1")).toEqual([]);
        expect(await stores.users.findByDirectoryIdentity("tenant-a", "u-3")).toEqual([]);
      });

      it("users with the same id in two accounts are distinct records", async () => {
        const inFirst = await stores.users.create(user("u-1", "acct-1", { displayName: "First" }));
        const inSecond = await stores.users.create(user("u-1", "acct-2", { displayName: "Second" }));

        expect((await stores.users.find(["acct-1"], "u-1"))?.value.displayName).toBe("First");
        expect((await stores.users.find(["acct-2"], "u-1"))?.value.displayName).toBe("Second");
        const both = (await stores.users.list(["acct-1", "acct-2"], {}, { limit: 10 })).items;
        expect(both.map((u) => u.displayName).sort()).toEqual(["First", "Second"]);

        await stores.users.replace(user("u-1", "acct-1", { displayName: "First renamed" }), inFirst.etag);
        expect(await stores.users.find(["acct-2"], "u-1")).toStrictEqual(inSecond);

        const renamed = await stores.users.find(["acct-1"], "u-1");
        await stores.users.delete("acct-1", "u-1", renamed!.etag);
        expect(await stores.users.find(["acct-1"], "u-1")).toBeUndefined();
        expect(await stores.users.find(["acct-2"], "u-1")).toStrictEqual(inSecond);
      });

      it("create of an id that exists in the same account fails with CONFLICT", async () => {
        await stores.users.create(user("u-1", "acct-1", { displayName: "First" }));
        await expectApiError(stores.users.create(user("u-1", "acct-1", { displayName: "Second" })), "CONFLICT");
        expect((await stores.users.find(["acct-1"], "u-1"))?.value.displayName).toBe("First");
      });

      it("replace and delete check the etag: stale fails with CONFLICT, current succeeds", async () => {
        const v1 = await stores.users.create(user("u-1", "acct-1"));
        const v2 = await stores.users.replace(user("u-1", "acct-1", { organizationalRole: "Admin" }), v1.etag);
        expect(v2.value.organizationalRole).toBe("Admin");
        expect(v2.etag).not.toBe(v1.etag);

        await expectApiError(stores.users.replace(user("u-1", "acct-1", { isActive: false }), v1.etag), "CONFLICT");
        await expectApiError(stores.users.delete("acct-1", "u-1", v1.etag), "CONFLICT");
        expect(await stores.users.find(["acct-1"], "u-1")).toStrictEqual(v2);

        await stores.users.delete("acct-1", "u-1", v2.etag);
        expect(await stores.users.find(["acct-1"], "u-1")).toBeUndefined();
      });

      it("replace and delete of an unknown user fail with NOT_FOUND", async () => {
        const other = await stores.users.create(user("u-1", "acct-1"));
        await expectApiError(stores.users.replace(user("u-1", "acct-2"), other.etag), "NOT_FOUND");
        await expectApiError(stores.users.delete("acct-1", "u-2", other.etag), "NOT_FOUND");
        expect(await stores.users.find(["acct-2"], "u-1")).toBeUndefined();
      });

      it("findByEmail matches the email case-insensitively within the one account", async () => {
        await stores.users.create(user("u-1", "acct-1", { email: "Alice.Smith@Example.com" }));
        await stores.users.create(user("u-2", "acct-2", { email: "bob@example.com" }));

        expect((await stores.users.findByEmail("acct-1", "alice.smith@EXAMPLE.COM"))?.id).toBe("u-1");
        expect(await stores.users.findByEmail("acct-1", "Alice.Smith@Example.com")).toStrictEqual(
          user("u-1", "acct-1", { email: "Alice.Smith@Example.com" }),
        );
        expect(await stores.users.findByEmail("acct-1", "bob@example.com")).toBeUndefined();
        expect(await stores.users.findByEmail("acct-1", "alice.smith@example.co")).toBeUndefined();
      });

      it("list filters by email case-insensitively, by role, and by both", async () => {
        await stores.users.create(user("u-1", "acct-1", { email: "Ann@Example.com", organizationalRole: "Admin" }));
        await stores.users.create(user("u-2", "acct-1", { email: "ben@example.com", organizationalRole: "Member" }));
        await stores.users.create(user("u-3", "acct-1", { email: "cat@example.com", organizationalRole: "Admin" }));
        await stores.users.create(user("u-4", "acct-2", { email: "ann@example.com", organizationalRole: "Admin" }));

        const list = async (filter: Parameters<Stores["users"]["list"]>[1]) =>
          ids((await stores.users.list(["acct-1"], filter, { limit: 10 })).items);
        expect(await list({ email: "ANN@example.COM" })).toEqual(["u-1"]);
        expect(await list({ role: "Admin" })).toEqual(["u-1", "u-3"]);
        expect(await list({ role: "Member" })).toEqual(["u-2"]);
        expect(await list({ email: "ann@example.com", role: "Member" })).toEqual([]);
        expect(await list({ email: "cat@example.com", role: "Admin" })).toEqual(["u-3"]);
        expect(await list({ role: "UserAdmin" })).toEqual([]);
        expect(await list({})).toEqual(["u-1", "u-2", "u-3"]);
      });

      it("list filters by a role on a workspace, whatever the role, combined with the other filters", async () => {
        await stores.users.create(user("u-1", "acct-1", { workspaceAssignments: [{ workspaceId: "ws-1", role: "Analyst" }] }));
        await stores.users.create(user("u-2", "acct-1", { workspaceAssignments: [{ workspaceId: "ws-2", role: "Owner" }, { workspaceId: "ws-1", role: "Owner" }], organizationalRole: "Admin" }));
        await stores.users.create(user("u-3", "acct-1", { workspaceAssignments: [{ workspaceId: "ws-2", role: "Analyst" }] }));
        await stores.users.create(user("u-4", "acct-1"));
        await stores.users.create(user("u-5", "acct-2", { workspaceAssignments: [{ workspaceId: "ws-1", role: "Analyst" }] }));

        const list = async (accounts: string[], filter: Parameters<Stores["users"]["list"]>[1]) => ids((await stores.users.list(accounts, filter, { limit: 10 })).items);
        expect(await list(["acct-1"], { workspaceId: "ws-1" })).toEqual(["u-1", "u-2"]);
        expect(await list(["acct-1", "acct-2"], { workspaceId: "ws-1" })).toEqual(["u-1", "u-2", "u-5"]);
        expect(await list(["acct-1"], { workspaceId: "ws-1", role: "Admin" })).toEqual(["u-2"]);
        expect(await list(["acct-1"], { workspaceId: "ws-3" })).toEqual([]);
      });

      it("list returns only users of the given accounts", async () => {
        await stores.users.create(user("u-1", "acct-1"));
        await stores.users.create(user("u-2", "acct-2"));
        await stores.users.create(user("u-3", "acct-3"));
        expect(ids((await stores.users.list(["acct-3", "acct-1"], {}, { limit: 10 })).items)).toEqual([
          "u-1",
          "u-3",
        ]);
        expect(await stores.users.list([], {}, { limit: 10 })).toEqual({ items: [] });
      });

      it("list pages by id across accounts: 3 + 3 + 1, filters applied on every page", async () => {
        const members = ["u-04", "u-07", "u-01", "u-06", "u-02", "u-05", "u-03"];
        for (const [i, id] of members.entries()) {
          await stores.users.create(user(id, i % 2 === 0 ? "acct-1" : "acct-2", { organizationalRole: "Member" }));
        }
        await stores.users.create(user("u-025", "acct-1", { organizationalRole: "Admin" }));
        await stores.users.create(user("u-00", "acct-3", { organizationalRole: "Member" }));

        const pages = await allPages((after) =>
          stores.users.list(["acct-1", "acct-2"], { role: "Member" }, { limit: 3, after }),
        );

        expect(pages.map((p) => p.items.length)).toEqual([3, 3, 1]);
        expect(pages.flatMap((p) => ids(p.items))).toEqual([...members].sort());
        expect(pages.map((p) => p.nextAfter)).toEqual(["u-03", "u-06", undefined]);
      });

      it("keeps the stored user when the caller later changes its objects", async () => {
        const written = user("u-1", "acct-1", { displayName: "Original" });
        const created = await stores.users.create(written);
        written.displayName = "Changed after create";
        attemptToChange(() => (created.value.displayName = "Changed the returned value"));
        const [listed] = (await stores.users.list(["acct-1"], {}, { limit: 1 })).items;
        attemptToChange(() => (listed!.displayName = "Changed after list"));
        expect((await stores.users.find(["acct-1"], "u-1"))?.value.displayName).toBe("Original");
      });
    });

    describe("audit", () => {
      it("listRecent returns the account's newest events first, at most limit", async () => {
        for (const [id, minute] of [["ev-a", 10], ["ev-b", 40], ["ev-c", 20], ["ev-d", 50], ["ev-e", 30]] as const) {
          await stores.audit.append(auditEvent(id, "acct-1", minute));
        }
        expect(ids(await stores.audit.listRecent("acct-1", 3))).toEqual(["ev-d", "ev-b", "ev-e"]);
        expect(ids(await stores.audit.listRecent("acct-1", 10))).toEqual(["ev-d", "ev-b", "ev-e", "ev-c", "ev-a"]);
      });

      it("listRecent returns events exactly as appended", async () => {
        const event = auditEvent("ev-1", "acct-1", 5, { workspaceId: "ws-1", metadata: '{"k":"v"}' });
        await stores.audit.append(event);
        expect(await stores.audit.listRecent("acct-1", 1)).toStrictEqual([event]);
      });

      it("listRecent shows an account only its own events", async () => {
        await stores.audit.append(auditEvent("ev-1", "acct-1", 1));
        await stores.audit.append(auditEvent("ev-2", "acct-2", 2));
        await stores.audit.append(auditEvent("ev-3", "acct-1", 3));
        expect(ids(await stores.audit.listRecent("acct-1", 10))).toEqual(["ev-3", "ev-1"]);
        expect(ids(await stores.audit.listRecent("acct-2", 10))).toEqual(["ev-2"]);
        expect(await stores.audit.listRecent("acct-3", 10)).toEqual([]);
      });

      it("keeps the stored event when the caller later changes its objects", async () => {
        const written = auditEvent("ev-1", "acct-1", 1, { activityAction: "Create" });
        await stores.audit.append(written);
        written.activityAction = "Changed after append";
        const [read] = await stores.audit.listRecent("acct-1", 1);
        read!.activityAction = "Changed after list";
        expect((await stores.audit.listRecent("acct-1", 1))[0]?.activityAction).toBe("Create");
      });
    });

    workspaceDataCases(() => stores);

    describe("incident state and outbox", () => {
      const ws1 = outboxScope.workspace("ws-1");
      const ws2 = outboxScope.workspace("ws-2");
      const pending = async () => (await stores.outbox.listUnpublished(10)).map((r) => r.id);

      it("commit with a null etag creates the state and its outbox records together", async () => {
        const saved = await stores.incidents.commit(incidentState("ws-1", "s-1"), null, [outboxRecord(ws1, "e-1", 1)]);
        expect(saved.etag).toEqual(expect.any(String));
        expect(await stores.incidents.get("ws-1", "s-1")).toStrictEqual(saved);
        expect(await pending()).toEqual(["outbox-e-1"]);
      });

      it("a second create of the same state fails with CONFLICT and writes none of its records", async () => {
        await stores.incidents.commit(incidentState("ws-1", "s-1"), null, []);
        await expectApiError(stores.incidents.commit(incidentState("ws-1", "s-1"), null, [outboxRecord(ws1, "e-2", 2)]), "CONFLICT");
        expect(await pending()).toEqual([]);
      });

      it("commit with a stale etag fails with CONFLICT, keeps the state and writes no records", async () => {
        const first = await stores.incidents.commit(incidentState("ws-1", "s-1", { status: "New" }), null, []);
        const second = await stores.incidents.commit(incidentState("ws-1", "s-1", { status: "Active" }), first.etag, [outboxRecord(ws1, "e-1", 1)]);
        expect(second.etag).not.toBe(first.etag);
        await expectApiError(
          stores.incidents.commit(incidentState("ws-1", "s-1", { status: "Closed" }), first.etag, [outboxRecord(ws1, "e-2", 2)]),
          "CONFLICT",
        );
        expect((await stores.incidents.get("ws-1", "s-1"))?.value.status).toBe("Active");
        expect(await pending()).toEqual(["outbox-e-1"]);
      });

      it("refuses records of another scope than the write's own: they could not commit together", async () => {
        await expect(stores.incidents.commit(incidentState("ws-1", "s-1"), null, [outboxRecord(ws2, "e-1", 1)])).rejects.toThrow(/scope/);
        expect(await stores.incidents.get("ws-1", "s-1")).toBeUndefined();
      });

      it("append adds records without a state change; the same record id again replaces it", async () => {
        await stores.outbox.append([outboxRecord(ws1, "e-1", 1), outboxRecord(ws1, "e-2", 2)]);
        await stores.outbox.append([outboxRecord(ws1, "e-1", 1)]);
        expect((await stores.outbox.list(ws1, 10)).map((r) => r.id)).toEqual(["outbox-e-1", "outbox-e-2"]);
        expect(await pending()).toEqual(["outbox-e-1", "outbox-e-2"]);
      });

      it("getMany returns the states among the ids of one workspace only, each with the etag a conditional write takes", async () => {
        const first = await stores.incidents.commit(incidentState("ws-1", "s-1"), null, []);
        await stores.incidents.commit(incidentState("ws-1", "s-2"), null, []);
        await stores.incidents.commit(incidentState("ws-2", "s-3"), null, []);
        const found = await stores.incidents.getMany("ws-1", ["s-2", "s-1", "s-3", "s-9"]);
        expect(ids(found.map((s) => s.value)).sort()).toEqual(["s-1", "s-2"]);
        expect(found.find((s) => s.value.id === "s-1")!.etag).toBe(first.etag);
        await stores.incidents.commit({ ...first.value, updatedAt: "2025-01-15T10:00:00.000Z" }, found.find((s) => s.value.id === "s-1")!.etag, []);
        expect(await stores.incidents.getMany("ws-1", [])).toEqual([]);
      });

      it("openWithIndicators: the open, undeleted incidents of the workspaces asked for, created since the time given, keeping indicators; newest first, bounded", async () => {
        const at = (hours: number) => new Date(Date.parse(created) + hours * 3_600_000).toISOString();
        const open = (workspaceId: string, id: string, hours: number, overrides: Partial<IncidentStateRecord> = {}) =>
          incidentState(workspaceId, id, {
            accountId: `acct-${workspaceId}`,
            sla: { startedAt: at(hours), pausedAt: null, pausedMs: 0, stoppedAt: null },
            title: `Incident ${id}`,
            severity: "High",
            indicators: ["ip:192.0.2.7", `host:${id}.contoso.example`],
            ...overrides,
          });
        const found = (hours: number, id: string, workspaceId: string) => ({
          workspaceId,
          accountId: `acct-${workspaceId}`,
          source: "SourceA",
          incidentId: `inc-${id}`,
          title: `Incident ${id}`,
          severity: "High",
          createdAt: at(hours),
          indicators: ["ip:192.0.2.7", `host:${id}.contoso.example`],
        });
        const s1 = await stores.incidents.commit(open("ws-1", "s-1", 1), null, []);
        await stores.incidents.commit(open("ws-1", "s-2", 3), null, []);
        await stores.incidents.commit(open("ws-2", "s-3", 2), null, []);
        await stores.incidents.commit(open("ws-3", "s-4", 4), null, []);
        await stores.incidents.commit(open("ws-1", "s-5", 5, { status: "Closed" }), null, []);
        await stores.incidents.commit(open("ws-1", "s-6", 5, { deletedAt: at(6) }), null, []);
        await stores.incidents.commit(open("ws-2", "s-7", 6, { indicators: [] }), null, []);
        await stores.incidents.commit(open("ws-2", "s-8", -1), null, []);
        // Kept before the indicators were: no title, severity or keys.
        await stores.incidents.commit(incidentState("ws-2", "s-9", { sla: { startedAt: at(7), pausedAt: null, pausedMs: 0, stoppedAt: null } }), null, []);
        // What else the workspace keeps beside its incidents' states is no incident.
        await stores.gamebookRuns.create(gamebookRun("run-1", "ws-1", "SourceA", "inc-s-1", 120), []);

        expect(await stores.incidents.openWithIndicators(["ws-1", "ws-2", "ws-1"], at(0), 10)).toEqual({
          items: [found(3, "s-2", "ws-1"), found(2, "s-3", "ws-2"), found(1, "s-1", "ws-1")],
          truncated: false,
        });
        expect(await stores.incidents.openWithIndicators(["ws-1", "ws-2"], at(0), 2)).toEqual({ items: [found(3, "s-2", "ws-1"), found(2, "s-3", "ws-2")], truncated: true });
        expect(await stores.incidents.openWithIndicators(["ws-2"], at(-2), 10)).toEqual({ items: [found(2, "s-3", "ws-2"), found(-1, "s-8", "ws-2")], truncated: false });
        expect(await stores.incidents.openWithIndicators([], at(0), 10)).toEqual({ items: [], truncated: false });
        expect(await stores.incidents.openWithIndicators(["ws-9"], at(0), 10)).toEqual({ items: [], truncated: false });

        // Closed since: it leaves.
        await stores.incidents.commit({ ...s1.value, status: "Closed" }, s1.etag, []);
        expect((await stores.incidents.openWithIndicators(["ws-1"], at(0), 10)).items.map((i) => i.incidentId)).toEqual(["inc-s-2"]);
      });

      it("lists pending records oldest first across scopes of every kind, and a carried-out record leaves the list", async () => {
        const hook = outboxScope.webhook("wh-1");
        await stores.incidents.commit(incidentState("ws-1", "s-1"), null, [outboxRecord(ws1, "e-b", 2)]);
        await stores.incidents.commit(incidentState("ws-2", "s-2"), null, [outboxRecord(ws2, "e-a", 1), outboxRecord(ws2, "e-d", 4)]);
        await stores.webhooks.create(webhook("wh-1", "acct-1"), [outboxRecord(hook, "e-c", 3)]);
        expect(await pending()).toEqual(["outbox-e-a", "outbox-e-b", "outbox-e-c", "outbox-e-d"]);
        expect((await stores.outbox.listUnpublished(2)).map((r) => r.id)).toEqual(["outbox-e-a", "outbox-e-b"]);
        await stores.outbox.markPublished({ id: "outbox-e-a", scope: ws2 }, created);
        await stores.outbox.markPublished({ id: "outbox-e-c", scope: hook }, created);
        await stores.outbox.markPublished({ id: "outbox-e-missing", scope: ws2 }, created);
        expect(await pending()).toEqual(["outbox-e-b", "outbox-e-d"]);
        // Carried out or not, a scope's records stay listable (until they expire).
        expect((await stores.outbox.list(ws2, 10)).map((r) => [r.id, r.publishedAt !== null])).toEqual([
          ["outbox-e-a", true],
          ["outbox-e-d", false],
        ]);
      });
    });

    describe("writes with their outbox records (audit events)", () => {
      it("service accounts: create, replace and delete commit their records; a stale etag writes none", async () => {
        const scope = outboxScope.serviceAccount("sa-1");
        const first = await stores.serviceAccounts.create(serviceAccount("sa-1", "acct-1"), [outboxRecord(scope, "a-1", 1)]);
        await expectApiError(stores.serviceAccounts.create(serviceAccount("sa-1", "acct-1"), [outboxRecord(scope, "a-x", 9)]), "CONFLICT");
        const second = await stores.serviceAccounts.replace({ ...first.value, name: "renamed" }, first.etag, [outboxRecord(scope, "a-2", 2)]);
        await expectApiError(stores.serviceAccounts.replace({ ...first.value, name: "stale" }, first.etag, [outboxRecord(scope, "a-y", 9)]), "CONFLICT");
        await expectApiError(stores.serviceAccounts.delete("sa-1", first.etag, [outboxRecord(scope, "a-z", 9)]), "CONFLICT");
        expect((await stores.serviceAccounts.get("sa-1"))?.value.name).toBe("renamed");
        await stores.serviceAccounts.delete("sa-1", second.etag, [outboxRecord(scope, "a-3", 3)]);
        expect(await stores.serviceAccounts.get("sa-1")).toBeUndefined();
        expect((await stores.outbox.list(scope, 10)).map((r) => r.id)).toEqual(["outbox-a-1", "outbox-a-2", "outbox-a-3"]);
      });

      it("users and webhooks commit their records in their own scopes", async () => {
        const users = outboxScope.users("acct-1");
        const saved = await stores.users.create(user("u-1", "acct-1"), [outboxRecord(users, "a-1", 1)]);
        await stores.users.delete("acct-1", "u-1", saved.etag, [outboxRecord(users, "a-2", 2)]);
        const hook = outboxScope.webhook("wh-1");
        const created = await stores.webhooks.create(webhook("wh-1", "acct-1"), [outboxRecord(hook, "a-3", 3)]);
        await expectApiError(stores.webhooks.delete("wh-1", "\"stale\"", [outboxRecord(hook, "a-x", 9)]), "CONFLICT");
        await stores.webhooks.delete("wh-1", created.etag, [outboxRecord(hook, "a-4", 4)]);
        expect((await stores.outbox.list(users, 10)).map((r) => r.id)).toEqual(["outbox-a-1", "outbox-a-2"]);
        expect((await stores.outbox.list(hook, 10)).map((r) => r.id)).toEqual(["outbox-a-3", "outbox-a-4"]);
        await expect(stores.users.create(user("u-2", "acct-1"), [outboxRecord(hook, "a-y", 9)])).rejects.toThrow(/scope/);
      });

      it("accounts: create, read with etag and replace commit their records in the account's scope; a stale etag writes none", async () => {
        const scope = outboxScope.account("acct-1");
        const first = await stores.accounts.create(account("acct-1", { name: "Fabrikam" }), [outboxRecord(scope, "a-1", 1)]);
        await expectApiError(stores.accounts.create(account("acct-1"), [outboxRecord(scope, "a-x", 9)]), "CONFLICT");
        expect(await stores.accounts.read("acct-1")).toStrictEqual(first);
        const second = await stores.accounts.replace({ ...first.value, name: "Fabrikam Retail", isActive: false }, first.etag, [outboxRecord(scope, "a-2", 2)]);
        expect(second.etag).not.toBe(first.etag);
        await expectApiError(stores.accounts.replace({ ...first.value, name: "stale" }, first.etag, [outboxRecord(scope, "a-y", 9)]), "CONFLICT");
        await expectApiError(stores.accounts.replace(account("acct-missing"), first.etag), "NOT_FOUND");
        expect(await stores.accounts.get("acct-1")).toStrictEqual(second.value);
        expect(await stores.accounts.read("acct-missing")).toBeUndefined();
        expect((await stores.outbox.list(scope, 10)).map((r) => r.id)).toEqual(["outbox-a-1", "outbox-a-2"]);
        await expect(stores.accounts.create(account("acct-2"), [outboxRecord(scope, "a-z", 9)])).rejects.toThrow(/scope/);
        // The records share the accounts' partition, never their listings.
        await stores.accounts.upsert(account("acct-3", { managedByAccountId: "acct-1" }));
        expect(ids(await stores.accounts.listManagedBy("acct-1"))).toEqual(["acct-3"]);
      });

      it("workspace records: create and replace commit their records in the workspace-record scope, apart from the workspace's items", async () => {
        const scope = outboxScope.workspaceRecord("ws-1");
        const first = await stores.workspaces.create(workspace("ws-1", "acct-1"), [outboxRecord(scope, "a-1", 1)]);
        await expectApiError(stores.workspaces.create(workspace("ws-1", "acct-1"), [outboxRecord(scope, "a-x", 9)]), "CONFLICT");
        const renamed = await stores.workspaces.replace({ ...first.value, name: "renamed" }, first.etag, [outboxRecord(scope, "a-2", 2)]);
        await expectApiError(stores.workspaces.replace({ ...first.value, name: "stale" }, first.etag, [outboxRecord(scope, "a-y", 9)]), "CONFLICT");
        expect(await stores.workspaces.read("ws-1")).toStrictEqual(renamed);
        expect((await stores.outbox.list(scope, 10)).map((r) => r.id)).toEqual(["outbox-a-1", "outbox-a-2"]);
        expect(await stores.outbox.list(outboxScope.workspace("ws-1"), 10)).toEqual([]);
        await expect(stores.workspaces.create(workspace("ws-2", "acct-1"), [outboxRecord(outboxScope.workspace("ws-2"), "a-z", 9)])).rejects.toThrow(/scope/);
        // The records live beside the workspace records, never among them.
        expect(ids(await stores.workspaces.listAll())).toEqual(["ws-1"]);
        expect(ids(await stores.workspaces.listByAccounts(["acct-1"]))).toEqual(["ws-1"]);
        expect(ids(await stores.workspaces.getMany(["ws-1", "outbox-a-1"]))).toEqual(["ws-1"]);
      });

      it("the sweep finds pending records of the account and workspace-record scopes too", async () => {
        await stores.accounts.create(account("acct-1"), [outboxRecord(outboxScope.account("acct-1"), "a-2", 2)]);
        await stores.workspaces.create(workspace("ws-1", "acct-1"), [outboxRecord(outboxScope.workspaceRecord("ws-1"), "a-1", 1)]);
        expect((await stores.outbox.listUnpublished(10)).map((r) => [r.id, r.scope])).toEqual([
          ["outbox-a-1", "workspace-record:ws-1"],
          ["outbox-a-2", "account:acct-1"],
        ]);
        await stores.outbox.markPublished({ id: "outbox-a-1", scope: outboxScope.workspaceRecord("ws-1") }, created);
        expect((await stores.outbox.listUnpublished(10)).map((r) => r.id)).toEqual(["outbox-a-2"]);
      });
    });

    describe("audit", () => {
      it("append keeps one copy of an event id, however often it is appended", async () => {
        await stores.audit.append(auditEvent("ev-1", "acct-1", 1));
        await stores.audit.append(auditEvent("ev-1", "acct-1", 1));
        expect(await stores.audit.listRecent("acct-1", 10)).toHaveLength(1);
      });
    });

    describe("audit search", () => {
      /** Every event a search finds, following `next` to the end (a page may be short, or empty, where the store bounds a call). */
      const searchAll = async (filter: AuditSearchFilter, limit = 2) => {
        const found: string[] = [];
        let cursor: AuditSearchCursor | undefined;
        for (let calls = 0; calls < 50; calls++) {
          const page = await stores.audit.search(filter, limit, cursor);
          expect(page.items.length).toBeLessThanOrEqual(limit);
          found.push(...ids(page.items));
          cursor = page.next;
          if (!cursor) return found;
        }
        throw new Error("The search never ended.");
      };
      const trails = ["account:acct-1", "workspace:ws-1", "workspace:ws-2"];

      beforeEach(async () => {
        const events: AuditEventRecord[] = [
          auditEvent("ev-a", "acct-1", 10, { actorId: "u-ann", actorName: "Ann Lee", actorEmail: "ann@contoso.example", activityType: "PartnerApproval" }),
          auditEvent("ev-b", "acct-1", 20, { workspaceId: "ws-1", actorId: "u-bob", actorName: "Bob Stone", actorEmail: "bob@contoso.example", activityType: "IncidentStatus" }),
          auditEvent("ev-c", "acct-2", 30, { workspaceId: "ws-2", actorId: "u-ann", actorName: "Ann Lee", actorEmail: "ann@contoso.example", activityType: "IncidentStatus", activityAction: "Create" }),
          auditEvent("ev-d", "acct-1", 30, { workspaceId: "ws-1", actorId: "sa-1", actorName: "SOAR connector", actorEmail: "", activityType: "GamebookRun", activityAction: "Create" }),
          auditEvent("ev-e", "acct-1", 40, { workspaceId: "ws-1", actorId: "u-bob", actorName: "Bob Stone", actorEmail: "bob@contoso.example", activityType: "IncidentStatus" }),
          // Other trails: another organization's account, a workspace not asked for.
          auditEvent("ev-x", "acct-9", 50, { actorName: "Ann Lee" }),
          auditEvent("ev-y", "acct-9", 50, { workspaceId: "ws-9", actorName: "Ann Lee" }),
          // Two days later: a trail's events span day partitions.
          auditEvent("ev-f", "acct-1", 2 * 24 * 60 + 5, { workspaceId: "ws-2", actorId: "u-ann", actorName: "Ann Lee", actorEmail: "ann@contoso.example", activityType: "SopDocument", activityAction: "Delete" }),
        ];
        for (const event of events) await stores.audit.append(event);
      });

      it("lists the events of the trails asked for, newest first (then id), page by page", async () => {
        expect(await searchAll({ trails })).toEqual(["ev-f", "ev-e", "ev-d", "ev-c", "ev-b", "ev-a"]);
        const first = await stores.audit.search({ trails }, 10);
        expect(ids(first.items)).toEqual(["ev-f", "ev-e", "ev-d", "ev-c", "ev-b", "ev-a"]);
        expect(first.next).toBeUndefined();
        expect(first.items[1]).toStrictEqual(auditEvent("ev-e", "acct-1", 40, { workspaceId: "ws-1", actorId: "u-bob", actorName: "Bob Stone", actorEmail: "bob@contoso.example", activityType: "IncidentStatus" }));
        expect((await stores.audit.search({ trails }, 6)).next).toBeUndefined();
        expect(await searchAll({ trails: ["workspace:ws-2"] })).toEqual(["ev-f", "ev-c"]);
        expect(await stores.audit.search({ trails: [] }, 10)).toEqual({ items: [] });
        expect(await stores.audit.search({ trails }, 0)).toEqual({ items: [] });
      });

      it("keeps to the time range, the actor, the activity type and the action", async () => {
        expect(await searchAll({ trails, from: minuteOf(20), to: minuteOf(40) })).toEqual(["ev-d", "ev-c", "ev-b"]);
        expect(await searchAll({ trails, actorId: "u-ann" })).toEqual(["ev-f", "ev-c", "ev-a"]);
        expect(await searchAll({ trails, activityType: "IncidentStatus" })).toEqual(["ev-e", "ev-c", "ev-b"]);
        expect(await searchAll({ trails, activityType: "IncidentStatus", activityAction: "Create" })).toEqual(["ev-c"]);
        expect(await searchAll({ trails, actorId: "u-bob", from: minuteOf(21) })).toEqual(["ev-e"]);
        expect(await searchAll({ trails, activityType: "incidentstatus" })).toEqual([]);
      });

      it("matches the actor's text in the name or the e-mail address, whatever the case", async () => {
        expect(await searchAll({ trails, actorText: "ann" })).toEqual(["ev-f", "ev-c", "ev-a"]);
        expect(await searchAll({ trails, actorText: "stone" })).toEqual(["ev-e", "ev-b"]);
        expect(await searchAll({ trails, actorText: "bob@contoso" }, 1)).toEqual(["ev-e", "ev-b"]);
        expect(await searchAll({ trails, actorText: "soar", activityType: "GamebookRun" })).toEqual(["ev-d"]);
        expect(await searchAll({ trails, actorText: "nobody" })).toEqual([]);
      });
    });

    describe("webhooks", () => {
      it("create, get with etag, replace with a stale etag is CONFLICT, delete", async () => {
        const created = await stores.webhooks.create(webhook("wh-1", "acct-1"));
        expect(await stores.webhooks.get("wh-1")).toStrictEqual(created);
        const replaced = await stores.webhooks.replace({ ...created.value, status: "Paused" }, created.etag);
        await expectApiError(stores.webhooks.replace({ ...created.value, status: "Disabled" }, created.etag), "CONFLICT");
        expect((await stores.webhooks.get("wh-1"))?.value.status).toBe("Paused");
        await expectApiError(stores.webhooks.delete("wh-1", created.etag), "CONFLICT");
        await stores.webhooks.delete("wh-1", replaced.etag);
        expect(await stores.webhooks.get("wh-1")).toBeUndefined();
      });

      it("listByAccounts returns the webhooks of those accounts only, by id", async () => {
        await stores.webhooks.create(webhook("wh-2", "acct-1"));
        await stores.webhooks.create(webhook("wh-1", "acct-2"));
        await stores.webhooks.create(webhook("wh-3", "acct-1"));
        expect(ids(await stores.webhooks.listByAccounts(["acct-1"]))).toEqual(["wh-2", "wh-3"]);
        expect(ids(await stores.webhooks.listByAccounts(["acct-1", "acct-2"]))).toEqual(["wh-1", "wh-2", "wh-3"]);
        expect(await stores.webhooks.listByAccounts([])).toEqual([]);
      });
    });

    describe("delivery logs", () => {
      const day1 = "2026-03-01T23:59:00.000Z";
      const day2 = "2026-03-02T00:01:00.000Z";
      const range = { from: "2026-03-01T00:00:00.000Z", to: "2026-03-03T00:00:00.000Z", notBefore: "2026-01-01T00:00:00.000Z" };

      it("a point read needs the right createdAt; a later put of the same entry replaces it", async () => {
        await stores.deliveryLogs.put(deliveryLog("log-1", "wh-1", day1, { status: "Pending" }));
        expect((await stores.deliveryLogs.get("wh-1", "log-1", day1))?.status).toBe("Pending");
        expect(await stores.deliveryLogs.get("wh-1", "log-1", day2)).toBeUndefined();
        expect(await stores.deliveryLogs.get("wh-2", "log-1", day1)).toBeUndefined();
        await stores.deliveryLogs.put(deliveryLog("log-1", "wh-1", day1, { status: "Succeeded" }));
        expect((await stores.deliveryLogs.get("wh-1", "log-1", day1))?.status).toBe("Succeeded");
      });

      it("keeps a test delivery's response excerpt as written, in point reads and listings", async () => {
        const responseExcerpt = { text: '{"received":true}\\u001b', truncated: true };
        await stores.deliveryLogs.put(deliveryLog("test-1", "wh-1", day1, { isTest: true, eventType: "webhook.test.v1", responseExcerpt }));
        expect((await stores.deliveryLogs.get("wh-1", "test-1", day1))?.responseExcerpt).toEqual(responseExcerpt);
        expect((await stores.deliveryLogs.list("wh-1", range, 10)).items.find((e) => e.id === "test-1")?.responseExcerpt).toEqual(responseExcerpt);
      });

      it("lists newest first across days, pages by cursor without repeats, and stays within the webhook and range", async () => {
        const times = ["2026-03-01T10:00:00.000Z", day1, day2, "2026-03-02T12:00:00.000Z", "2026-03-02T12:00:00.000Z", "2026-03-04T00:00:00.000Z"];
        for (const [i, at] of times.entries()) await stores.deliveryLogs.put(deliveryLog(`log-${i}`, "wh-1", at));
        await stores.deliveryLogs.put(deliveryLog("other", "wh-2", day2));
        const seen: string[] = [];
        let cursor;
        do {
          const page = await stores.deliveryLogs.list("wh-1", range, 2, cursor);
          seen.push(...page.items.map((e) => e.id));
          cursor = page.next;
        } while (cursor);
        expect(seen).toEqual(["log-4", "log-3", "log-2", "log-1", "log-0"]);
      });

      it("never returns entries older than notBefore (expired), whatever the store still holds", async () => {
        await stores.deliveryLogs.put(deliveryLog("old", "wh-1", "2026-03-01T01:00:00.000Z"));
        await stores.deliveryLogs.put(deliveryLog("new", "wh-1", "2026-03-02T01:00:00.000Z"));
        const page = await stores.deliveryLogs.list("wh-1", { ...range, notBefore: "2026-03-02T00:00:00.000Z" }, 10);
        expect(page.items.map((e) => e.id)).toEqual(["new"]);
      });

      it("filters a listing by outcome and by status class (none: no HTTP answer), paging within the filter", async () => {
        const at = (h: number) => `2026-03-02T${String(h).padStart(2, "0")}:00:00.000Z`;
        await stores.deliveryLogs.put(deliveryLog("ok", "wh-1", at(1)));
        await stores.deliveryLogs.put(deliveryLog("moved", "wh-1", at(2), { status: "Failed", httpStatusCode: 301, success: false }));
        await stores.deliveryLogs.put(deliveryLog("gone", "wh-1", at(3), { status: "Failed", httpStatusCode: 410, success: false }));
        await stores.deliveryLogs.put(deliveryLog("down", "wh-1", at(4), { status: "Failed", httpStatusCode: 503, success: false }));
        await stores.deliveryLogs.put(deliveryLog("timeout", "wh-1", day1, { status: "Failed", httpStatusCode: 0, success: false }));
        await stores.deliveryLogs.put(deliveryLog("held", "wh-1", at(5), { status: "Pending", httpStatusCode: 0, success: false }));
        const ids = async (filter: Parameters<typeof stores.deliveryLogs.list>[4]) => (await stores.deliveryLogs.list("wh-1", range, 10, undefined, filter)).items.map((e) => e.id);
        expect(await ids({ status: "Failed" })).toEqual(["down", "gone", "moved", "timeout"]);
        expect(await ids({ statusClass: "4xx" })).toEqual(["gone"]);
        expect(await ids({ statusClass: "3xx" })).toEqual(["moved"]);
        expect(await ids({ statusClass: "none" })).toEqual(["held", "timeout"]);
        expect(await ids({ status: "Failed", statusClass: "none" })).toEqual(["timeout"]);
        expect(await ids({ status: "Succeeded", statusClass: "2xx" })).toEqual(["ok"]);
        const first = await stores.deliveryLogs.list("wh-1", range, 2, undefined, { status: "Failed" });
        const second = await stores.deliveryLogs.list("wh-1", range, 2, first.next, { status: "Failed" });
        expect([...first.items, ...second.items].map((e) => e.id)).toEqual(["down", "gone", "moved", "timeout"]);
        expect(second.next).toBeUndefined();
      });

      it("outcomes: only the outcome fields, newest or oldest first across days, bounded and saying so", async () => {
        const times = ["2026-03-01T10:00:00.000Z", day1, day2, "2026-03-02T12:00:00.000Z"];
        for (const [i, at] of times.entries()) await stores.deliveryLogs.put(deliveryLog(`log-${i}`, "wh-1", at, { durationMs: 100 + i }));
        await stores.deliveryLogs.put(deliveryLog("other", "wh-2", day2));
        const all = await stores.deliveryLogs.outcomes("wh-1", range, 10);
        expect(all.truncated).toBe(false);
        expect(all.items.map((e) => e.id)).toEqual(["log-3", "log-2", "log-1", "log-0"]);
        expect(Object.keys(all.items[0]!).sort()).toEqual([...deliveryOutcomeFields].sort());
        expect(all.items[0]).toMatchObject({ eventId: "ev-log-3", status: "Succeeded", httpStatusCode: 200, durationMs: 103, createdAt: times[3], incident: null });
        const newest = await stores.deliveryLogs.outcomes("wh-1", range, 3);
        expect(newest).toMatchObject({ truncated: true });
        expect(newest.items.map((e) => e.id)).toEqual(["log-3", "log-2", "log-1"]);
        const oldest = await stores.deliveryLogs.outcomes("wh-1", range, 2, { oldestFirst: true });
        expect(oldest.items.map((e) => e.id)).toEqual(["log-0", "log-1"]);
        expect(oldest.truncated).toBe(true);
        const recent = await stores.deliveryLogs.outcomes("wh-1", { ...range, notBefore: "2026-03-02T00:00:00.000Z" }, 10);
        expect(recent.items.map((e) => e.id)).toEqual(["log-3", "log-2"]);
      });
    });

    describe("reconciler state", () => {
      it("create once, then replace only with the current etag", async () => {
        const record = { id: "ws-1", workspaceId: "ws-1", baselineAt: created, baselineRecorded: false, watermarks: {} };
        const first = await stores.reconciler.create(record);
        await expectApiError(stores.reconciler.create({ ...record, baselineRecorded: true }), "CONFLICT");
        const moved = await stores.reconciler.replace({ ...record, watermarks: { SourceA: created } }, first.etag);
        await expectApiError(stores.reconciler.replace({ ...record, watermarks: { SourceB: created } }, first.etag), "CONFLICT");
        expect(await stores.reconciler.get("ws-1")).toStrictEqual(moved);
        expect(await stores.reconciler.get("ws-2")).toBeUndefined();
      });

      it("workspaces.listAll returns every workspace by id", async () => {
        await stores.workspaces.upsert(workspace("ws-2", "acct-2"));
        await stores.workspaces.upsert(workspace("ws-1", "acct-1"));
        expect(ids(await stores.workspaces.listAll())).toEqual(["ws-1", "ws-2"]);
      });
    });

    describe("gamebook runs", () => {
      const ws1 = outboxScope.workspace("ws-1");
      const pending = async () => (await stores.outbox.listUnpublished(10)).map((r) => r.id);

      it("latestForIncident returns the newest run of that incident and source only", async () => {
        await stores.gamebookRuns.create(gamebookRun("run-1", "ws-1", "SourceA", "inc-1", 1), []);
        await stores.gamebookRuns.create(gamebookRun("run-2", "ws-1", "SourceA", "inc-1", 3), []);
        await stores.gamebookRuns.create(gamebookRun("run-3", "ws-1", "SourceB", "inc-1", 5), []);
        await stores.gamebookRuns.create(gamebookRun("run-4", "ws-2", "SourceA", "inc-1", 6), []);
        expect((await stores.gamebookRuns.latestForIncident("ws-1", "SourceA", "inc-1"))?.id).toBe("run-2");
        expect(await stores.gamebookRuns.latestForIncident("ws-1", "SourceA", "inc-9")).toBeUndefined();
      });

      it("create commits the run and its outbox records together; an id taken is CONFLICT and writes no record", async () => {
        const run = gamebookRun("run-1", "ws-1", "SourceA", "inc-1", 1);
        const saved = await stores.gamebookRuns.create(run, [outboxRecord(ws1, "e-1", 1)]);
        expect(saved.value).toStrictEqual(run);
        expect(await stores.gamebookRuns.get("ws-1", "run-1")).toStrictEqual(saved);
        expect(await pending()).toEqual(["outbox-e-1"]);
        await expectApiError(stores.gamebookRuns.create(run, [outboxRecord(ws1, "e-2", 2)]), "CONFLICT");
        expect(await pending()).toEqual(["outbox-e-1"]);
        expect(await stores.gamebookRuns.get("ws-2", "run-1")).toBeUndefined();
        expect(await stores.gamebookRuns.get("ws-1", "run-9")).toBeUndefined();
      });

      it("replace needs the current etag: a stale one is CONFLICT and commits none of its records", async () => {
        const first = await stores.gamebookRuns.create(gamebookRun("run-1", "ws-1", "SourceA", "inc-1", 1), []);
        const running = await stores.gamebookRuns.replace({ ...first.value, status: "Running" }, first.etag, [outboxRecord(ws1, "e-1", 1)]);
        await expectApiError(stores.gamebookRuns.replace({ ...first.value, status: "Failed" }, first.etag, [outboxRecord(ws1, "e-2", 2)]), "CONFLICT");
        expect((await stores.gamebookRuns.get("ws-1", "run-1"))?.value.status).toBe("Running");
        expect(running.etag).not.toBe(first.etag);
        expect(await pending()).toEqual(["outbox-e-1"]);
      });

      it("a run commits outbox records only in its workspace's scope", async () => {
        await expect(stores.gamebookRuns.create(gamebookRun("run-1", "ws-1", "SourceA", "inc-1", 1), [outboxRecord(outboxScope.workspace("ws-2"), "e-1", 1)])).rejects.toThrow(/scope/);
      });

      it("list pages a workspace's runs newest first (creationDate, then id), each run once, from a keyset cursor", async () => {
        for (const [id, minute] of [["run-a", 1], ["run-b", 5], ["run-c", 3], ["run-d", 5], ["run-e", 2]] as const) {
          await stores.gamebookRuns.create(gamebookRun(id, "ws-1", "SourceA", `inc-${id}`, minute), []);
        }
        await stores.gamebookRuns.create(gamebookRun("run-x", "ws-2", "SourceA", "inc-x", 9), []);
        const seen: string[] = [];
        let cursor: GamebookRunCursor | undefined;
        for (let i = 0; i < 10; i++) {
          const page = await stores.gamebookRuns.list("ws-1", {}, 2, cursor);
          seen.push(...ids(page.items));
          cursor = page.next;
          if (!cursor) break;
        }
        expect(seen).toEqual(["run-d", "run-b", "run-c", "run-e", "run-a"]);
        const all = await stores.gamebookRuns.list("ws-1", {}, 5);
        expect(all.next).toBeUndefined();
      });

      it("span counts a workspace's matching runs in a range, with the creation times of the newest and the oldest", async () => {
        for (const [id, minute, status] of [["run-a", 1, "Succeeded"], ["run-b", 5, "Failed"], ["run-c", 3, "Succeeded"], ["run-d", 5, "Succeeded"], ["run-e", 2, "Failed"]] as const) {
          await stores.gamebookRuns.create({ ...gamebookRun(id, "ws-1", "SourceA", `inc-${id}`, minute), status }, []);
        }
        await stores.gamebookRuns.create(gamebookRun("run-x", "ws-2", "SourceA", "inc-x", 9), []);
        expect(await stores.gamebookRuns.span("ws-1", {}, {})).toEqual({ count: 5, newest: minuteAt(5), oldest: minuteAt(1) });
        expect(await stores.gamebookRuns.span("ws-1", {}, { since: minuteAt(3) })).toEqual({ count: 3, newest: minuteAt(5), oldest: minuteAt(3) });
        // `before` is a cursor of the listing: (minute 5, run-d) leaves run-b of the same minute in.
        expect(await stores.gamebookRuns.span("ws-1", {}, { before: { creationDate: minuteAt(5), id: "run-d" } })).toEqual({ count: 4, newest: minuteAt(5), oldest: minuteAt(1) });
        expect(await stores.gamebookRuns.span("ws-1", {}, { since: minuteAt(2), before: { creationDate: minuteAt(5), id: "" } })).toEqual({ count: 2, newest: minuteAt(3), oldest: minuteAt(2) });
        expect(await stores.gamebookRuns.span("ws-1", { statuses: ["Failed"] }, { since: minuteAt(2) })).toEqual({ count: 2, newest: minuteAt(5), oldest: minuteAt(2) });
        expect(await stores.gamebookRuns.span("ws-1", { text: "nothing like it" }, {})).toEqual({ count: 0 });
        expect(await stores.gamebookRuns.span("ws-1", {}, { since: minuteAt(6) })).toEqual({ count: 0 });
        expect(await stores.gamebookRuns.span("ws-9", {}, {})).toEqual({ count: 0 });
      });

      it("list filters by text in searchText and by status", async () => {
        await stores.gamebookRuns.create({ ...gamebookRun("run-1", "ws-1", "SourceA", "inc-1", 1), searchText: "contain phishing\nphish at hr@\nsoar connector", status: "Succeeded" }, []);
        await stores.gamebookRuns.create({ ...gamebookRun("run-2", "ws-1", "SourceA", "inc-2", 2), searchText: "isolate host\nmalware on ws-7\nautomation", status: "Failed" }, []);
        await stores.gamebookRuns.create({ ...gamebookRun("run-3", "ws-1", "SourceA", "inc-3", 3), searchText: "contain phishing\nphish at it@\nautomation", status: "Pending" }, []);
        expect(ids((await stores.gamebookRuns.list("ws-1", { text: "phish" }, 10)).items)).toEqual(["run-3", "run-1"]);
        expect(ids((await stores.gamebookRuns.list("ws-1", { text: "automation", statuses: ["Failed", "Succeeded"] }, 10)).items)).toEqual(["run-2"]);
        expect(ids((await stores.gamebookRuns.list("ws-1", { statuses: [] }, 10)).items)).toEqual(["run-3", "run-2", "run-1"]);
        const filtered = await stores.gamebookRuns.list("ws-1", { text: "contain" }, 1);
        expect(ids(filtered.items)).toEqual(["run-3"]);
        expect(ids((await stores.gamebookRuns.list("ws-1", { text: "contain" }, 1, filtered.next)).items)).toEqual(["run-1"]);
      });

      it("listForIncident returns an incident's runs newest first, of one source when asked, at most the limit", async () => {
        await stores.gamebookRuns.create(gamebookRun("run-1", "ws-1", "SourceA", "inc-1", 1), []);
        await stores.gamebookRuns.create(gamebookRun("run-2", "ws-1", "SourceB", "inc-1", 2), []);
        await stores.gamebookRuns.create(gamebookRun("run-3", "ws-1", "SourceA", "inc-1", 3), []);
        await stores.gamebookRuns.create(gamebookRun("run-4", "ws-1", "SourceA", "inc-2", 4), []);
        await stores.gamebookRuns.create(gamebookRun("run-5", "ws-2", "SourceA", "inc-1", 5), []);
        expect(ids(await stores.gamebookRuns.listForIncident("ws-1", "inc-1", undefined, 10))).toEqual(["run-3", "run-2", "run-1"]);
        expect(ids(await stores.gamebookRuns.listForIncident("ws-1", "inc-1", "SourceA", 10))).toEqual(["run-3", "run-1"]);
        expect(ids(await stores.gamebookRuns.listForIncident("ws-1", "inc-1", undefined, 2))).toEqual(["run-3", "run-2"]);
        expect(await stores.gamebookRuns.listForIncident("ws-1", "inc-9", undefined, 10)).toEqual([]);
      });

      it("listAwaitingApproval lists the waiting runs with an expiry of every workspace, soonest first (then id), page by page", async () => {
        await stores.gamebookRuns.create(waitingRun("run-c", "ws-1", 30), []);
        await stores.gamebookRuns.create(waitingRun("run-a", "ws-2", 10), []);
        await stores.gamebookRuns.create(waitingRun("run-d", "ws-1", 10), []);
        await stores.gamebookRuns.create(waitingRun("run-b", "ws-3", 20), []);
        // Not waiting: dispatched, decided, or waiting since before requests expired.
        await stores.gamebookRuns.create({ ...waitingRun("run-x", "ws-1", 5), isQueued: false }, []);
        await stores.gamebookRuns.create({ ...waitingRun("run-y", "ws-1", 5), status: "Denied" }, []);
        const legacy = waitingRun("run-z", "ws-1", 5);
        const { expiresAt: _expiresAt, ...withoutExpiry } = legacy.approval;
        await stores.gamebookRuns.create({ ...legacy, approval: withoutExpiry }, []);

        const all = await stores.gamebookRuns.listAwaitingApproval({}, { limit: 10 });
        expect(ids(all.items)).toEqual(["run-a", "run-d", "run-b", "run-c"]);
        expect(all.next).toBeUndefined();
        expect(all.items[0]).toStrictEqual(waitingRun("run-a", "ws-2", 10));

        const seen: string[] = [];
        let cursor: AwaitingApprovalCursor | undefined;
        for (let i = 0; i < 10; i++) {
          const page = await stores.gamebookRuns.listAwaitingApproval({}, { cursor, limit: 3 });
          seen.push(...ids(page.items));
          cursor = page.next;
          if (!cursor) break;
        }
        expect(seen).toEqual(["run-a", "run-d", "run-b", "run-c"]);
        expect((await stores.gamebookRuns.listAwaitingApproval({}, { limit: 4 })).next).toBeUndefined();
      });

      it("listAwaitingApproval keeps to the workspaces and the expiry bound asked for, and a decided run leaves it", async () => {
        const first = await stores.gamebookRuns.create(waitingRun("run-1", "ws-1", 10), []);
        await stores.gamebookRuns.create(waitingRun("run-2", "ws-2", 20), []);
        await stores.gamebookRuns.create(waitingRun("run-3", "ws-3", 30), []);
        const list = async (filter: AwaitingApprovalFilter) => ids((await stores.gamebookRuns.listAwaitingApproval(filter, { limit: 10 })).items);

        expect(await list({ workspaceIds: ["ws-3", "ws-1"] })).toEqual(["run-1", "run-3"]);
        expect(await list({ workspaceIds: ["ws-2"] })).toEqual(["run-2"]);
        expect(await list({ workspaceIds: [] })).toEqual([]);
        // Strictly before: the run expiring at the bound itself is not listed.
        expect(await list({ expiresBefore: minuteAt(20) })).toEqual(["run-1"]);
        expect(await list({ expiresBefore: minuteAt(21), workspaceIds: ["ws-2", "ws-3"] })).toEqual(["run-2"]);
        expect(await stores.gamebookRuns.listAwaitingApproval({}, { limit: 0 })).toEqual({ items: [] });

        await stores.gamebookRuns.replace({ ...first.value, status: "Denied" }, first.etag);
        expect(await list({})).toEqual(["run-2", "run-3"]);
      });

      it("listDecided lists the decided runs of the workspaces asked for, newest decision first (then id), page by page", async () => {
        await stores.gamebookRuns.create(decidedRun("run-a", "ws-1", "Approved", 30), []);
        await stores.gamebookRuns.create(decidedRun("run-b", "ws-2", "Denied", 10), []);
        await stores.gamebookRuns.create(decidedRun("run-c", "ws-1", "Denied", 20, { expired: true }), []);
        await stores.gamebookRuns.create(decidedRun("run-d", "ws-2", "Approved", 30), []);
        await stores.gamebookRuns.create(decidedRun("run-e", "ws-3", "Approved", 40), []);
        // Not decided: still waiting, or never waited for approval.
        await stores.gamebookRuns.create(waitingRun("run-w", "ws-1", 50), []);
        await stores.gamebookRuns.create(gamebookRun("run-n", "ws-1", "SourceA", "inc-n", 50), []);

        const all = await stores.gamebookRuns.listDecided(["ws-1", "ws-2"], { limit: 10 });
        expect(ids(all.items)).toEqual(["run-d", "run-a", "run-c", "run-b"]);
        expect(all.next).toBeUndefined();
        expect(all.items[2]).toStrictEqual(decidedRun("run-c", "ws-1", "Denied", 20, { expired: true }));

        const seen: string[] = [];
        let cursor: DecidedApprovalCursor | undefined;
        for (let i = 0; i < 10; i++) {
          const page = await stores.gamebookRuns.listDecided(["ws-1", "ws-2"], { cursor, limit: 3 });
          seen.push(...ids(page.items));
          cursor = page.next;
          if (!cursor) break;
        }
        expect(seen).toEqual(["run-d", "run-a", "run-c", "run-b"]);
        expect((await stores.gamebookRuns.listDecided(["ws-1", "ws-2"], { limit: 4 })).next).toBeUndefined();
        expect(ids((await stores.gamebookRuns.listDecided(["ws-2"], { limit: 10 })).items)).toEqual(["run-d", "run-b"]);
        expect(await stores.gamebookRuns.listDecided([], { limit: 10 })).toEqual({ items: [] });
        expect(await stores.gamebookRuns.listDecided(["ws-1"], { limit: 0 })).toEqual({ items: [] });
      });

      it("listDecided takes a run in when it is decided, at its decision time, and keeps it there as it runs", async () => {
        const waiting = await stores.gamebookRuns.create(waitingRun("run-1", "ws-1", 60), []);
        await stores.gamebookRuns.create(decidedRun("run-2", "ws-1", "Denied", 10), []);
        expect(ids((await stores.gamebookRuns.listDecided(["ws-1"], { limit: 10 })).items)).toEqual(["run-2"]);
        const approved = decidedRun("run-1", "ws-1", "Approved", 5);
        const dispatched = await stores.gamebookRuns.replace({ ...approved, status: "Pending" }, waiting.etag);
        expect(ids((await stores.gamebookRuns.listDecided(["ws-1"], { limit: 10 })).items)).toEqual(["run-2", "run-1"]);
        await stores.gamebookRuns.replace({ ...approved, status: "Failed", modificationDate: minuteAt(90) }, dispatched.etag);
        const [, ran] = (await stores.gamebookRuns.listDecided(["ws-1"], { limit: 10 })).items;
        expect([ran?.id, ran?.status]).toEqual(["run-1", "Failed"]);
      });
    });

    describe("playbook catalogues and approval settings", () => {
      it("a workspace's catalogue is undefined until put, then read whole; a put replaces it", async () => {
        expect(await stores.playbookCatalogues.get("ws-1")).toBeUndefined();
        const catalogue = playbookCatalogue("ws-1");
        await stores.playbookCatalogues.put(catalogue);
        expect(await stores.playbookCatalogues.get("ws-1")).toStrictEqual(catalogue);
        expect(await stores.playbookCatalogues.get("ws-2")).toBeUndefined();
        await stores.playbookCatalogues.put({ ...catalogue, rules: [] });
        expect((await stores.playbookCatalogues.get("ws-1"))?.rules).toEqual([]);
      });

      it("keeps a workspace's approval policy and a provider's partner setting on their records", async () => {
        const provider = account("acct-sp", { kind: "ServiceProvider", partnerApproval: { mode: "AdminRequiredPlaybooks", accountIds: ["acct-1"] } });
        await stores.accounts.upsert(provider);
        expect(await stores.accounts.get("acct-sp")).toStrictEqual(provider);
        const clinics = workspace("ws-1", "acct-1", { gamebookApproval: "AllRuns" });
        await stores.workspaces.upsert(clinics);
        expect(await stores.workspaces.get("ws-1")).toStrictEqual(clinics);
        const policy = { mode: "AdminRequiredPlaybooks", approvalTimeoutHours: 8, onExpiry: "Deny", requireSecondApproverForAdminPlaybooks: true } as const;
        const stores2 = workspace("ws-2", "acct-1", { gamebookApproval: policy });
        await stores.workspaces.upsert(stores2);
        expect(await stores.workspaces.get("ws-2")).toStrictEqual(stores2);
      });
    });
  });
}

async function expectApiError(promise: Promise<unknown>, code: ErrorCode): Promise<void> {
  expect((await apiErrorOf(promise)).code).toBe(code);
}

/** Ids in the order returned; sort them where the port promises no order. */
function ids(items: readonly { id: string }[]): string[] {
  return items.map((i) => i.id);
}

/** Follows `nextAfter` to the end; stops after 20 pages so that a broken cursor fails, not hangs. */
async function allPages<T>(fetch: (after: string | undefined) => Promise<Page<T>>): Promise<Page<T>[]> {
  const pages: Page<T>[] = [];
  let after: string | undefined;
  do {
    const page = await fetch(after);
    pages.push(page);
    after = page.nextAfter;
  } while (after !== undefined && pages.length < 20);
  return pages;
}

const created = "2025-01-15T09:30:00.000Z";

function account(id: string, overrides: Partial<AccountRecord> = {}): AccountRecord {
  return { id, name: `Account ${id}`, kind: "Customer", managedByAccountId: null, ...overrides };
}

function workspace(id: string, accountId: string, overrides: Partial<WorkspaceRecord> = {}): WorkspaceRecord {
  return { id, name: `Workspace ${id}`, tenantId: "tenant-1", accountId, ...overrides };
}

function serviceAccount(
  id: string,
  accountId: string,
  overrides: Partial<ServiceAccountRecord> = {},
): ServiceAccountRecord {
  return {
    id,
    accountId,
    name: `Service account ${id}`,
    description: "",
    isActive: true,
    isPlatformManaged: false,
    organizationalRole: "Member",
    workspaceAssignments: [{ workspaceId: "ws-1", role: "Analyst" }],
    credentials: [
      {
        id: `cred-${id}`,
        secretHash: "ab".repeat(32),
        clientSecretPrefix: "abcd",
        status: "Active",
        expirationDate: "2026-01-15T09:30:00.000Z",
        lastUsedAt: null,
        createdAt: created,
        revokedAt: null,
        scopes: ["incidents:read", "incidents:write"],
      },
    ],
    lastUsedAt: null,
    createdAt: created,
    lastModifiedAt: created,
    ...overrides,
  };
}

function user(id: string, accountId: string, overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    id,
    accountId,
    displayName: `User ${id}`,
    email: `${id}@example.com`,
    tenantId: "tenant-1",
    organizationalRole: "Member",
    isActive: true,
    createdAt: created,
    lastModifiedAt: created,
    ...overrides,
  };
}

function auditEvent(
  id: string,
  accountId: string,
  minute: number,
  overrides: Partial<AuditEventRecord> = {},
): AuditEventRecord {
  return {
    id,
    accountId,
    timeGenerated: new Date(Date.UTC(2025, 0, 15, 9, minute)).toISOString(),
    workspaceId: null,
    discriminator: "ServiceAccount",
    activityType: "ServiceAccount",
    activityAction: "Update",
    actorId: "sa-admin",
    actorName: "Admin",
    actorEmail: "admin@example.com",
    targetResourceType: "ServiceAccount",
    targetResourceId: "sa-1",
    targetResourceName: "Service account sa-1",
    metadata: "{}",
    ...overrides,
  };
}

/** The time `auditEvent` gives an event of that minute. */
function minuteOf(minute: number): string {
  return new Date(Date.UTC(2025, 0, 15, 9, minute)).toISOString();
}

/** Runs a change to a value read from a store; a frozen snapshot refusing it is as good as a copy. */
function attemptToChange(change: () => void): void {
  try {
    change();
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
}

function incidentState(workspaceId: string, id: string, overrides: Partial<IncidentStateRecord> = {}): IncidentStateRecord {
  return {
    id,
    docType: "incidentState",
    workspaceId,
    accountId: "acct-1",
    source: "SourceA",
    incidentId: `inc-${id}`,
    status: "New",
    internalStatus: null,
    classification: null,
    assignee: null,
    sla: { startedAt: created, pausedAt: null, pausedMs: 0, stoppedAt: null },
    closeCount: 0,
    vendorLastModificationTime: created,
    ingestedAt: null,
    deletedAt: null,
    createdAt: created,
    updatedAt: created,
    ...overrides,
  };
}

function outboxRecord(scope: OutboxScope, id: string, minute: number): OutboxEventRecord {
  const occurredAt = new Date(Date.parse(created) + minute * 60_000).toISOString();
  return {
    id: `outbox-${id}`,
    docType: "outbox",
    kind: "event",
    scope,
    createdAt: occurredAt,
    publishedAt: null,
    message: { envelope: { id, type: "incident.status.changed.v1", occurredAt, data: { status: "Active" } }, accountId: "acct-1", incident: null },
  };
}

export function gamebookRun(id: string, workspaceId: string, source: "SourceA" | "SourceB", incidentId: string, minute: number): GamebookRunRecord {
  const at = new Date(Date.parse(created) + minute * 60_000).toISOString();
  return {
    id, tracingId: `trace-${id}`, incidentId, source, incidentTitle: "Phishing", incidentNumber: 7,
    isOcr: false, isRecover: false, isAdminRequired: false, isAutoRun: true, isRetryGamebook: false, isQueued: false,
    triggedByUserId: "u-1", displayName: "Automation", modificationDate: at, creationDate: at, status: "Succeeded",
    title: "Contain phishing", summary: "", workspaceId, workspaceName: "ws", tenantId: "t-1",
    originalGamebookId: "gb-1", originalGamebookTitle: "Contain phishing",
    playbooks: [
      {
        id: `${id}-1`, referenceId: "pb-1", entityId: "acct-1", name: "Reset user password", description: "", affectedEntity: "ann@contoso.com",
        tracingId: `trace-${id}`, userObjectId: "", userPrincipalName: "ann@contoso.com", internetMessageId: "", entityType: "User",
        isRecommended: true, isAdminRequired: true, status: "Succeeded", errorMessage: "", sequence: 1, modificationDate: at,
        startingDate: at, finishingDate: at, executionTime: "00:00:03.250", parameters: { note: "x", hours: 2, force: true },
        action: "automation", actionName: "reset-password",
      },
    ],
    accountId: "acct-1",
    submitter: { origin: "api", serviceAccountId: "sa-1", name: "SOAR connector", accountId: "acct-1" },
    approval: { reasons: [], decision: null, decidedBy: null, decidedAt: null, comment: null },
    dispatchedAt: at,
    searchText: "contain phishing\nphishing\nautomation",
  };
}

function minuteAt(minute: number): string {
  return new Date(Date.parse(created) + minute * 60_000).toISOString();
}

/** A run waiting for approval whose request expires `expiresInMinutes` after `created`. */
function waitingRun(id: string, workspaceId: string, expiresInMinutes: number): GamebookRunRecord {
  const run = gamebookRun(id, workspaceId, "SourceA", `inc-${id}`, 1);
  return {
    ...run,
    status: "Pending",
    isQueued: true,
    dispatchedAt: "",
    playbooks: run.playbooks.map((p) => ({ ...p, status: "Pending", startingDate: "", finishingDate: "", executionTime: "" })),
    requestedBy: { kind: "ServiceAccount", id: "sa-1", name: "SOAR connector" },
    matchedRule: null,
    approval: {
      reasons: ["WorkspacePolicy"], decision: null, decidedBy: null, decidedAt: null, comment: null,
      decidedByUserId: null, expiresAt: minuteAt(expiresInMinutes), requiredApprovals: 1, approvals: [],
    },
  };
}

/** A run whose approval was decided `decidedAtMinute` after `created` (a denial ends it; an approval has it run). */
function decidedRun(id: string, workspaceId: string, decision: "Approved" | "Denied", decidedAtMinute: number, options: { expired?: boolean } = {}): GamebookRunRecord {
  const waiting = waitingRun(id, workspaceId, 24 * 60);
  return {
    ...waiting,
    status: decision === "Denied" ? "Denied" : "Succeeded",
    isQueued: decision === "Denied",
    approval: {
      ...waiting.approval,
      decision,
      decidedBy: options.expired ? "Approval expiry" : "Jonas Becker",
      decidedByUserId: "u-owner",
      decidedAt: minuteAt(decidedAtMinute),
      comment: decision === "Denied" ? "Not now." : null,
      ...(options.expired ? { expired: true } : {}),
    },
  };
}

function playbookCatalogue(workspaceId: string): PlaybookCatalogueRecord {
  return {
    id: "playbook-catalogue",
    workspaceId,
    playbooks: [
      {
        id: "pb-1", workspaceId, referenceId: "isolate-host", name: "Isolate host", description: "Cuts the device off the network.", entityType: "Host",
        action: "automation", isAdminRequired: true, isRecommended: true, recoverPlaybookId: null,
        parameters: [{ name: "isolationType", kind: "enum", description: "Full or Selective.", required: false, values: ["Full", "Selective"], default: "Full" }],
      },
    ],
    gamebooks: [{ id: "gb-1", workspaceId, title: "Contain a host", description: "", playbooks: [{ playbookId: "pb-1", sequence: 1 }] }],
    rules: [{ workspaceId, incidentTitle: "Malware detected on *", playbookId: "pb-1" }],
    updatedAt: created,
  };
}

function webhook(id: string, accountId: string): WebhookRecord {
  return {
    id, targetAccountId: accountId, targetAccountName: "Account", serviceProviderId: accountId, workspaceId: null,
    name: `hook ${id}`, url: "https://hooks.example.com/in", status: "Active", eventTypes: ["incident.created.v1"],
    monitoredAccountIds: [], authenticationType: "None", sealedToken: null,
    signingKeys: [{ sealed: "sealed", createdAt: created, retiresAt: null }], disableReason: null, disabledAt: null,
    finalFailures: [], createdAt: created, lastModifiedAt: created,
  };
}

function deliveryLog(id: string, webhookId: string, createdAt: string, overrides: Partial<DeliveryLogRecord> = {}): DeliveryLogRecord {
  return {
    id, partitionKey: deliveryLogPartition(webhookId, createdAt), webhookConfigurationId: webhookId, eventId: `ev-${id}`,
    eventType: "incident.created.v1", eventOccurredAt: createdAt, status: "Succeeded", httpStatusCode: 200, success: true, requestUrl: "https://hooks.example.com/in",
    requestHeaders: { "content-type": "application/json" }, durationMs: 12, createdAt, redelivered: false, attempt: 1, isTest: false,
    incident: null, error: null, ttl: 30 * 86400, ...overrides,
  };
}
