import type { Alert, Classification, Entity, EntityKind, EvidenceRow, PublicStatus, Severity, VendorComment, VendorOwner } from "../../../model/incidents/incident";
import { severities } from "../../../model/incidents/incident";
import { poolOffsets, poolSizes, type PooledEntity } from "./entity-pool";
import { agentNames, agentNotes, analystNotes, incidentThemes, playbookCatalog, productNames, type IncidentTheme } from "./incident-themes";
import { Rng, guidFromWords, mix32 } from "./seeded-random";

/**
 * The details of an incident that are not stored: entities, alerts, evidence, comments and the
 * playbook catalog. Each is regenerated on every read from the incident's key, each from its own
 * stream, so that reading one part never needs another and the same incident always reads the same.
 */

/** What the generator needs to know about one incident (the stored summary, not later changes). */
export interface IncidentSeed {
  /** The incident's own 32-bit seed. */
  key: number;
  theme: IncidentTheme;
  createdAt: number;
  /** End of the seeded history: generated alerts, comments and evidence fall in [createdAt, activityEnd]. */
  activityEnd: number;
  severity: Severity;
  status: PublicStatus;
  classification: Classification | null;
  closingComment: string | null;
  owner: VendorOwner | null;
  /** Console-created incidents have their one alert from the console and no history. */
  seeded: boolean;
  title: string;
}

export interface GenerationContext {
  pool: readonly PooledEntity[];
  owners: readonly { userId: string; email: string; name: string }[];
  orgDomain: string;
  sourceIndex: number;
}

const stream = { entities: 1, alerts: 2, evidence: 3, comments: 4, catalog: 5 } as const;

export function themeOf(index: number): IncidentTheme {
  return incidentThemes[index % incidentThemes.length]!;
}

/** The pool slots of an incident's entities, its subject first. Cheap: used by filters and scans. */
export function entitySlots(key: number, theme: IncidentTheme): number[] {
  const rng = new Rng(mix32(key, stream.entities));
  const kinds: EntityKind[] = [...theme.entityKinds];
  if (rng.chance(0.35)) kinds.push(rng.pick<EntityKind>(["Ip", "Account", "Host", "Url"]));
  const slots: number[] = [];
  for (const kind of kinds) {
    const slot = poolOffsets[kind] + rng.skewed(poolSizes[kind]);
    if (!slots.includes(slot)) slots.push(slot);
  }
  return slots;
}

export function seededTitle(theme: IncidentTheme, subject: PooledEntity | undefined): string {
  return theme.title.replace("{subject}", subject?.entity.name ?? "unknown entity");
}

export function entitiesOf(ctx: GenerationContext, slots: readonly number[]): Entity[] {
  return slots.map((slot) => copyEntity(ctx.pool[slot]!.entity));
}

function copyEntity(entity: Readonly<Entity>): Entity {
  return { id: entity.id, kind: entity.kind, name: entity.name, properties: { ...entity.properties } };
}

export function alertsOf(ctx: GenerationContext, seed: IncidentSeed, entities: readonly Entity[]): Alert[] {
  const rng = new Rng(mix32(seed.key, stream.alerts));
  const products = productNames[ctx.sourceIndex] ?? ["Detection Engine"];
  const product = rng.pick(products);
  const allIds = entities.map((e) => e.id);
  if (!seed.seeded) {
    return [{ id: guid(seed.key, 200), title: seed.title, severity: seed.severity, timeGenerated: iso(seed.createdAt), productName: product, tactics: [...seed.theme.tactics], entityIds: allIds }];
  }
  const count = 1 + rng.weighted([40, 30, 20, 10]);
  const span = Math.max(0, seed.activityEnd - seed.createdAt);
  const times = [seed.createdAt];
  for (let k = 1; k < count; k++) times.push(seed.createdAt + Math.floor(rng.next() * span));
  times.sort((a, b) => a - b);
  const top = severities.indexOf(seed.severity as (typeof severities)[number]);
  return times.map((t, k) => ({
    id: guid(seed.key, 200 + k),
    title: seed.theme.alertTitles[k % seed.theme.alertTitles.length]!,
    // The first alert carries the incident's severity; later ones are no more severe.
    severity: k === 0 ? seed.severity : severities[rng.int(top + 1)]!,
    timeGenerated: iso(t),
    productName: product,
    tactics: [...seed.theme.tactics],
    entityIds: k === 0 ? allIds : allIds.filter((_, i) => i === 0 || rng.chance(0.5)),
  }));
}

