import { ApiError, notFound } from "../../../platform/errors/api-error";
import type { NewVendorComment, VendorCommentChange } from "../port";
import type { Alert, Classification, Entity, Evidence, PublicStatus, Severity, VendorComment, VendorIncident, VendorOwner } from "../../../model/incidents/incident";
import { classifications, entityKinds, publicStatuses, severities } from "../../../model/incidents/incident";
import type { Source } from "../../../model/sources";
import type { PooledEntity, WorkspaceIdentity } from "./entity-pool";
import {
  alertsOf,
  commentsOf,
  entitiesOf,
  entitySlots,
  evidenceOf,
  gamebookCatalogOf,
  iso,
  latestAlertTime,
  seededTitle,
  themeOf,
  type GenerationContext,
  type IncidentSeed,
} from "./incident-generator";
import { IncidentIdScheme } from "./incident-ids";
import { closingComments, incidentThemes, productNames } from "./incident-themes";
import { Rng, guidFromWords, keyWords, mix32 } from "./seeded-random";
import { WindowIndex, type OrderKey, type ScanBounds } from "./window-index";
import { ExpiringKeys } from "../../../platform/expiring-keys";

export type WindowField = "createdAt" | "lastModificationTime";

export interface PartitionOptions {
  seed: string;
  workspace: WorkspaceIdentity;
  source: Source;
  sourceIndex: number;
  count: number;
  owners: readonly { userId: string; email: string; name: string }[];
  orgDomain: string;
  /** The workspace's entity pool, built on first use. */
  pool: () => readonly PooledEntity[];
  seedTime: number;
  spanMs: number;
  /** Milliseconds since the epoch: when a closed incident made in the console has been closed long enough. */
  now: () => number;
}

/** An incident made in the console after seeding; seeded ones live in the typed arrays. */
interface CreatedIncident {
  createdAt: number;
  title: string;
  severity: Severity;
  themeIndex: number;
  /** Its own entities, given in the console, in place of entities drawn from the pool. */
  entities?: readonly Readonly<Entity>[];
}

/** An entity given to an incident made in the console; its id is made for it. */
export interface NewEntity {
  kind: Entity["kind"];
  name: string;
  properties?: Entity["properties"];
}

/** Changes made after seeding. They win over the generated values on every read. */
interface IncidentChanges {
  status?: PublicStatus;
  classification?: Classification | null;
  closingComment?: string | null;
  /** Present (possibly null) once the owner was set. */
  owner?: VendorOwner | null;
  lastModificationTime?: number;
  lastActivityTime?: number;
  alerts: Alert[];
  comments: VendorComment[];
  /** Comments added with an idempotency key, by key: a repeat returns the first. */
  commentsByKey?: Map<string, string>;
  /** Generated comments deleted; made on the first (most changed incidents have none). */
  deletedComments?: Set<string>;
  /** The edited text of generated comments, by id; made on the first edit. */
  editedComments?: Map<string, string>;
  deleted: boolean;
}

const statusCodes: readonly PublicStatus[] = publicStatuses;
const severityWeights = [15, 30, 35, 20];
const classificationWeights = [25, 30, 35, 10];
const HOUR = 3_600_000;
/** Related-by-entity scans newest first and gives up after this many incidents, to bound the cost. */
export const RELATED_SCAN_LIMIT = 20_000;
/**
 * How long an incident made in the console stays at the vendor once closed, and how many such closed
 * incidents a partition keeps at most (the first closed going first). A real vendor keeps closed
 * incidents for months; the simulated one runs in the local host's memory, where a steady stream of
 * console-made incidents (the soak bench makes and closes three a second) would grow it for good. A
 * demo looks at open incidents and at what was closed lately: a day, and 100 per workspace and vendor
 * (~1.5 KB each with their changes and places in both orders), cover that. Open incidents are never
 * dropped (they are the work), nor seeded ones (their number is fixed by the seed, and they are
 * regenerated from it).
 */
export const CLOSED_CONSOLE_INCIDENT_RETENTION_MS = 24 * HOUR;
export const MAX_CLOSED_CONSOLE_INCIDENTS = 100;

