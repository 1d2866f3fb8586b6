import { notFound } from "../../../platform/errors/api-error";
import { derivedGuid } from "../../../platform/ids/derived-guid";
import { hashString32, mix32, Rng } from "../../vendors/simulated/seeded-random";
import type { Source } from "../../../model/sources";
import {
  checkIngestionQuery,
  HOUR_MS,
  logAnalyticsNotEnabled,
  type DataConnector,
  type IngestionSeries,
  type LogAnalytics,
  type TableList,
} from "../port";

export interface SimulatedLogAnalyticsOptions {
  seed: string;
  /** In order: the first workspace always shows every kind of injected event. */
  workspaces: readonly { id: string; name: string }[];
  now: () => Date;
}

/** Something that happens to a connector's data, from `start` until `end` (null: still going on). */
export interface IngestionEvent {
  connectorId: string;
  /** Only this table of the connector; all of them when absent. */
  table?: string;
  kind: "Outage" | "Drop" | "Spike" | "Delay";
  start: string;
  end: string | null;
  /** Volume multiplier for Drop and Spike; delay in seconds for Delay. */
  factor?: number;
  /** For an Outage: what the connector's health says. */
  reason?: string;
}

/** Acting "inside" the workspaces, for local controls and tests. */
export interface LogAnalyticsConsole {
  events(workspaceId: string): IngestionEvent[];
  addEvent(workspaceId: string, event: IngestionEvent): void;
  /** Ends every ongoing event of the connector now (the source is fixed). */
  resolve(workspaceId: string, connectorId: string): void;
  setEnabled(workspaceId: string, enabled: boolean): void;
}

export interface SimulatedLogAnalytics {
  system: LogAnalytics;
  console: LogAnalyticsConsole;
}

interface CatalogueEntry {
  key: string;
  name: string;
  kind: string;
  source: Source;
  dataTypes: string[];
  /** Table and its typical megabytes per hour at the daily peak. */
  tables: readonly (readonly [string, number])[];
  outageReason: string;
}

/** Connectors a Sentinel workspace of an MSSP customer typically has, each feeding one incident source. */
const catalogue: readonly CatalogueEntry[] = [
  {
    key: "entra",
    name: "Microsoft Entra ID",
    kind: "AzureActiveDirectory",
    source: "SourceA",
    dataTypes: ["SignInLogs", "AuditLogs", "NonInteractiveUserSignInLogs"],
    tables: [["SigninLogs", 6], ["AuditLogs", 1.5], ["AADNonInteractiveUserSignInLogs", 14]],
    outageReason: "The diagnostic setting sending Entra ID logs to the workspace was deleted.",
  },
  {
    key: "xdr",
    name: "Microsoft Defender XDR",
    kind: "MicrosoftThreatProtection",
    source: "SourceB",
    dataTypes: ["incidents", "alerts", "DeviceEvents", "DeviceProcessEvents"],
    tables: [["SecurityIncident", 0.4], ["SecurityAlert", 1.2], ["DeviceEvents", 25], ["DeviceProcessEvents", 40]],
    outageReason: "The Microsoft Defender XDR licence of the tenant is no longer valid.",
  },
  {
    key: "m365",
    name: "Microsoft 365 (formerly Office 365)",
    kind: "Office365",
    source: "SourceC",
    dataTypes: ["exchange", "sharePoint", "teams"],
    tables: [["OfficeActivity", 8]],
    outageReason: "The Office 365 Management Activity API subscription is disabled for the tenant.",
  },
  {
    key: "aws",
    name: "Amazon Web Services S3",
    kind: "AmazonWebServicesS3",
    source: "SourceD",
    dataTypes: ["logs"],
    tables: [["AWSCloudTrail", 5]],
    outageReason: "AccessDenied: the role arn:aws:iam::123456789012:role/OIDC_MicrosoftSentinelRole could not be assumed.",
  },
  {
    key: "paloalto",
    name: "Palo Alto Networks (CEF via AMA)",
    kind: "StaticUI",
    source: "SourceE",
    dataTypes: ["CommonSecurityLog"],
    tables: [["CommonSecurityLog", 60]],
    outageReason: "No heartbeat from the log forwarder fwd-cef-01 for more than 15 minutes.",
  },
  {
    key: "syslog",
    name: "Syslog via AMA",
    kind: "StaticUI",
    source: "SourceF",
    dataTypes: ["Syslog"],
    tables: [["Syslog", 12]],
    outageReason: "The data collection rule dcr-syslog-linux has no associated machines.",
  },
  {
    key: "taxii",
    name: "Threat Intelligence - TAXII",
    kind: "ThreatIntelligenceTaxii",
    source: "SourceG",
    dataTypes: ["taxiiClient"],
    tables: [["ThreatIntelligenceIndicator", 0.8]],
    outageReason: "The TAXII server answered 401 Unauthorized: the API root credentials were rotated.",
  },
];

