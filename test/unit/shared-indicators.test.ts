import { describe, expect, it } from "vitest";
import type { Entity, VendorIncident } from "../../shared/model/incidents/incident";
import type { IncidentIndicators, IncidentStateRecord } from "../../shared/model/incidents/incident-state-record";
import { indicatorKeys, indicatorKeysOfEntity, indicatorOf, MAX_INDICATORS_PER_INCIDENT } from "../../shared/domain/incidents/indicators";
import { groupSharedIndicators, sharedIndicators } from "../../shared/domain/incidents/shared-indicators";
import { baselineState, upstreamChange } from "../../shared/domain/incidents/upstream-changes";
import type { WorkspaceRecord } from "../../shared/model/organizations/workspace";
import type { Stores } from "../../shared/platform/store/ports";

const entity = (kind: Entity["kind"], name: string, properties: Entity["properties"] = {}): Entity => ({ id: `e-${name}`, kind, name, properties });
const keysOf = (e: Entity) => indicatorKeysOfEntity(e);

describe("indicator keys", () => {
  it("an IP address: its canonical form; IPv4-mapped IPv6 as IPv4; the `address` property before the name", () => {
    expect(keysOf(entity("Ip", "192.0.2.7"))).toEqual(["ip:192.0.2.7"]);
    expect(keysOf(entity("Ip", " ::FFFF:192.0.2.7 "))).toEqual(["ip:192.0.2.7"]);
    expect(keysOf(entity("Ip", "2001:DB8:0:0:0:0:0:07"))).toEqual(["ip:2001:db8::7"]);
    expect(keysOf(entity("Ip", "attacker", { address: "8.8.8.8" }))).toEqual(["ip:8.8.8.8"]);
  });

  it("an address every network reuses, or no address at all, gives no key", () => {
    for (const local of ["10.1.2.3", "172.16.0.9", "192.168.1.1", "127.0.0.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "255.255.255.255", "224.0.0.1", "::1", "fe80::1", "fd00::1", "fe80::1%eth0"]) {
      expect(keysOf(entity("Ip", local)), local).toEqual([]);
    }
    // ipaddr.js would read these as addresses; node:net does not, and neither does the key.
    for (const odd of ["127.1", "0xc0.0.2.7", "192.0.2.07", "not an address", ""]) expect(keysOf(entity("Ip", odd)), odd).toEqual([]);
  });

  it("a host: its fully qualified name, lower case; a bare name is in every network and gives none", () => {
    expect(keysOf(entity("Host", "WEB01", { hostName: "WEB01", dnsDomain: "Corp.Contoso.Example." }))).toEqual(["host:web01.corp.contoso.example"]);
    expect(keysOf(entity("Host", "web01.contoso.example"))).toEqual(["host:web01.contoso.example"]);
    expect(keysOf(entity("Host", "WEB01", { fqdn: "web01.fabrikam.example" }))).toEqual(["host:web01.fabrikam.example"]);
    expect(keysOf(entity("Host", "DC01"))).toEqual([]);
    expect(keysOf(entity("Host", "DC01", { dnsDomain: "CONTOSO" }))).toEqual([]);
  });

  it("an account: its UPN, lower case; a name without a domain gives none", () => {
    expect(keysOf(entity("Account", "Amelia", { upn: "Amelia.Schmidt@Fabrikam.example" }))).toEqual(["account:amelia.schmidt@fabrikam.example"]);
    expect(keysOf(entity("Account", "svc-backup@northwind.example"))).toEqual(["account:svc-backup@northwind.example"]);
    expect(keysOf(entity("Account", "administrator"))).toEqual([]);
    expect(keysOf(entity("Account", "CONTOSO\\administrator"))).toEqual([]);
  });

  it("a file: its SHA-256, lower case; a file name alone gives none", () => {
    const sha = "A".repeat(64);
    expect(keysOf(entity("File", "payload.dll", { sha256: sha }))).toEqual([`sha256:${"a".repeat(64)}`]);
    expect(keysOf(entity("File", "payload.dll", { sha256: "abc" }))).toEqual([]);
    expect(keysOf(entity("File", "payload.dll"))).toEqual([]);
  });

  it("a mailbox: its address; a URL: itself (no fragment, no default port, host lower case) and its host as a domain or an address", () => {
    expect(keysOf(entity("Mailbox", "x", { mailboxPrimaryAddress: "Payroll@Fabrikam.example" }))).toEqual(["mailbox:payroll@fabrikam.example"]);
    expect(keysOf(entity("Url", "HTTPS://Login-Secure.Example:443/signin?id=1#top"))).toEqual(["url:https://login-secure.example/signin?id=1", "domain:login-secure.example"]);
    expect(keysOf(entity("Url", "x", { url: "http://203.0.113.9:8080/beacon" }))).toEqual(["url:http://203.0.113.9:8080/beacon", "ip:203.0.113.9"]);
    expect(keysOf(entity("Url", "http://10.0.0.5/admin"))).toEqual(["url:http://10.0.0.5/admin"]);
    expect(keysOf(entity("Url", "javascript:alert(1)"))).toEqual([]);
    expect(keysOf(entity("Url", "not a url"))).toEqual([]);
  });

  it("a process gives none", () => {
    expect(keysOf(entity("Process", "powershell.exe (4242)", { processId: 4242 }))).toEqual([]);
  });

  it("an incident's keys: once each, the kinds that travel first, at most the bound; an over-long key is left out, its domain kept", () => {
    const keys = indicatorKeys([
      entity("Host", "web01.contoso.example"),
      entity("Ip", "192.0.2.7"),
      entity("Ip", "::ffff:192.0.2.7"),
      entity("File", "a", { sha256: "b".repeat(64) }),
      entity("Url", `https://long.example/${"x".repeat(300)}`),
      entity("Account", "a@contoso.example"),
    ]);
    expect(keys).toEqual([`sha256:${"b".repeat(64)}`, "domain:long.example", "ip:192.0.2.7", "account:a@contoso.example", "host:web01.contoso.example"]);
    const many = Array.from({ length: 30 }, (_, i) => entity("Ip", `203.0.113.${i + 1}`));
    expect(indicatorKeys(many)).toHaveLength(MAX_INDICATORS_PER_INCIDENT);
    expect(indicatorKeys(many)[0]).toBe("ip:203.0.113.1");
  });

  it("a key reads back as its kind and value, colons in the value included", () => {
    expect(indicatorOf("ip:2001:db8::7")).toEqual({ kind: "ip", value: "2001:db8::7" });
    expect(indicatorOf("url:https://a.example/x")).toEqual({ kind: "url", value: "https://a.example/x" });
  });
});

const row = (accountId: string, incidentId: string, createdAt: string, indicators: string[]): IncidentIndicators => ({
  workspaceId: `ws-${accountId}`,
  accountId,
  source: "SourceA",
  incidentId,
  title: `Incident ${incidentId}`,
  severity: "High",
  createdAt,
  indicators,
});

describe("grouping shared indicators", () => {
  const rows = [
    row("fabrikam", "f1", "2026-03-01T10:00:00.000Z", ["ip:192.0.2.7", "host:web01.fabrikam.example"]),
    row("fabrikam", "f2", "2026-03-02T10:00:00.000Z", ["ip:192.0.2.7", "host:web01.fabrikam.example"]),
    row("northwind", "n1", "2026-03-01T12:00:00.000Z", ["ip:192.0.2.7", "domain:evil.example"]),
    row("tailspin", "t1", "2026-02-28T09:00:00.000Z", ["ip:192.0.2.7", "domain:evil.example"]),
    row("tailspin", "t2", "2026-03-02T11:00:00.000Z", ["sha256:" + "c".repeat(64)]),
  ];

  it("keeps a key seen in two or more accounts, with its counts, first and last seen, newest incident first", () => {
    const { indicators, more } = groupSharedIndicators(rows, { limit: 10 });
    expect(more).toBe(false);
    expect(indicators.map((i) => i.key)).toEqual(["ip:192.0.2.7", "domain:evil.example"]);
    expect(indicators[0]).toMatchObject({
      kind: "ip",
      value: "192.0.2.7",
      accountIds: ["tailspin", "fabrikam", "northwind"],
      incidentCount: 4,
      firstSeen: "2026-02-28T09:00:00.000Z",
      lastSeen: "2026-03-02T10:00:00.000Z",
    });
    expect(indicators[0]!.incidents.map((i) => i.incidentId)).toEqual(["f2", "n1", "f1", "t1"]);
    expect(indicators[1]).toMatchObject({ accountIds: ["tailspin", "northwind"], incidentCount: 2 });
  });

  it("a key in many incidents of one account only is not shared", () => {
    const { indicators } = groupSharedIndicators(rows, { limit: 10 });
    expect(indicators.some((i) => i.key.startsWith("host:") || i.key.startsWith("sha256:"))).toBe(false);
  });

  it("orders by customers, then incidents, then the latest seen, then the key; `limit` cuts and says more", () => {
    const tie = [
      row("a", "1", "2026-03-01T00:00:00.000Z", ["ip:203.0.113.1", "ip:203.0.113.2", "ip:203.0.113.3"]),
      row("b", "2", "2026-03-01T00:00:00.000Z", ["ip:203.0.113.1", "ip:203.0.113.2"]),
      row("b", "3", "2026-03-02T00:00:00.000Z", ["ip:203.0.113.3"]),
      row("c", "4", "2026-02-01T00:00:00.000Z", ["ip:203.0.113.2"]),
    ];
    expect(groupSharedIndicators(tie, { limit: 10 }).indicators.map((i) => i.key)).toEqual(["ip:203.0.113.2", "ip:203.0.113.3", "ip:203.0.113.1"]);
    expect(groupSharedIndicators(tie, { limit: 2 })).toMatchObject({ more: true });
    expect(groupSharedIndicators(tie, { limit: 2 }).indicators).toHaveLength(2);
  });

  it("lists at most the bound of incidents per indicator, and counts them all", () => {
    const many = Array.from({ length: 8 }, (_, i) => row(i % 2 ? "a" : "b", `i${i}`, `2026-03-0${i + 1}T00:00:00.000Z`, ["ip:192.0.2.7"]));
    const [shared] = groupSharedIndicators(many, { limit: 1, incidentsPerIndicator: 3 }).indicators;
    expect(shared!.incidentCount).toBe(8);
    expect(shared!.incidents.map((i) => i.incidentId)).toEqual(["i7", "i6", "i5"]);
  });

  it("reads the window's open incidents of the workspaces given only, and counts by the workspace's organization", async () => {
    const asked: unknown[] = [];
    const stores = {
      incidents: {
        async openWithIndicators(workspaceIds: readonly string[], since: string, limit: number) {
          asked.push({ workspaceIds, since, limit });
          return { items: [row("stale-account", "x1", "2026-03-01T00:00:00.000Z", ["ip:192.0.2.7"]), { ...row("b", "x2", "2026-03-01T00:00:00.000Z", ["ip:192.0.2.7"]), workspaceId: "ws-2" }], truncated: true };
        },
      },
    } as unknown as Stores;
    const workspaces = [
      { id: "ws-stale-account", accountId: "a", name: "one", tenantId: "t" },
      { id: "ws-2", accountId: "b", name: "two", tenantId: "t" },
    ] as WorkspaceRecord[];
    const result = await sharedIndicators({ stores, now: () => new Date("2026-03-08T00:00:00.000Z") }, workspaces, "7d", 10);
    expect(asked).toEqual([{ workspaceIds: ["ws-stale-account", "ws-2"], since: "2026-03-01T00:00:00.000Z", limit: 10_000 }]);
    expect(result).toMatchObject({ from: "2026-03-01T00:00:00.000Z", to: "2026-03-08T00:00:00.000Z", comparedIncidents: 2, incidentsTruncated: true });
    expect(result.indicators[0]!.accountIds).toEqual(["a", "b"]);
  });
});

describe("the state the reconciler writes keeps the incident's title, severity and indicator keys", () => {
  const workspace = { id: "ws-1", accountId: "acct-1", name: "ws", tenantId: "t" } as WorkspaceRecord;
  const incident = (over: Partial<VendorIncident> = {}): VendorIncident => ({
    id: "inc-1",
    source: "SourceA",
    workspaceId: "ws-1",
    number: 1,
    title: "Beaconing",
    description: "",
    severity: "High",
    status: "New",
    classification: null,
    closingComment: null,
    owner: null,
    createdAt: "2026-03-01T00:00:00.000Z",
    lastModificationTime: "2026-03-01T00:00:00.000Z",
    lastActivityTime: "2026-03-01T00:00:00.000Z",
    entities: [entity("Ip", "192.0.2.7"), entity("Process", "cmd.exe (1)")],
    alerts: [],
    gamebookCatalog: {},
    vendorIdentifiers: {},
    ...over,
  });
  const now = new Date("2026-03-02T00:00:00.000Z");

  it("at the baseline and on arrival", () => {
    expect(baselineState(workspace, incident(), "2026-03-01T12:00:00.000Z", now)).toMatchObject({ title: "Beaconing", severity: "High", indicators: ["ip:192.0.2.7"] });
    expect(upstreamChange(workspace, undefined, incident(), "2026-02-01T00:00:00.000Z", now)?.state).toMatchObject({ indicators: ["ip:192.0.2.7"] });
  });

  it("on a change, as the incident now stands; a state kept before them gets them then", () => {
    const before: IncidentStateRecord = { ...baselineState(workspace, incident(), "2026-03-01T12:00:00.000Z", now) };
    delete before.title;
    delete before.severity;
    delete before.indicators;
    const changed = incident({ title: "Beaconing, widened", severity: "Medium", lastModificationTime: "2026-03-01T06:00:00.000Z", entities: [entity("Url", "https://evil.example/x")] });
    expect(upstreamChange(workspace, before, changed, "2026-03-01T12:00:00.000Z", now)?.state).toMatchObject({
      title: "Beaconing, widened",
      severity: "Medium",
      indicators: ["url:https://evil.example/x", "domain:evil.example"],
    });
  });

  it("an older listing snapshot leaves what the state keeps", () => {
    const stored = { ...baselineState(workspace, incident({ lastModificationTime: "2026-03-01T06:00:00.000Z" }), "2026-03-01T12:00:00.000Z", now), ingestedAt: null };
    // Created after the baseline with its created event due: the older snapshot still brings it out.
    const older = incident({ createdAt: "2026-03-01T13:00:00.000Z", lastModificationTime: "2026-03-01T05:00:00.000Z", entities: [] });
    const change = upstreamChange(workspace, stored, older, "2026-03-01T12:00:00.000Z", now);
    expect(change?.kind).toBe("created");
    expect(change?.state.indicators).toEqual(["ip:192.0.2.7"]);
  });
});
