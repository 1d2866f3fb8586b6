import type { AutomationEntityType } from "../../systems/playbook-automation/port";
import type { Entity, EntityKind } from "../../systems/vendors/port";
import type { CataloguePlaybook, Gamebook, PlaybookEntityType } from "./playbook-catalogue-record";

export { playbookActionKinds, playbookEntityTypes } from "./playbook-catalogue-record";
export type { CataloguePlaybook, Gamebook, PlaybookActionKind, PlaybookEntityType } from "./playbook-catalogue-record";

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

/** Contract 2.7 `sentinelEntities`: the incident entity kinds a playbook of this entity type acts on. */
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