/**
 * The incidents of one workspace in one vendor. Seeded incidents are a compact summary in typed
 * arrays (about 30 bytes each); everything else about them is regenerated when read.
 */
export class SourcePartition {
  readonly source: Source;
  readonly workspace: WorkspaceIdentity;
  private readonly seededCount: number;
  private readonly createdAt: Float64Array;
  /** The seeded lastModificationTime; also the end of the seeded history. */
  private readonly seededModified: Float64Array;
  private readonly severity: Uint8Array;
  private readonly status: Uint8Array;
  /** Index into `owners`, -1 for none. */
  private readonly owner: Int32Array;
  private readonly theme: Uint8Array;
  /** By index from `seededCount`; undefined once dropped (closed long enough: `closedMade`). */
  private readonly created: (CreatedIncident | undefined)[] = [];
  private readonly changes = new Map<number, IncidentChanges>();
  /**
   * The console-made incidents that are closed, in the order they closed: each is dropped when old
   * enough, on the next incident made or closed in the console here (a write, never in the middle of one).
   */
  private readonly closedMade: ExpiringKeys<number>;
  private readonly ids: IncidentIdScheme;
  private readonly key: number;
  private readonly byCreated: WindowIndex;
  private readonly byModified: WindowIndex;
  /** Numbers the ids of things added after seeding (comments, alerts), so reruns match. */
  private sequence = 0;

  constructor(private readonly options: PartitionOptions) {
    this.source = options.source;
    this.workspace = options.workspace;
    const words = keyWords(`simulated-vendor/${options.seed}/${options.workspace.id}/${options.source}`);
    this.key = words[0]!;
    this.ids = new IncidentIdScheme({ source: options.source, permutationKey: words.subarray(1, 5), tailKey: words[5]!, numberBase: 1000 + (words[6]! % 9000) });
    const n = (this.seededCount = options.count);
    this.createdAt = new Float64Array(n);
    this.seededModified = new Float64Array(n);
    this.severity = new Uint8Array(n);
    this.status = new Uint8Array(n);
    this.owner = new Int32Array(n);
    this.theme = new Uint8Array(n);
    this.seedIncidents(new Rng(words[7]!));

    const modifiedOrder = new Uint32Array(n);
    for (let i = 0; i < n; i++) modifiedOrder[i] = i;
    const modified = this.seededModified;
    modifiedOrder.sort((a, b) => modified[a]! - modified[b]! || compare(this.idOf(a), this.idOf(b)));
    const idOf = (index: number) => this.idOf(index);
    const created = this.createdAt;
    this.byCreated = new WindowIndex({ size: n, timeAt: (p) => created[p]!, indexAt: (p) => p }, idOf);
    this.byModified = new WindowIndex({ size: n, timeAt: (p) => modified[modifiedOrder[p]!]!, indexAt: (p) => modifiedOrder[p]! }, idOf);
    this.closedMade = new ExpiringKeys({ now: options.now, max: MAX_CLOSED_CONSOLE_INCIDENTS, onDrop: (index) => this.drop(index) });
  }

  private seedIncidents(rng: Rng): void {
    const { seedTime, spanMs } = this.options;
    const n = this.seededCount;
    const start = seedTime - spanMs;
    for (let i = 0; i < n; i++) this.createdAt[i] = Math.floor(start + rng.next() * spanMs);
    this.createdAt.sort();
    // Strictly increasing creation times: numbers follow creation order and need no tie-break.
    for (let i = 1; i < n; i++) if (this.createdAt[i]! <= this.createdAt[i - 1]!) this.createdAt[i] = this.createdAt[i - 1]! + 1;
    const ownerCount = this.options.owners.length;
    for (let i = 0; i < n; i++) {
      const created = this.createdAt[i]!;
      const age = Math.min(1, Math.max(0, (seedTime - created) / spanMs));
      const status = rng.chance(0.1 + 0.8 * age) ? 2 : rng.chance(age < 0.05 ? 0.7 : 0.25) ? 0 : 1;
      this.status[i] = status;
      this.severity[i] = rng.weighted(severityWeights);
      this.theme[i] = rng.int(incidentThemes.length);
      const owned = ownerCount > 0 && rng.chance(status === 0 ? 0.2 : 0.85);
      this.owner[i] = owned ? rng.int(ownerCount) : -1;
      const room = Math.max(0, seedTime - 1 - created);
      const busy = status === 0 ? HOUR / 2 : status === 1 ? 72 * HOUR : 120 * HOUR;
      this.seededModified[i] = created + Math.floor(rng.next() * Math.min(room, busy));
    }
  }

