import type { AutomationEntityType } from "../../model/gamebooks/playbook-catalogue-record";
import { classifications, type Entity, type EntityKind } from "../../model/incidents/incident";
import type { CataloguePlaybook, Gamebook, PlaybookEntityType } from "../../model/gamebooks/playbook-catalogue-record";

export { playbookActionKinds, playbookEntityTypes } from "../../model/gamebooks/playbook-catalogue-record";
export type { CataloguePlaybook, Gamebook, PlaybookActionKind, PlaybookEntityType } from "../../model/gamebooks/playbook-catalogue-record";

/**
 * A workspace's playbook catalogue and gamebooks. A playbook is one action on one entity (disable a
 * user, isolate a host) or on the incident itself (add a comment, close it); a gamebook is a named,
 * ordered list of playbooks that an analyst runs against an incident.
 */

/** Which playbook entity types can act on an incident entity of each kind (a URL also names a domain). */
export const entityTypesForKind: Readonly<Record<EntityKind, readonly AutomationEntityType[]>> = {
  Account: ["User"],
  Host: ["Host"],
  Ip: ["Ip"],
  File: ["File"],
  Mailbox: ["Mailbox"],
  Url: ["Url", "Domain"],
  Process: ["Process"],
};

/** docs/contract.md §2.7 `sentinelEntities`: the incident entity kinds a playbook of this entity type acts on. */
export function sentinelEntitiesFor(entityType: PlaybookEntityType): EntityKind[] {
  return (Object.keys(entityTypesForKind) as EntityKind[]).filter((kind) =>
    (entityTypesForKind[kind] as readonly PlaybookEntityType[]).includes(entityType),
  );
}

/** Whether a playbook can act on this entity of the incident. Incident actions act on no entity. */
export function actsOn(playbook: Pick<CataloguePlaybook, "entityType">, entity: Pick<Entity, "kind">): boolean {
  return (entityTypesForKind[entity.kind] as readonly PlaybookEntityType[]).includes(playbook.entityType);
}

/**
 * The name an action addresses for an entity: the domain of a URL for a `Domain` playbook, the
 * entity's own name (UPN, host name, address, mailbox, file name) otherwise.
 */
export function affectedEntityName(entityType: PlaybookEntityType, entity: Pick<Entity, "name" | "properties">): string {
  if (entityType !== "Domain") return entity.name;
  const domain = entity.properties.domain;
  if (typeof domain === "string" && domain.length > 0) return domain.toLowerCase();
  try {
    return new URL(entity.name).hostname;
  } catch {
    return entity.name;
  }
}

/**
 * Whatever makes a catalogue unusable, as sentences (empty when it is sound): duplicate ids, an undo
 * playbook that is missing or acts on another entity type, an action kind that does not fit the
 * entity type, gamebooks naming unknown playbooks or with sequences other than 1..N.
 */
export function catalogueProblems(playbooks: readonly CataloguePlaybook[], gamebooks: readonly Gamebook[] = []): string[] {
  const problems: string[] = [];
  const byId = new Map<string, CataloguePlaybook>();
  for (const playbook of playbooks) {
    if (byId.has(playbook.id)) problems.push(`Playbook id ${playbook.id} is used twice.`);
    byId.set(playbook.id, playbook);
  }
  for (const playbook of playbooks) {
    const onIncident = playbook.entityType === "Incident";
    if (onIncident === (playbook.action === "automation")) {
      problems.push(`Playbook ${playbook.referenceId}: action ${playbook.action} does not fit entity type ${playbook.entityType}.`);
    }
    if (playbook.recoverPlaybookId !== null) {
      const recover = byId.get(playbook.recoverPlaybookId);
      if (!recover || recover.workspaceId !== playbook.workspaceId) problems.push(`Playbook ${playbook.referenceId}: its recover playbook is not in the catalogue.`);
      else if (recover.entityType !== playbook.entityType) problems.push(`Playbook ${playbook.referenceId}: its recover playbook acts on ${recover.entityType}.`);
    }
  }
  for (const gamebook of gamebooks) {
    const sequences = gamebook.playbooks.map((p) => p.sequence).sort((a, b) => a - b);
    if (gamebook.playbooks.length === 0 || sequences.some((s, i) => s !== i + 1)) problems.push(`Gamebook "${gamebook.title}": sequences are not 1..N.`);
    for (const { playbookId } of gamebook.playbooks) {
      const playbook = byId.get(playbookId);
      if (!playbook || playbook.workspaceId !== gamebook.workspaceId) problems.push(`Gamebook "${gamebook.title}": playbook ${playbookId} is not in the catalogue.`);
    }
  }
  return problems;
}

/** A problem with one field of a playbook entry, for the caller to show beside it. */
export interface PlaybookProblem {
  path: "referenceId" | "entityType" | "action" | "recoverPlaybookId" | "parameters";
  message: string;
}

/**
 * What is wrong with one playbook as the catalogue would hold it, among the catalogue's other
 * playbooks (`others`, without it), field by field: a reference id another playbook has (an import
 * matches on it), an action that does not fit the entity type, an incident action without the
 * parameter the executor reads (a comment's `message`, a close's `classification`), an undo playbook
 * that is itself, missing or on another entity type, or another playbook whose undo this one is and
 * whose entity type it would leave.
 */
export function playbookProblems(playbook: CataloguePlaybook, others: readonly CataloguePlaybook[]): PlaybookProblem[] {
  const problems: PlaybookProblem[] = [];
  const twin = others.find((p) => p.referenceId === playbook.referenceId);
  if (twin) problems.push({ path: "referenceId", message: `${twin.name} (${twin.id}) has this reference id already.` });
  const onIncident = playbook.entityType === "Incident";
  if (onIncident && playbook.action === "automation") problems.push({ path: "action", message: "A playbook on the incident itself is incident.comment or incident.close." });
  if (!onIncident && playbook.action !== "automation") problems.push({ path: "action", message: `${playbook.action} acts on the incident itself: its entityType is Incident.` });
  const declared = new Map(playbook.parameters.map((p) => [p.name, p]));
  if (playbook.action === "incident.comment") {
    const message = declared.get("message");
    if (message?.kind !== "string" || (!message.required && message.default === undefined)) {
      problems.push({ path: "parameters", message: "A comment playbook declares `message`, a string that is required or has a default: it is the comment." });
    }
  }
  if (playbook.action === "incident.close") {
    const classification = declared.get("classification");
    const fits = classification?.kind === "enum" && classification.values.every((v) => (classifications as readonly string[]).includes(v));
    if (!fits || (!classification.required && classification.default === undefined)) {
      problems.push({
        path: "parameters",
        message: `A close playbook declares \`classification\`, an enum of ${classifications.join(", ")} that is required or has a default.`,
      });
    }
  }
  if (playbook.recoverPlaybookId !== null) {
    const recover = others.find((p) => p.id === playbook.recoverPlaybookId);
    if (playbook.recoverPlaybookId === playbook.id) problems.push({ path: "recoverPlaybookId", message: "A playbook cannot undo itself." });
    else if (!recover) problems.push({ path: "recoverPlaybookId", message: "Not a playbook of this workspace's catalogue." });
    else if (recover.entityType !== playbook.entityType) problems.push({ path: "recoverPlaybookId", message: `${recover.name} acts on ${recover.entityType}, this playbook on ${playbook.entityType}.` });
  }
  for (const undone of others.filter((p) => p.recoverPlaybookId === playbook.id && p.entityType !== playbook.entityType)) {
    problems.push({ path: "entityType", message: `${undone.name} names this playbook as its undo and acts on ${undone.entityType}.` });
  }
  return problems;
}