const standardTables = ["Heartbeat", "Operation", "SentinelHealth", "Usage"] as const;

interface Workspace {
  id: string;
  name: string;
  key: number;
  connectors: (CatalogueEntry & { id: string })[];
  events: IngestionEvent[];
}

/**
 * Simulated Sentinel workspaces: each demo workspace has a deterministic subset of the catalogue's
 * connectors, hourly volumes with a daily and weekly rhythm and noise (all from the seed and the hour,
 * so a series never changes while the process runs), and injected events — an ongoing outage with its
 * health reason, a drop, a password-spray spike, a forwarder delay — placed relative to the start.
 */
export function createSimulatedLogAnalytics(options: SimulatedLogAnalyticsOptions): SimulatedLogAnalytics {
  const anchor = Math.floor(options.now().getTime() / HOUR_MS) * HOUR_MS;
  const disabled = new Set<string>();
  const workspaces = new Map<string, Workspace>();
  options.workspaces.forEach((w, index) => workspaces.set(w.id, seedWorkspace(options.seed, w, index, anchor)));

  function workspaceOf(workspaceId: string): Workspace {
    const w = workspaces.get(workspaceId);
    if (!w || disabled.has(workspaceId)) throw logAnalyticsNotEnabled(workspaceId);
    return w;
  }

  const active = (e: IngestionEvent, at: number) => Date.parse(e.start) <= at && (e.end === null || at < Date.parse(e.end));

  function volumeAt(w: Workspace, connector: Workspace["connectors"][number], table: string, peak: number, at: number): number {
    if (at > options.now().getTime()) return 0;
    const rng = new Rng(mix32(w.key, hashString32(table), Math.floor(at / HOUR_MS)));
    const hourOfDay = new Date(at).getUTCHours();
    const weekday = new Date(at).getUTCDay();
    const daily = 0.35 + 0.65 * Math.max(0, Math.sin(((hourOfDay - 5) / 16) * Math.PI));
    const weekly = weekday === 0 || weekday === 6 ? 0.55 : 1;
    let value = peak * daily * weekly * (0.9 + 0.2 * rng.next());
    for (const e of w.events) {
      if (e.connectorId !== connector.id || (e.table !== undefined && e.table !== table) || !active(e, at)) continue;
      if (e.kind === "Outage") value = 0;
      if (e.kind === "Drop" || e.kind === "Spike") value *= e.factor ?? (e.kind === "Drop" ? 0.2 : 6);
    }
    return Math.round(value * 1000) / 1000;
  }

  function latencyAt(w: Workspace, connector: Workspace["connectors"][number], table: string, at: number): number {
    const rng = new Rng(mix32(w.key, hashString32(table), Math.floor(at / HOUR_MS), 0x1a7));
    let seconds = 45 + rng.int(75);
    for (const e of w.events) {
      if (e.kind === "Delay" && e.connectorId === connector.id && (e.table === undefined || e.table === table) && active(e, at)) seconds = e.factor ?? 1800;
    }
    return seconds;
  }

  function connectorView(w: Workspace, c: Workspace["connectors"][number]): DataConnector {
    const now = options.now().getTime();
    const outage = w.events.find((e) => e.kind === "Outage" && e.connectorId === c.id && e.table === undefined && active(e, now));
    const delayed = w.events.find((e) => e.kind === "Delay" && e.connectorId === c.id && active(e, now));
    const rng = new Rng(mix32(w.key, hashString32(c.key), Math.floor(now / 60_000)));
    return {
      id: c.id,
      name: c.name,
      kind: c.kind,
      source: c.source,
      state: "Connected",
      dataTypes: [...c.dataTypes],
      tables: c.tables.map(([t]) => t),
      lastLogReceivedAt: new Date(outage ? Date.parse(outage.start) - 4 * 60_000 : now - (30 + rng.int(200)) * 1000).toISOString(),
      health: outage
        ? { status: "Unhealthy", reason: outage.reason ?? "The connector stopped receiving data.", checkedAt: new Date(now - 5 * 60_000).toISOString() }
        : delayed
          ? { status: "Degraded", reason: "Data is arriving with a delay of more than 15 minutes.", checkedAt: new Date(now - 5 * 60_000).toISOString() }
          : { status: "Healthy", reason: null, checkedAt: new Date(now - 5 * 60_000).toISOString() },
    };
  }

  const system: LogAnalytics = {
    isEnabled: (workspaceId) => workspaces.has(workspaceId) && !disabled.has(workspaceId),

    listDataConnectors: async (workspaceId) => {
      const w = workspaceOf(workspaceId);
      return w.connectors.map((c) => connectorView(w, c));
    },

    async ingestionVolumes(query) {
      const w = workspaceOf(query.workspaceId);
      const { from, to, latencyFrom } = checkIngestionQuery(query);
      const out: IngestionSeries[] = [];
      for (const c of w.connectors) {
        for (const [table, peak] of c.tables) {
          const points = [];
          for (let at = from; at < to; at += HOUR_MS) {
            const volumeMb = volumeAt(w, c, table, peak, at);
            // A delay is measured on records: an hour that received none has no delay.
            const measured = volumeMb > 0 && latencyFrom !== undefined && at >= latencyFrom && at <= options.now().getTime();
            points.push({ start: new Date(at).toISOString(), volumeMb, latencySeconds: measured ? latencyAt(w, c, table, at) : null });
          }
          out.push({ table, connectorId: c.id, source: c.source, points });
        }
      }
      return out;
    },

    async listTables(workspaceId): Promise<TableList> {
      const w = workspaceOf(workspaceId);
      const tables = [...new Set([...w.connectors.flatMap((c) => c.tables.map(([t]) => t)), ...standardTables])].sort();
      return { success: true, summary: `${tables.length} tables in workspace ${w.name}, fed by ${w.connectors.length} data connectors.`, tables };
    },
  };

  const console: LogAnalyticsConsole = {
    events: (workspaceId) => workspaceOf(workspaceId).events.map((e) => ({ ...e })),
    addEvent(workspaceId, event) {
      const w = workspaceOf(workspaceId);
      if (!w.connectors.some((c) => c.id === event.connectorId)) throw notFound(`Connector ${event.connectorId}`, "connectorId");
      w.events.push({ ...event });
    },
    resolve(workspaceId, connectorId) {
      const w = workspaceOf(workspaceId);
      const now = options.now().toISOString();
      w.events = w.events.map((e) => (e.connectorId === connectorId && e.end === null ? { ...e, end: now } : e));
    },
    setEnabled(workspaceId, enabled) {
      if (!workspaces.has(workspaceId)) throw notFound(`Workspace ${workspaceId}`, "workspaceId");
      if (enabled) disabled.delete(workspaceId);
      else disabled.add(workspaceId);
    },
  };

  return { system, console };
}