  get total(): number {
    return this.seededCount + this.created.length;
  }

  private createdAtOf(index: number): number {
    return index < this.seededCount ? this.createdAt[index]! : this.created[index - this.seededCount]!.createdAt;
  }

  idOf(index: number): string {
    return this.ids.idOf(index, this.createdAtOf(index));
  }

  /** The index of a live incident, or NOT_FOUND. */
  require(incidentId: string): number {
    const index = this.ids.indexOf(incidentId);
    if (index === undefined || index < 0 || index >= this.total || this.isDropped(index) || this.idOf(index) !== incidentId || this.changes.get(index)?.deleted) {
      throw notFound("The incident", "incidentId");
    }
    return index;
  }

  private context(): GenerationContext {
    return { pool: this.options.pool(), owners: this.options.owners, orgDomain: this.options.orgDomain, sourceIndex: this.options.sourceIndex };
  }

  private incidentKey(index: number): number {
    return mix32(this.key, index);
  }

  /** The incident's entities' pool slots; none for an incident made with entities of its own. */
  private slotsOf(index: number): number[] {
    const made = index < this.seededCount ? undefined : this.created[index - this.seededCount]!;
    if (made?.entities) return [];
    return entitySlots(this.incidentKey(index), themeOf(made ? made.themeIndex : this.theme[index]!));
  }

  /** The incident's entities: its own when it was made with them, otherwise its pool slots'. */
  private entitiesAt(index: number, slots: readonly number[]): Entity[] {
    const own = index < this.seededCount ? undefined : this.created[index - this.seededCount]!.entities;
    return own ? own.map((e) => ({ id: e.id, kind: e.kind, name: e.name, properties: { ...e.properties } })) : entitiesOf(this.context(), slots);
  }

  /** The stored summary of an incident as the generator needs it. */
  private seedOf(index: number, slots: readonly number[]): IncidentSeed {
    const key = this.incidentKey(index);
    if (index >= this.seededCount) {
      const made = this.created[index - this.seededCount]!;
      return { key, theme: themeOf(made.themeIndex), createdAt: made.createdAt, activityEnd: made.createdAt, severity: made.severity, status: "New", classification: null, closingComment: null, owner: null, seeded: false, title: made.title };
    }
    const theme = themeOf(this.theme[index]!);
    const status = statusCodes[this.status[index]!]!;
    let classification: Classification | null = null;
    let closingComment: string | null = null;
    if (status === "Closed") {
      const rng = new Rng(mix32(key, 6));
      classification = classifications[rng.weighted(classificationWeights)]!;
      closingComment = rng.chance(0.85) ? rng.pick(closingComments[classification]) : null;
    }
    const ownerIndex = this.owner[index]!;
    const owner = ownerIndex >= 0 ? this.options.owners[ownerIndex]! : null;
    return {
      key,
      theme,
      createdAt: this.createdAt[index]!,
      activityEnd: this.seededModified[index]!,
      severity: severities[this.severity[index]!]!,
      status,
      classification,
      closingComment,
      owner: owner && { userId: owner.userId, email: owner.email, name: owner.name },
      seeded: true,
      title: seededTitle(theme, this.options.pool()[slots[0]!]),
    };
  }