/** The time of the latest generated alert (the seeded lastActivityTime). */
export function latestAlertTime(alerts: readonly Alert[]): number {
  let latest = -Infinity;
  for (const alert of alerts) latest = Math.max(latest, Date.parse(alert.timeGenerated));
  return latest;
}

const evidenceKinds: Readonly<Record<EntityKind, string>> = {
  Account: "SignInActivity",
  Host: "DeviceTimeline",
  Ip: "IpReputation",
  File: "FileHash",
  Mailbox: "EmailMessage",
  Url: "UrlDetonation",
  Process: "ProcessTree",
};

const evidenceDetails: Readonly<Record<EntityKind, readonly string[]>> = {
  Account: ["12 sign-ins from 3 countries in 2 hours", "Sign-in from an unfamiliar device with legacy authentication", "Risk level raised to high by identity protection"],
  Host: ["Process creation and network events around the detection", "Agent reported tamper-protection change", "New scheduled task registered"],
  Ip: ["Listed on 4 of 70 reputation feeds", "Hosting provider address, first seen 3 days ago", "Tor exit node at the time of activity"],
  File: ["Hash known to 38 of 70 engines", "Unsigned binary, first seen in the organization today", "Macro-enabled document with an auto-open handler"],
  Mailbox: ["Message delivered to 14 recipients, 2 clicked", "Sender domain registered 6 days ago", "SPF fail, DKIM none"],
  Url: ["Detonation showed a credential-harvesting page", "Redirect chain of 3 hops to a newly registered domain", "URL category: uncategorised"],
  Process: ["Parent-child chain: winword.exe → powershell.exe", "Encoded command line decoded to a download cradle", "Process opened a handle to lsass.exe"],
};

export function evidenceOf(seed: IncidentSeed, entities: readonly Entity[]): EvidenceRow[] {
  const rng = new Rng(mix32(seed.key, stream.evidence));
  const span = Math.max(0, seed.activityEnd - seed.createdAt);
  const verdicts: readonly EvidenceRow["verdict"][] =
    seed.classification === "TruePositive" ? ["Malicious", "Malicious", "Suspicious"]
    : seed.classification === "FalsePositive" || seed.classification === "BenignPositive" ? ["Clean", "Clean", "Unknown"]
    : ["Suspicious", "Unknown", "Malicious"];
  const rows: EvidenceRow[] = entities.map((entity, k) => ({
    id: `ev-${hex(seed.key, 400 + k)}`,
    entityId: entity.id,
    kind: evidenceKinds[entity.kind],
    verdict: rng.pick(verdicts),
    detail: rng.pick(evidenceDetails[entity.kind]),
    collectedAt: iso(seed.createdAt + Math.floor(rng.next() * span)),
  }));
  if (rng.chance(0.3)) {
    rows.push({ id: `ev-${hex(seed.key, 499)}`, entityId: null, kind: "DetectionSummary", verdict: rng.pick(verdicts), detail: `${seed.theme.alertTitles[0]} (rule matched ${rng.between(1, 40)} events)`, collectedAt: iso(seed.createdAt) });
  }
  rows.sort((a, b) => (a.collectedAt < b.collectedAt ? -1 : a.collectedAt > b.collectedAt ? 1 : 0));
  return rows;
}

