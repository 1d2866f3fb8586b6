import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildDemoData } from "../../shared/hosts/local/demo-data";
import type { DirectoryAuditRecord, DirectoryLogQuery, DirectoryLogs, LogPage, SignInRecord } from "../../shared/systems/directory-logs/port";
import {
  createSimulatedDirectoryLogs,
  type DirectoryConsole,
  type DirectoryTenant,
  type SimulatedDirectoryLogs,
} from "../../shared/systems/directory-logs/simulated/simulated-directory-logs";
import { apiErrorOf } from "../support/api-error-of";

/** A Wednesday afternoon: office hours, so the directory is busy. */
const NOW = new Date("2024-06-05T15:30:00.000Z");
const SEED = "directory-contract";
const HOUR = 3_600_000;

/** The directory both adapters read: the demo organization's three tenants, simulated, at a clock the tests move. */
export interface DirectorySystem {
  directory: SimulatedDirectoryLogs;
  tenants: DirectoryTenant[];
  clock: { now: Date };
}

export interface DirectoryLogsFixture {
  /** The adapter under test, reading `system`'s directory. */
  logs: DirectoryLogs;
  teardown(): Promise<void>;
}

function directorySystem(): DirectorySystem {
  const demo = buildDemoData(SEED, NOW);
  const tenants = [...new Set(demo.users.map((u) => u.tenantId))].map((tenantId) => ({
    tenantId,
    users: demo.users.filter((u) => u.tenantId === tenantId).map((u) => ({ id: u.id, displayName: u.displayName, userPrincipalName: u.email })),
  }));
  const clock = { now: NOW };
  return { directory: createSimulatedDirectoryLogs({ seed: SEED, tenants, now: () => clock.now }), tenants, clock };
}

interface UserOfRow {
  id: string | null;
  upn: string | null;
}

/** What the cases need to know of one log. */
interface LogKind<T extends { id: string }> {
  name: string;
  list(logs: DirectoryLogs, query: DirectoryLogQuery): Promise<LogPage<T>>;
  time(row: T): string;
  /** Whom the user filter matches: the signed-in user, or the user who initiated the activity. */
  userOf(row: T): UserOfRow;
  /** Records an event now, every field given. */
  record(console: DirectoryConsole, tenantId: string, user: { id: string; userPrincipalName: string }): T;
}

const signIns: LogKind<SignInRecord> = {
  name: "sign-ins",
  list: (logs, query) => logs.listSignIns(query),
  time: (row) => row.createdDateTime,
  userOf: (row) => ({ id: row.userId, upn: row.userPrincipalName }),
  record: (console, tenantId, user) =>
    console.addSignIn(tenantId, {
      userPrincipalName: user.userPrincipalName,
      userId: user.id,
      userDisplayName: "Kim O'Brien",
      appId: "00000002-0000-0ff1-ce00-000000000000",
      appDisplayName: "Office 365 Exchange Online",
      resourceDisplayName: "Office 365 Exchange Online",
      clientAppUsed: "IMAP",
      isInteractive: false,
      ipAddress: "192.0.2.77",
      location: { city: "Amsterdam", state: null, countryOrRegion: "NL", latitude: 52.3676, longitude: null },
      deviceDetail: { deviceId: null, displayName: null, operatingSystem: "Linux", browser: null, isCompliant: false, isManaged: null, trustType: null },
      status: { errorCode: 50126, failureReason: "Error validating credentials due to invalid username or password.", additionalDetails: null },
      conditionalAccessStatus: "notApplied",
      appliedConditionalAccessPolicies: [
        { id: "0d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a", displayName: "Block legacy authentication", result: "reportOnlyFailure", enforcedGrantControls: ["Block"], enforcedSessionControls: [] },
      ],
      riskLevelDuringSignIn: "high",
      riskLevelAggregated: "medium",
      riskState: "atRisk",
      riskDetail: "none",
      riskEventTypes: ["impossibleTravel", "unfamiliarFeatures"],
      correlationId: null,
    }),
};

const directoryAudits: LogKind<DirectoryAuditRecord> = {
  name: "directory audits",
  list: (logs, query) => logs.listDirectoryAudits(query),
  time: (row) => row.activityDateTime,
  userOf: (row) => ({ id: row.initiatedBy.user?.id ?? null, upn: row.initiatedBy.user?.userPrincipalName ?? null }),
  record: (console, tenantId, user) =>
    console.addDirectoryAudit(tenantId, {
      activityDisplayName: "Add member to role",
      category: "RoleManagement",
      operationType: "Assign",
      result: "failure",
      resultReason: "The role assignment was refused.",
      loggedByService: "Core Directory",
      correlationId: "5c4b3a29-1807-4f6e-8d5c-4b3a29180706",
      initiatedBy: { user: { id: user.id, displayName: null, userPrincipalName: user.userPrincipalName, ipAddress: "198.51.100.23" }, app: null },
      targetResources: [
        {
          id: "8f7e6d5c-4b3a-4291-8807-f6e5d4c3b2a1",
          displayName: null,
          type: "User",
          userPrincipalName: "target.user@fabrikam.example",
          modifiedProperties: [{ displayName: "Role.DisplayName", oldValue: null, newValue: '"Global Administrator"' }],
        },
      ],
      additionalDetails: [{ key: "User-Agent", value: null }],
    }),
};