  read(index: number, nowMs: number): VendorIncident {
    const ctx = this.context();
    const slots = this.slotsOf(index);
    const seed = this.seedOf(index, slots);
    const change = this.changes.get(index);
    const entities = this.entitiesAt(index, slots);
    const alerts = alertsOf(ctx, seed, entities);
    const seededActivity = latestAlertTime(alerts);
    if (change) for (const alert of change.alerts) alerts.push({ ...alert, tactics: [...alert.tactics], entityIds: [...alert.entityIds] });
    const id = this.idOf(index);
    const owner = change && "owner" in change ? change.owner! : seed.owner;
    return {
      id,
      source: this.source,
      workspaceId: this.workspace.id,
      number: this.ids.numberOf(index),
      title: seed.title,
      description: seed.seeded ? seed.theme.description : `Raised manually in the ${this.source} console.`,
      severity: seed.severity,
      status: change?.status ?? seed.status,
      classification: change && "classification" in change ? change.classification! : seed.classification,
      closingComment: change && "closingComment" in change ? change.closingComment! : seed.closingComment,
      owner: owner && { userId: owner.userId, email: owner.email, name: owner.name ?? null },
      createdAt: iso(seed.createdAt),
      lastModificationTime: iso(change?.lastModificationTime ?? seed.activityEnd),
      lastActivityTime: iso(change?.lastActivityTime ?? seededActivity),
      entities,
      alerts,
      gamebookCatalog: gamebookCatalogOf(seed, entities),
      vendorIdentifiers: this.ids.vendorIdentifiers(this.workspace, index, id, seed.createdAt, nowMs),
    };
  }

  // Cheap accessors for filters: no generation beyond entity slots and the title.

  severityOf(index: number): Severity {
    return index < this.seededCount ? severities[this.severity[index]!]! : this.created[index - this.seededCount]!.severity;
  }

  statusOf(index: number): PublicStatus {
    const changed = this.changes.get(index)?.status;
    if (changed) return changed;
    return index < this.seededCount ? statusCodes[this.status[index]!]! : "New";
  }

  /** The current owner; internal, not a copy. */
  ownerOf(index: number): VendorOwner | null {
    const change = this.changes.get(index);
    if (change && "owner" in change) return change.owner!;
    if (index >= this.seededCount) return null;
    const ownerIndex = this.owner[index]!;
    return ownerIndex >= 0 ? this.options.owners[ownerIndex]! : null;
  }

  /** Case-insensitive: `needle` must already be lower case. */
  matchesText(index: number, needle: string): boolean {
    if (String(this.ids.numberOf(index)).includes(needle)) return true;
    const slots = this.slotsOf(index);
    const pool = this.options.pool();
    const title = index < this.seededCount ? seededTitle(themeOf(this.theme[index]!), pool[slots[0]!]) : this.created[index - this.seededCount]!.title;
    if (title.toLowerCase().includes(needle)) return true;
    const own = index < this.seededCount ? undefined : this.created[index - this.seededCount]!.entities;
    if (own) return own.some((e) => e.name.toLowerCase().includes(needle));
    return slots.some((slot) => pool[slot]!.lowerName.includes(needle));
  }

  pool(): readonly PooledEntity[] {
    return this.options.pool();
  }

  entitySlotsOf(index: number): number[] {
    return this.slotsOf(index);
  }

  /** Incidents in [from, before), newest first, that pass `accept`; at most `limit`, plus whether more exist. */
  scan(field: WindowField, from: number, before: ScanBounds["before"], limit: number, accept: (index: number) => boolean, maxScanned = Infinity): { matches: { index: number; key: OrderKey }[]; more: boolean } {
    const order = field === "createdAt" ? this.byCreated : this.byModified;
    const matches: { index: number; key: OrderKey }[] = [];
    let scanned = 0;
    for (const entry of order.descending({ before, from })) {
      if (++scanned > maxScanned) break;
      if (!accept(entry.index)) continue;
      if (matches.length === limit) return { matches, more: true };
      matches.push({ index: entry.index, key: { t: entry.t, id: this.idOf(entry.index) } });
    }
    return { matches, more: false };
  }

  // Changes. Each vendor-side change moves lastModificationTime (and so the incident's position).

  private changesOf(index: number): IncidentChanges {
    let change = this.changes.get(index);
    if (!change) {
      change = { alerts: [], comments: [], deleted: false };
      this.changes.set(index, change);
    }
    return change;
  }

  private touch(index: number, nowMs: number): IncidentChanges {
    const change = this.changesOf(index);
    change.lastModificationTime = nowMs;
    this.byModified.put(index, nowMs);
    return change;
  }