/** Comments the incident had before any change through the gateway, oldest first. */
export function commentsOf(ctx: GenerationContext, seed: IncidentSeed): VendorComment[] {
  if (!seed.seeded) return [];
  const rng = new Rng(mix32(seed.key, stream.comments));
  const closing = seed.status === "Closed" && seed.closingComment !== null;
  const count = Math.max(closing ? 1 : 0, rng.weighted([30, 25, 20, 15, 10]));
  const span = Math.max(0, seed.activityEnd - seed.createdAt);
  const times: number[] = [];
  for (let k = 0; k < count; k++) times.push(seed.createdAt + Math.floor(rng.next() * span));
  times.sort((a, b) => a - b);
  if (closing && times.length > 0) times[times.length - 1] = seed.activityEnd;
  const analyst = seed.owner ?? (ctx.owners.length > 0 ? rng.pick(ctx.owners) : { userId: null, email: `soc.analyst@${ctx.orgDomain}`, name: "SOC Analyst" });
  return times.map((t, k) => {
    const base: VendorComment = {
      id: guid(seed.key, 300 + k),
      message: "",
      createdTime: iso(t),
      authorEmail: analyst.email ?? `soc.analyst@${ctx.orgDomain}`,
      authorName: analyst.name ?? "SOC Analyst",
      isActivityComment: false,
      isAgentComment: false,
      agentName: null,
      isClosingComment: false,
      ticketNoteId: null,
      ticketId: null,
      extensionId: null,
    };
    if (closing && k === count - 1) return { ...base, message: seed.closingComment!, isClosingComment: true };
    switch (rng.int(5)) {
      case 0:
        return { ...base, message: seed.status === "New" ? "Severity reviewed, left unchanged." : "Status changed from New to Active.", isActivityComment: true };
      case 1: {
        const agentName = rng.pick(agentNames);
        return { ...base, message: rng.pick(agentNotes), authorEmail: "agent@soc-automation.example", authorName: agentName, isAgentComment: true, agentName };
      }
      case 2: {
        const playbook = playbookCatalog[rng.pick(seed.theme.playbooks)];
        return { ...base, message: `Playbook "${playbook?.name ?? "Enrich incident"}" completed.`, authorEmail: "connector@soar.example", authorName: "SOAR connector", isActivityComment: true, extensionId: "ext-soar-connector" };
      }
      case 3: {
        const ticket = `SEC-${rng.between(10_000, 99_999)}`;
        return { ...base, message: `Linked to ticket ${ticket}.`, authorEmail: "integration@ticketing.example", authorName: "Ticketing integration", ticketId: ticket, ticketNoteId: `note-${hex(seed.key, 350 + k).slice(0, 10)}`, extensionId: "ext-ticketing" };
      }
      default:
        return { ...base, message: rng.pick(analystNotes) };
    }
  });
}

export function gamebookCatalogOf(seed: IncidentSeed, entities: readonly Entity[]): Record<string, unknown> {
  const rng = new Rng(mix32(seed.key, stream.catalog));
  const recommended = seed.theme.playbooks
    .filter((_, k) => k === 0 || rng.chance(0.6))
    .map((id) => {
      const playbook = playbookCatalog[id]!;
      const target = entities.find((e) => entityTypeOf(e.kind) === playbook.entityType);
      return { id, name: playbook.name, description: playbook.description, entityType: playbook.entityType, entityId: target?.id ?? null };
    });
  return { catalogVersion: "2024.11", recommended };
}

function entityTypeOf(kind: EntityKind): string {
  return kind === "Account" ? "User" : kind;
}

function guid(key: number, salt: number): string {
  return guidFromWords(mix32(key, salt, 1), mix32(key, salt, 2), mix32(key, salt, 3), mix32(key, salt, 4));
}

function hex(key: number, salt: number): string {
  return [1, 2].map((k) => mix32(key, salt, k).toString(16).padStart(8, "0")).join("");
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