/** Every row of a listing, cursors followed; no page may be longer than asked. */
async function everything<T>(list: (query: DirectoryLogQuery) => Promise<LogPage<T>>, query: DirectoryLogQuery): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 2000; pages++) {
    const page = await list(cursor === undefined ? query : { ...query, cursor });
    expect(page.items.length).toBeLessThanOrEqual(query.pageSize);
    rows.push(...page.items);
    if (page.cursor === undefined) return rows;
    cursor = page.cursor;
  }
  throw new Error("the cursors never ended");
}

/**
 * The behaviour every directory logs adapter must have, pinned once and run against each adapter.
 * Each test gets a fresh simulated directory (`system`); `setup` gives the adapter that reads it.
 */
export function describeDirectoryLogsContract(name: string, setup: (system: DirectorySystem) => Promise<DirectoryLogsFixture>): void {
  describe(`${name} directory logs`, () => {
    let system: DirectorySystem;
    let logs: DirectoryLogs;
    let teardown: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      system = directorySystem();
      ({ logs, teardown } = await setup(system));
    });
    afterEach(async () => {
      await teardown?.();
      teardown = undefined;
    });

    const tenant = (index: number) => system.tenants[index]!;
    /** The tenant of the demo customer Fabrikam, whose users the cases act as. */
    const fabrikam = () => system.tenants.find((t) => t.users[0]!.userPrincipalName.endsWith("@fabrikam.example"))!;

    it("reads exactly the directory's tenants: any other is EXTENSION_NOT_ENABLED", async () => {
      for (const t of system.tenants) expect(logs.isEnabled(t.tenantId)).toBe(true);
      const stranger = "00000000-0000-4000-8000-000000000000";
      expect(logs.isEnabled(stranger)).toBe(false);
      const window = { tenantId: stranger, from: "2024-06-05T00:00:00.000Z", to: "2024-06-05T12:00:00.000Z", pageSize: 10 };
      expect((await apiErrorOf(logs.listSignIns(window))).code).toBe("EXTENSION_NOT_ENABLED");
      expect((await apiErrorOf(logs.listDirectoryAudits(window))).code).toBe("EXTENSION_NOT_ENABLED");
    });

    describe.each([signIns, directoryAudits] as unknown as LogKind<{ id: string }>[])("$name", (kind) => {
      /** Two and a half days ending before now: three one-day slices for an adapter that slices. */
      const days = (extra: Partial<DirectoryLogQuery> = {}): DirectoryLogQuery => ({
        tenantId: fabrikam().tenantId,
        from: "2024-06-03T06:00:00.000Z",
        to: "2024-06-05T12:00:00.000Z",
        pageSize: 1000,
        ...extra,
      });
      const list = (query: DirectoryLogQuery) => kind.list(logs, query);

      it("lists newest first, every row inside [from, to) and once", async () => {
        const query = days();
        const rows = await everything(list, query);
        expect(rows.length).toBeGreaterThan(5);
        const times = rows.map((r) => kind.time(r));
        expect([...times].sort().reverse()).toEqual(times);
        for (const at of times) expect(at >= query.from && at < query.to, at).toBe(true);
        expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
      });

      it("pages through the window in small pages: the same rows in the same order, no page longer than asked", async () => {
        const whole = await everything(list, days());
        const paged = await everything(list, days({ pageSize: 7 }));
        expect(paged.map((r) => r.id)).toEqual(whole.map((r) => r.id));
        const single = await everything(list, days({ pageSize: 1, from: "2024-06-05T06:00:00.000Z" }));
        expect(single.map((r) => r.id)).toEqual(whole.filter((r) => kind.time(r) >= "2024-06-05T06:00:00.000Z").map((r) => r.id));
      });

      it("returns what the directory recorded, field for field, milliseconds included", async () => {
        system.clock.now = new Date(NOW.getTime() + 123);
        const user = fabrikam().users[0]!;
        const recorded = kind.record(system.directory.console, fabrikam().tenantId, user);
        const rows = await everything(list, days({ from: "2024-06-05T15:00:00.000Z", to: "2024-06-05T16:00:00.000Z" }));
        expect(rows.filter((r) => r.id === recorded.id)).toEqual([recorded]);
        expect(kind.time(recorded)).toBe("2024-06-05T15:30:00.123Z");
      });

      it("includes a row stamped exactly at from and leaves out one stamped exactly at to", async () => {
        const recorded = kind.record(system.directory.console, fabrikam().tenantId, fabrikam().users[0]!);
        const at = kind.time(recorded);
        const before = await everything(list, days({ from: new Date(Date.parse(at) - HOUR).toISOString(), to: at }));
        expect(before.map((r) => r.id)).not.toContain(recorded.id);
        const from = await everything(list, days({ from: at, to: new Date(Date.parse(at) + HOUR).toISOString() }));
        expect(from.map((r) => r.id)).toContain(recorded.id);
      });

      it("filters by user principal name, whatever its letter case, or by object id: that user's rows, the same either way", async () => {
        const rows = await everything(list, days());
        const counts = new Map<string, number>();
        for (const r of rows) {
          const { id, upn } = kind.userOf(r);
          if (id && upn) counts.set(`${id} ${upn}`, (counts.get(`${id} ${upn}`) ?? 0) + 1);
        }
        const [busiest] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
        const [id, upn] = busiest.split(" ") as [string, string];
        const expected = rows.filter((r) => kind.userOf(r).id === id).map((r) => r.id);
        expect(expected.length).toBeGreaterThan(1);
        expect(expected.length).toBeLessThan(rows.length);
        expect((await everything(list, days({ user: upn.toUpperCase(), pageSize: 3 }))).map((r) => r.id)).toEqual(expected);
        expect((await everything(list, days({ user: id }))).map((r) => r.id)).toEqual(expected);
        expect((await everything(list, days({ user: id.toUpperCase() }))).map((r) => r.id)).toEqual(expected);
      });

      it("matches a user principal name with an apostrophe literally, and a user without activity to nothing", async () => {
        const user = { id: "3c2b1a09-8f7e-4d6c-9b5a-493827160504", userPrincipalName: "kim.o'brien@fabrikam.example" };
        const recorded = kind.record(system.directory.console, fabrikam().tenantId, user);
        const window = days({ from: "2024-06-05T15:00:00.000Z", to: "2024-06-05T16:00:00.000Z" });
        expect((await everything(list, { ...window, user: "Kim.O'Brien@fabrikam.example" })).map((r) => r.id)).toEqual([recorded.id]);
        expect(await everything(list, { ...window, user: "kim.o'brien@northwind.example" })).toEqual([]);
        expect(await everything(list, days({ user: "nobody@fabrikam.example" }))).toEqual([]);
      });

      it("keeps each tenant's directory apart", async () => {
        const byTenant = await Promise.all(system.tenants.map((t) => everything(list, days({ tenantId: t.tenantId }))));
        const seen = new Set<string>();
        byTenant.forEach((rows, i) => {
          const domain = tenant(i).users[0]!.userPrincipalName.split("@")[1]!;
          expect(rows.length).toBeGreaterThan(0);
          for (const r of rows) {
            const upn = kind.userOf(r).upn;
            if (upn !== null) expect(upn.endsWith(`@${domain}`), upn).toBe(true);
            expect(seen.has(r.id)).toBe(false);
            seen.add(r.id);
          }
        });
      });

      it("refuses a window that is not one with VALIDATION_ERROR naming the bound", async () => {
        const at = "2024-06-05T12:00:00.000Z";
        expect((await apiErrorOf(list(days({ from: at, to: at })))).errors).toHaveProperty("to");
        expect((await apiErrorOf(list(days({ from: at, to: "2024-06-05T11:00:00.000Z" })))).errors).toHaveProperty("to");
        const badFrom = await apiErrorOf(list(days({ from: "yesterday" })));
        expect(badFrom.code).toBe("VALIDATION_ERROR");
        expect(badFrom.errors).toHaveProperty("from");
      });

      it("refuses page sizes outside 1 to 1,000 with VALIDATION_ERROR", async () => {
        for (const pageSize of [0, 1001, 2.5]) {
          const error = await apiErrorOf(list(days({ pageSize })));
          expect(error.code, String(pageSize)).toBe("VALIDATION_ERROR");
          expect(error.errors).toHaveProperty("pageSize");
        }
        expect((await list(days({ pageSize: 1000 }))).items.length).toBeGreaterThan(0);
      });

      it("refuses a cursor it did not issue, and one reused with a window that does not hold it", async () => {
        expect((await apiErrorOf(list(days({ cursor: "bm9wZQ" })))).code).toBe("VALIDATION_ERROR");
        expect((await apiErrorOf(list(days({ cursor: "not base64 at all!" })))).code).toBe("VALIDATION_ERROR");
        const first = await list(days({ pageSize: 2 }));
        expect(first.cursor).toBeDefined();
        const earlier = days({ from: "2024-05-30T00:00:00.000Z", to: "2024-05-31T00:00:00.000Z", cursor: first.cursor });
        expect((await apiErrorOf(list(earlier))).code).toBe("VALIDATION_ERROR");
      });
    });
  });
}
