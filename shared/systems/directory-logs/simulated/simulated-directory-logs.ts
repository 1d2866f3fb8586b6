import { z } from "zod";
import { invalidPageToken } from "../../../platform/errors/api-error";
import { guidFromWords, hashString32, mix32, Rng } from "../../vendors/simulated/seeded-random";
import {
  checkDirectoryLogQuery,
  directoryLogsNotEnabled,
  isObjectId,
  type DirectoryAuditRecord,
  type DirectoryLogQuery,
  type DirectoryLogs,
  type LogPage,
  type SignInLocation,
  type SignInRecord,
} from "../port";
import { decodeLogCursor, encodeLogCursor } from "../log-cursor";

export interface DirectoryUser {
  id: string;
  displayName: string;
  userPrincipalName: string;
}

export interface DirectoryTenant {
  tenantId: string;
  users: readonly DirectoryUser[];
}

export interface SimulatedDirectoryLogsOptions {
  seed: string;
  tenants: readonly DirectoryTenant[];
  now: () => Date;
  /** How far back logs exist (Entra ID keeps 30 days with P1/P2); default 30. */
  retentionDays?: number;
}

/** Acting "inside the directory", for local controls and tests: events that happen now. */
export interface DirectoryConsole {
  /** A sign-in now; unspecified fields get a successful interactive sign-in's values. */
  addSignIn(tenantId: string, input: Partial<SignInRecord> & { userPrincipalName: string }): SignInRecord;
  addDirectoryAudit(tenantId: string, input: Partial<DirectoryAuditRecord> & { activityDisplayName: string }): DirectoryAuditRecord;
}