  setStatus(index: number, status: PublicStatus, classification: Classification | undefined, closingComment: string | undefined, nowMs: number): void {
    if (!publicStatuses.includes(status)) throw invalid("status", `Must be one of ${publicStatuses.join(", ")}.`);
    if (status === "Closed") {
      if (classification === undefined) throw invalid("classification", "Required when closing an incident.");
      if (!classifications.includes(classification)) throw invalid("classification", `Must be one of ${classifications.join(", ")}.`);
    }
    const change = this.touch(index, nowMs);
    if (index >= this.seededCount) {
      if (status === "Closed") this.closedMade.keep(index, nowMs + CLOSED_CONSOLE_INCIDENT_RETENTION_MS);
      else this.closedMade.forget(index);
    }
    change.status = status;
    change.classification = status === "Closed" ? classification! : null;
    change.closingComment = status === "Closed" ? closingComment ?? null : null;
    // Vendors keep the closing note in the incident's comment thread too, flagged as such.
    if (status === "Closed" && closingComment) {
      change.comments.push({
        id: this.nextGuid(),
        message: closingComment,
        createdTime: iso(nowMs),
        authorEmail: "",
        authorName: "Closing comment",
        isActivityComment: false,
        isAgentComment: false,
        agentName: null,
        isClosingComment: true,
        ticketNoteId: null,
        ticketId: null,
        extensionId: null,
      });
    }
  }

  setOwner(index: number, owner: VendorOwner | null, nowMs: number): void {
    this.touch(index, nowMs).owner = owner && { userId: owner.userId ?? null, email: owner.email ?? null, name: owner.name ?? null };
  }

  comments(index: number): VendorComment[] {
    const slots = this.slotsOf(index);
    const change = this.changes.get(index);
    const generated = commentsOf(this.context(), this.seedOf(index, slots))
      .filter((c) => !change?.deletedComments?.has(c.id))
      .map((c) => (change?.editedComments?.has(c.id) ? { ...c, message: change.editedComments.get(c.id)! } : c));
    const all = [...generated, ...(change?.comments ?? []).map((c) => ({ ...c }))];
    // Stable: comments added in the same millisecond keep the order they were added in.
    return all.sort((a, b) => compare(a.createdTime, b.createdTime));
  }

  addComment(index: number, comment: NewVendorComment, nowMs: number): VendorComment {
    if (typeof comment.message !== "string" || comment.message.trim() === "") throw invalid("message", "Must be a non-empty string.");
    const key = comment.idempotencyKey;
    const known = this.changes.get(index);
    const earlier = key === undefined ? undefined : known?.comments.find((c) => c.id === known.commentsByKey?.get(key));
    if (earlier) return { ...earlier };
    const added: VendorComment = {
      id: this.nextGuid(),
      message: comment.message,
      createdTime: iso(nowMs),
      authorEmail: comment.authorEmail,
      authorName: comment.authorName,
      isActivityComment: false,
      isAgentComment: comment.isAgentComment,
      agentName: comment.agentName,
      isClosingComment: comment.isClosingComment,
      ticketNoteId: null,
      ticketId: null,
      extensionId: comment.extensionId,
    };
    const change = this.touch(index, nowMs);
    change.comments.push(added);
    if (key !== undefined) (change.commentsByKey ??= new Map()).set(key, added.id);
    return { ...added };
  }

  updateComment(index: number, commentId: string, edit: VendorCommentChange, nowMs: number): VendorComment {
    if (typeof edit.message !== "string" || edit.message.trim() === "") throw invalid("message", "Must be a non-empty string.");
    const added = this.changes.get(index)?.comments.find((c) => c.id === commentId);
    if (added) {
      added.message = edit.message;
    } else {
      if (!this.comments(index).some((c) => c.id === commentId)) throw notFound("The comment", "commentId");
      (this.changesOf(index).editedComments ??= new Map()).set(commentId, edit.message);
    }
    this.touch(index, nowMs);
    return this.comments(index).find((c) => c.id === commentId)!;
  }