function seedWorkspace(seed: string, w: { id: string; name: string }, index: number, anchor: number): Workspace {
  const key = hashString32(`${seed}/log-analytics/${w.id}`);
  const rng = new Rng(key);
  const connectors = catalogue
    .filter((c) => c.key === "entra" || c.key === "xdr" || index === 0 || rng.chance(0.7))
    .map((c) => ({ ...c, id: derivedGuid(`${seed}/data-connector/${w.id}/${c.key}`) }));
  const events: IngestionEvent[] = [];
  const at = (hoursAgo: number) => new Date(anchor - hoursAgo * HOUR_MS).toISOString();
  const pick = (filter: (c: Workspace["connectors"][number]) => boolean) => {
    const candidates = connectors.filter(filter);
    return candidates.length === 0 ? undefined : rng.pick(candidates);
  };
  const everything = index === 0;
  const down = everything || rng.chance(0.6) ? pick((c) => c.key !== "entra" && c.key !== "xdr") : undefined;
  if (down) events.push({ connectorId: down.id, kind: "Outage", start: at(rng.between(3, 7)), end: null, reason: down.outageReason });
  const dropped = everything || rng.chance(0.6) ? pick((c) => c !== down && c.tables.some(([, peak]) => peak >= 5)) : undefined;
  if (dropped) {
    const table = dropped.tables.find(([, peak]) => peak >= 5)![0];
    const start = rng.between(10, 20);
    events.push({ connectorId: dropped.id, table, kind: "Drop", start: at(start), end: at(start - 3), factor: 0.15 });
  }
  const entra = connectors.find((c) => c.key === "entra")!;
  if (everything || rng.chance(0.5)) {
    const start = rng.between(5, 15);
    events.push({ connectorId: entra.id, table: "SigninLogs", kind: "Spike", start: at(start), end: at(start - 2), factor: 7 });
  }
  const forwarder = pick((c) => c.kind === "StaticUI" && c !== down);
  if (forwarder && (everything || rng.chance(0.4))) {
    const start = rng.between(4, 9);
    events.push({ connectorId: forwarder.id, kind: "Delay", start: at(start), end: at(start - 2), factor: 1500 + rng.int(1500) });
  }
  return { id: w.id, name: w.name, key, connectors, events };
}