export interface SimulatedDirectoryLogs {
  logs: DirectoryLogs;
  console: DirectoryConsole;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Keyset resume point: the last returned row's time and id (rows are ordered by both, descending). */
const cursorSchema = z.strictObject({ t: z.iso.datetime(), i: z.string().min(1) });

/**
 * Deterministic identity logs for the demo tenants. Each hour of each tenant is generated from the
 * seed on demand (nothing is stored but what the console adds), so the logs of a hour never change
 * while the process runs and a query over 30 days costs a few thousand generated rows at most.
 * Addresses are from the documentation ranges (RFC 5737): 198.51.100.0/24 for users at home or in the
 * office, 203.0.113.0/24 for the corporate VPN and 192.0.2.0/24 for attackers.
 */
export function createSimulatedDirectoryLogs(options: SimulatedDirectoryLogsOptions): SimulatedDirectoryLogs {
  const retentionMs = (options.retentionDays ?? 30) * DAY;
  const tenants = new Map(options.tenants.map((t) => [t.tenantId.toLowerCase(), directoryOf(options.seed, t)]));
  const added = new Map<string, { signIns: SignInRecord[]; audits: DirectoryAuditRecord[] }>();
  const extras = (tenantId: string) => {
    let entry = added.get(tenantId);
    if (!entry) added.set(tenantId, (entry = { signIns: [], audits: [] }));
    return entry;
  };

  function tenantOf(tenantId: string): Directory {
    const directory = tenants.get(tenantId.toLowerCase());
    if (!directory) throw directoryLogsNotEnabled(tenantId);
    return directory;
  }

  function page<T extends { id: string }>(
    query: DirectoryLogQuery,
    generate: (d: Directory, hour: number) => T[],
    time: (row: T) => string,
    matchesUser: (row: T, user: string) => boolean,
    extra: (tenantId: string) => T[],
  ): LogPage<T> {
    const directory = tenantOf(query.tenantId);
    const window = checkDirectoryLogQuery(query);
    const nowMs = options.now().getTime();
    const lowest = Math.max(window.from, nowMs - retentionMs);
    let after: { t: number; i: string } | undefined;
    if (query.cursor !== undefined) {
      const c = decodeLogCursor(query.cursor, cursorSchema);
      after = { t: Date.parse(c.t), i: c.i };
      if (after.t < window.from || after.t >= window.to) throw invalidPageToken("cursor");
    }
    const upper = Math.min(window.to, nowMs + 1, after ? after.t + 1 : Infinity);
    const items: T[] = [];
    const consoleRows = extra(directory.tenantId);
    for (let hour = Math.floor((upper - 1) / HOUR); hour * HOUR + HOUR > lowest && items.length <= query.pageSize; hour--) {
      const rows = [...generate(directory, hour), ...consoleRows.filter((r) => Math.floor(Date.parse(time(r)) / HOUR) === hour).map((r) => structuredClone(r))]
        .filter((r) => {
          const at = Date.parse(time(r));
          if (at < lowest || at >= window.to || at > nowMs) return false;
          if (after && (at > after.t || (at === after.t && r.id >= after.i))) return false;
          return query.user === undefined || matchesUser(r, query.user);
        })
        .sort((a, b) => (time(a) === time(b) ? (a.id < b.id ? 1 : -1) : time(a) < time(b) ? 1 : -1));
      items.push(...rows);
    }
    if (items.length <= query.pageSize) return { items };
    const pageItems = items.slice(0, query.pageSize);
    const last = pageItems[pageItems.length - 1]!;
    return { items: pageItems, cursor: encodeLogCursor({ t: time(last), i: last.id }) };
  }

  const sameUser = (user: string, id: string | null, upn: string | null) =>
    isObjectId(user) ? id?.toLowerCase() === user.toLowerCase() : upn?.toLowerCase() === user.toLowerCase();

  const logs: DirectoryLogs = {
    isEnabled: (tenantId) => tenants.has(tenantId.toLowerCase()),
    listSignIns: async (query) =>
      page(query, signInsOf, (r) => r.createdDateTime, (r, user) => sameUser(user, r.userId, r.userPrincipalName), (t) => extras(t).signIns),
    listDirectoryAudits: async (query) =>
      page(
        query,
        auditsOf,
        (r) => r.activityDateTime,
        (r, user) => sameUser(user, r.initiatedBy.user?.id ?? null, r.initiatedBy.user?.userPrincipalName ?? null),
        (t) => extras(t).audits,
      ),
  };

  const console: DirectoryConsole = {
    addSignIn(tenantId, input) {
      const d = tenantOf(tenantId);
      const user = d.users.find((u) => u.userPrincipalName.toLowerCase() === input.userPrincipalName.toLowerCase());
      const rng = new Rng(hashString32(`${options.seed}/console/${d.tenantId}/${extras(d.tenantId).signIns.length}`));
      const base = signInOf(rng, d, user ?? d.users[0]!, options.now().getTime(), "normal");
      const record: SignInRecord = { ...base, userId: user?.id ?? base.userId, userDisplayName: user?.displayName ?? null, ...input };
      extras(d.tenantId).signIns.push(record);
      return structuredClone(record);
    },
    addDirectoryAudit(tenantId, input) {
      const d = tenantOf(tenantId);
      const rng = new Rng(hashString32(`${options.seed}/console-audit/${d.tenantId}/${extras(d.tenantId).audits.length}`));
      const record: DirectoryAuditRecord = { ...auditOf(rng, d, options.now().getTime()), ...input };
      extras(d.tenantId).audits.push(record);
      return structuredClone(record);
    },
  };

  return { logs, console };
}

interface PersonaUser extends DirectoryUser {
  home: SignInLocation;
  homeIp: string;
  device: { id: string; name: string; os: string; browser: string };
  /** Service identities sign in non-interactively, around the clock. */
  service: boolean;
}

interface Directory {
  tenantId: string;
  key: number;
  domain: string;
  users: PersonaUser[];
}

const cities: readonly SignInLocation[] = [
  { city: "Seattle", state: "Washington", countryOrRegion: "US", latitude: 47.6062, longitude: -122.3321 },
  { city: "London", state: "England", countryOrRegion: "GB", latitude: 51.5072, longitude: -0.1276 },
  { city: "Lyon", state: "Auvergne-Rhône-Alpes", countryOrRegion: "FR", latitude: 45.764, longitude: 4.8357 },
  { city: "Toronto", state: "Ontario", countryOrRegion: "CA", latitude: 43.6532, longitude: -79.3832 },
  { city: "Bengaluru", state: "Karnataka", countryOrRegion: "IN", latitude: 12.9716, longitude: 77.5946 },
  { city: "Madrid", state: "Madrid", countryOrRegion: "ES", latitude: 40.4168, longitude: -3.7038 },
];

const hostile: readonly SignInLocation[] = [
  { city: "Amsterdam", state: "Noord-Holland", countryOrRegion: "NL", latitude: 52.3676, longitude: 4.9041 },
  { city: "Lagos", state: "Lagos", countryOrRegion: "NG", latitude: 6.5244, longitude: 3.3792 },
  { city: "Bucharest", state: "Bucuresti", countryOrRegion: "RO", latitude: 44.4268, longitude: 26.1025 },
  { city: "Ho Chi Minh City", state: "Ho Chi Minh", countryOrRegion: "VN", latitude: 10.8231, longitude: 106.6297 },
];

const devices = [
  { os: "Windows 11", browser: "Edge 124.0.2478" },
  { os: "Windows 10", browser: "Chrome 124.0.6367" },
  { os: "MacOs", browser: "Safari 17.4" },
  { os: "Ios 17.4", browser: "Mobile Safari 17.4" },
] as const;

const apps = [
  { appId: "00000002-0000-0ff1-ce00-000000000000", app: "Office 365 Exchange Online", resource: "Office 365 Exchange Online", client: "Browser" },
  { appId: "1fec8e78-bce4-4aaf-ab1b-5451cc387264", app: "Microsoft Teams", resource: "Microsoft Teams Services", client: "Mobile Apps and Desktop clients" },
  { appId: "c44b4083-3bb0-49c1-b47d-974e53cbdf3c", app: "Azure Portal", resource: "Windows Azure Service Management API", client: "Browser" },
  { appId: "4765445b-32c6-49b0-83e6-1d93765276ca", app: "OfficeHome", resource: "Office 365 SharePoint Online", client: "Browser" },
  { appId: "d3590ed6-52b3-4102-aeff-aad2292ab01c", app: "Microsoft Office", resource: "Microsoft Graph", client: "Mobile Apps and Desktop clients" },
] as const;

const failures = [
  { errorCode: 50126, failureReason: "Error validating credentials due to invalid username or password." },
  { errorCode: 50074, failureReason: "Strong Authentication is required." },
  { errorCode: 500121, failureReason: "Authentication failed during strong authentication request." },
  { errorCode: 50140, failureReason: "This error occurred due to 'Keep me signed in' interrupt when the user was signing in." },
] as const;

const mfaPolicy = { id: "6b3e1a7c-2f4d-4e8a-9c1b-0d2e3f4a5b6c", displayName: "Require MFA for all users" };
const riskPolicy = { id: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", displayName: "Block high-risk sign-ins" };

function directoryOf(seed: string, tenant: DirectoryTenant): Directory {
  const key = hashString32(`${seed}/directory/${tenant.tenantId.toLowerCase()}`);
  const domain = tenant.users[0]?.userPrincipalName.split("@")[1] ?? "tenant.example";
  const people: DirectoryUser[] = [
    ...tenant.users,
    // The rest of the directory: people and identities the SOC service does not know as users.
    { id: guidOf(key, 1), displayName: "Alex Morgan", userPrincipalName: `alex.morgan@${domain}` },
    { id: guidOf(key, 2), displayName: "Helpdesk Admin", userPrincipalName: `helpdesk.admin@${domain}` },
    { id: guidOf(key, 3), displayName: "svc-backup", userPrincipalName: `svc-backup@${domain}` },
  ];
  const users = people.map((u, i): PersonaUser => {
    const rng = new Rng(mix32(key, i, 0x5eed));
    const device = rng.pick(devices);
    return {
      ...u,
      home: rng.pick(cities),
      homeIp: `198.51.100.${rng.between(2, 254)}`,
      device: { id: guidOf(key, 1000 + i), name: `WKS-${rng.hex(4).toUpperCase()}`, os: device.os, browser: device.browser },
      service: u.userPrincipalName.startsWith("svc-"),
    };
  });
  return { tenantId: tenant.tenantId, key, domain, users };
}

function guidOf(key: number, n: number): string {
  const rng = new Rng(mix32(key, n, 0x61d));
  return guidFromWords(rng.uint32(), rng.uint32(), rng.uint32(), rng.uint32());
}

/** Office hours in UTC, weekdays: most activity; nights and weekends: a trickle. */
function busy(hour: number): boolean {
  const at = new Date(hour * HOUR);
  const day = at.getUTCDay();
  return day !== 0 && day !== 6 && at.getUTCHours() >= 7 && at.getUTCHours() < 18;
}

function signInsOf(d: Directory, hour: number): SignInRecord[] {
  const out: SignInRecord[] = [];
  d.users.forEach((user, i) => {
    const rng = new Rng(mix32(d.key, hour, i, 0x51));
    const rate = user.service ? 0.6 : busy(hour) ? 1.2 : 0.1;
    const count = Math.floor(rate + rng.next());
    for (let n = 0; n < count; n++) {
      const at = hour * HOUR + Math.floor(rng.int(3600)) * 1000;
      const story = rng.next();
      out.push(signInOf(rng, d, user, at, user.service ? "service" : story < 0.03 ? "attack" : story < 0.12 ? "failure" : "normal"));
    }
  });
  return out;
}

function signInOf(rng: Rng, d: Directory, user: PersonaUser, at: number, story: "normal" | "failure" | "attack" | "service"): SignInRecord {
  const app = rng.pick(apps);
  const id = guidFromWords(rng.uint32(), rng.uint32(), rng.uint32(), rng.uint32());
  const onVpn = story !== "attack" && rng.chance(0.3);
  const failure = story === "failure" ? rng.pick(failures) : undefined;
  const blocked = story === "attack" && rng.chance(0.6);
  const location = story === "attack" ? rng.pick(hostile) : user.home;
  return {
    id,
    createdDateTime: new Date(at).toISOString(),
    userId: user.id,
    userDisplayName: user.displayName,
    userPrincipalName: user.userPrincipalName,
    appId: story === "service" ? "7b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e" : app.appId,
    appDisplayName: story === "service" ? "Contoso Backup Agent" : app.app,
    resourceDisplayName: story === "service" ? "Microsoft Graph" : app.resource,
    clientAppUsed: story === "attack" && rng.chance(0.5) ? "IMAP" : app.client,
    isInteractive: story !== "service",
    ipAddress: story === "attack" ? `192.0.2.${rng.between(2, 254)}` : onVpn ? `203.0.113.${rng.between(2, 30)}` : user.homeIp,
    location: { ...location },
    deviceDetail:
      story === "attack"
        ? { deviceId: null, displayName: null, operatingSystem: "Linux", browser: "Python Requests 2.31", isCompliant: false, isManaged: false, trustType: null }
        : { deviceId: user.device.id, displayName: user.device.name, operatingSystem: user.device.os, browser: user.device.browser, isCompliant: true, isManaged: true, trustType: "Azure AD joined" },
    status: blocked
      ? { errorCode: 53003, failureReason: "Access has been blocked by Conditional Access policies.", additionalDetails: `The policy "${riskPolicy.displayName}" blocked the sign-in.` }
      : failure
        ? { errorCode: failure.errorCode, failureReason: failure.failureReason, additionalDetails: null }
        : { errorCode: 0, failureReason: null, additionalDetails: story === "attack" ? "MFA requirement satisfied by claim in the token" : null },
    conditionalAccessStatus: story === "service" ? "notApplied" : blocked || failure?.errorCode === 500121 ? "failure" : "success",
    appliedConditionalAccessPolicies:
      story === "service"
        ? []
        : [
            { ...mfaPolicy, result: failure?.errorCode === 500121 ? "failure" : "success", enforcedGrantControls: ["Mfa"], enforcedSessionControls: [] },
            { ...riskPolicy, result: blocked ? "failure" : "notApplied", enforcedGrantControls: blocked ? ["Block"] : [], enforcedSessionControls: [] },
          ],
    riskLevelDuringSignIn: story === "attack" ? rng.pick(["medium", "high"]) : "none",
    riskLevelAggregated: story === "attack" ? "high" : "none",
    riskState: story === "attack" ? "atRisk" : "none",
    riskDetail: "none",
    riskEventTypes: story === "attack" ? [...rng.pick([["unfamiliarFeatures"], ["anonymizedIPAddress", "unfamiliarFeatures"], ["impossibleTravel"]])] : [],
    correlationId: guidFromWords(rng.uint32(), rng.uint32(), rng.uint32(), rng.uint32()),
  };
}

interface Activity {
  name: string;
  category: string;
  operationType: string;
  service: string;
  target: (rng: Rng, d: Directory) => DirectoryAuditRecord["targetResources"][number];
}

const groupNames = ["SOC Analysts", "Finance Approvers", "VPN Users", "Global Readers"] as const;

const activities: readonly Activity[] = [
  {
    name: "Reset user password",
    category: "UserManagement",
    operationType: "Update",
    service: "Core Directory",
    target: (rng, d) => userTarget(rng.pick(d.users), []),
  },
  {
    name: "Update user",
    category: "UserManagement",
    operationType: "Update",
    service: "Core Directory",
    target: (rng, d) =>
      userTarget(rng.pick(d.users), [{ displayName: "StrongAuthenticationMethod", oldValue: '[{"MethodType":6}]', newValue: '[{"MethodType":6},{"MethodType":7}]' }]),
  },
  {
    name: "Disable account",
    category: "UserManagement",
    operationType: "Update",
    service: "Core Directory",
    target: (rng, d) => userTarget(rng.pick(d.users), [{ displayName: "AccountEnabled", oldValue: "[true]", newValue: "[false]" }]),
  },
  {
    name: "Add member to group",
    category: "GroupManagement",
    operationType: "Assign",
    service: "Core Directory",
    target: (rng, d) => {
      const user = rng.pick(d.users);
      return userTarget(user, [{ displayName: "Group.DisplayName", oldValue: null, newValue: `"${rng.pick(groupNames)}"` }]);
    },
  },
  {
    name: "Add member to role",
    category: "RoleManagement",
    operationType: "Assign",
    service: "Core Directory",
    target: (rng, d) => userTarget(rng.pick(d.users), [{ displayName: "Role.DisplayName", oldValue: null, newValue: `"${rng.pick(["Security Reader", "Global Administrator", "Exchange Administrator"])}"` }]),
  },
  {
    name: "Consent to application",
    category: "ApplicationManagement",
    operationType: "Assign",
    service: "Core Directory",
    target: (rng, d) => ({
      id: guidOf(d.key, 5000 + rng.int(20)),
      displayName: rng.pick(["Mail Merge Pro", "PDF Converter Online", "Contoso Expenses"]),
      type: "ServicePrincipal",
      userPrincipalName: null,
      modifiedProperties: [{ displayName: "ConsentAction.Permissions", oldValue: null, newValue: '"Scope: Mail.Read offline_access User.Read"' }],
    }),
  },
  {
    name: "Update conditional access policy",
    category: "Policy",
    operationType: "Update",
    service: "Conditional Access",
    target: () => ({ id: mfaPolicy.id, displayName: mfaPolicy.displayName, type: "Policy", userPrincipalName: null, modifiedProperties: [{ displayName: "ConditionalAccessPolicy", oldValue: '{"state":"enabled"}', newValue: '{"state":"enabledForReportingButNotEnforced"}' }] }),
  },
];

function userTarget(user: DirectoryUser, modifiedProperties: DirectoryAuditRecord["targetResources"][number]["modifiedProperties"]) {
  return { id: user.id, displayName: null, type: "User", userPrincipalName: user.userPrincipalName, modifiedProperties };
}

function auditsOf(d: Directory, hour: number): DirectoryAuditRecord[] {
  const rng = new Rng(mix32(d.key, hour, 0xa0d));
  const count = Math.floor((busy(hour) ? 0.6 : 0.05) + rng.next());
  const out: DirectoryAuditRecord[] = [];
  for (let n = 0; n < count; n++) out.push(auditOf(rng, d, hour * HOUR + rng.int(3600) * 1000));
  return out;
}

function auditOf(rng: Rng, d: Directory, at: number): DirectoryAuditRecord {
  const activity = rng.pick(activities);
  const byApp = rng.chance(0.25);
  // Administrators act: the helpdesk admin most, then the people the service knows.
  const admin = rng.chance(0.5) ? d.users.find((u) => u.userPrincipalName.startsWith("helpdesk.admin@"))! : rng.pick(d.users.filter((u) => !u.service));
  return {
    id: `Directory_${guidFromWords(rng.uint32(), rng.uint32(), rng.uint32(), rng.uint32()).toUpperCase().replace(/-/g, "")}`,
    activityDateTime: new Date(at).toISOString(),
    activityDisplayName: activity.name,
    category: activity.category,
    operationType: activity.operationType,
    result: rng.chance(0.95) ? "success" : "failure",
    resultReason: null,
    loggedByService: activity.service,
    correlationId: guidFromWords(rng.uint32(), rng.uint32(), rng.uint32(), rng.uint32()),
    initiatedBy: byApp
      ? { user: null, app: { appId: "0000000c-0000-0000-c000-000000000000", displayName: "Microsoft Entra Connect", servicePrincipalId: guidOf(d.key, 9000), servicePrincipalName: null } }
      : { user: { id: admin.id, displayName: admin.displayName, userPrincipalName: admin.userPrincipalName, ipAddress: admin.homeIp }, app: null },
    targetResources: [activity.target(rng, d)],
    additionalDetails: [{ key: "User-Agent", value: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36 Edg/124.0" }],
  };
}