  deleteComment(index: number, commentId: string, nowMs: number): void {
    const change = this.changes.get(index);
    const added = change?.comments.findIndex((c) => c.id === commentId) ?? -1;
    if (added >= 0) {
      change!.comments.splice(added, 1);
    } else {
      const generated = commentsOf(this.context(), this.seedOf(index, this.slotsOf(index)));
      if (!generated.some((c) => c.id === commentId) || change?.deletedComments?.has(commentId)) throw notFound("The comment", "commentId");
      const changes = this.changesOf(index);
      (changes.deletedComments ??= new Set()).add(commentId);
    }
    this.touch(index, nowMs);
  }

  evidence(index: number): Evidence {
    const slots = this.slotsOf(index);
    return { rows: evidenceOf(this.seedOf(index, slots), this.entitiesAt(index, slots)) };
  }

  // Console actions.

  /**
   * A new incident. With `entities` it holds those (each given an id) instead of entities drawn from
   * the workspace's pool; the related-by-entity search, which works on pool slots, then finds no
   * relation for it.
   */
  create(title: string, severity: Severity, nowMs: number, entities?: readonly NewEntity[]): number {
    if (typeof title !== "string" || title.trim() === "") throw invalid("title", "Must be a non-empty string.");
    if (!severities.includes(severity)) throw invalid("severity", `Must be one of ${severities.join(", ")}.`);
    for (const e of entities ?? []) {
      if (!entityKinds.includes(e.kind)) throw invalid("entities", `An entity's kind must be one of ${entityKinds.join(", ")}.`);
      if (typeof e.name !== "string" || e.name.trim() === "") throw invalid("entities", "An entity's name must be a non-empty string.");
    }
    this.closedMade.trim();
    const index = this.total;
    const own = entities?.map((e): Readonly<Entity> => Object.freeze({ id: `ent-${this.nextGuid()}`, kind: e.kind, name: e.name, properties: Object.freeze({ ...e.properties }) }));
    this.created.push({ createdAt: nowMs, title, severity, themeIndex: mix32(this.key, index, 7) % incidentThemes.length, ...(own ? { entities: own } : {}) });
    this.byCreated.put(index, nowMs);
    this.byModified.put(index, nowMs);
    return index;
  }

  /** Gone from every read; kept in the last-modified order as a tombstone for `includeDeleted`. */
  delete(index: number, nowMs: number): void {
    const change = this.touch(index, nowMs);
    change.deleted = true;
    this.byCreated.remove(index);
  }

  isDeleted(index: number): boolean {
    return this.changes.get(index)?.deleted === true;
  }

  private isDropped(index: number): boolean {
    return index >= this.seededCount && this.created[index - this.seededCount] === undefined;
  }

  /** A console-made incident closed long enough: gone from every read and order, as if never made (its number is not reused). */
  private drop(index: number): void {
    this.byCreated.remove(index);
    this.byModified.remove(index);
    this.changes.delete(index);
    this.created[index - this.seededCount] = undefined;
  }

  addAlert(index: number, title: string, severity: Severity, nowMs: number): void {
    if (typeof title !== "string" || title.trim() === "") throw invalid("title", "Must be a non-empty string.");
    if (!severities.includes(severity)) throw invalid("severity", `Must be one of ${severities.join(", ")}.`);
    const entities = this.entitiesAt(index, this.slotsOf(index));
    const products = productNames[this.options.sourceIndex] ?? ["Detection Engine"];
    const change = this.touch(index, nowMs);
    change.alerts.push({ id: this.nextGuid(), title, severity, timeGenerated: iso(nowMs), productName: products[0]!, tactics: [], entityIds: entities.slice(0, 2).map((e) => e.id) });
    change.lastActivityTime = nowMs;
  }

  private nextGuid(): string {
    const n = ++this.sequence;
    return guidFromWords(mix32(this.key, 0xadd, n, 1), mix32(this.key, 0xadd, n, 2), mix32(this.key, 0xadd, n, 3), mix32(this.key, 0xadd, n, 4));
  }
}

function invalid(field: string, message: string): ApiError {
  return new ApiError("VALIDATION_ERROR", `${field}: ${message}`, { target: field, errors: { [field]: [message] } });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
