import type { PlaybookRuleDefinition } from "./playbook-catalogue-record";
import { sentinelEntitiesFor, type CataloguePlaybook } from "./playbook-catalogue";
import { patternSpecificity, titleMatches } from "./title-pattern";

export type { PlaybookRuleDefinition } from "./playbook-catalogue-record";

/** Contract 2.7: a rule as the rules endpoint returns it, with its playbook's details. */
export interface PlaybookRule {
  playbookId: string;
  playbookName: string;
  playbookDescription: string;
  /** The rule's title pattern, as stored. */
  incidentTitle: string;
  /** The playbook's entity type (`User`, `Host`...). */
  entity: string;
  /** The incident entity kinds the playbook acts on (`Account` for `User`). */
  sentinelEntities: string[];
  /** "" when the playbook has no undo playbook. */
  recoverPlaybookId: string;
  isAdminRequired: boolean;
}

/**
 * The rules of a workspace that match an incident title, most specific pattern first (then in the
 * order they are stored). A rule whose playbook is no longer in the catalogue recommends nothing.
 */
export function matchingRules(
  definitions: readonly PlaybookRuleDefinition[],
  catalogue: readonly CataloguePlaybook[],
  incidentTitle: string,
): PlaybookRule[] {
  const playbooks = new Map(catalogue.map((p) => [p.id, p]));
  return definitions
    .map((definition, order) => ({ definition, order, playbook: playbooks.get(definition.playbookId) }))
    .filter(
      (m): m is { definition: PlaybookRuleDefinition; order: number; playbook: CataloguePlaybook } =>
        m.playbook !== undefined && m.playbook.workspaceId === m.definition.workspaceId && titleMatches(m.definition.incidentTitle, incidentTitle),
    )
    .sort((a, b) => patternSpecificity(b.definition.incidentTitle) - patternSpecificity(a.definition.incidentTitle) || a.order - b.order)
    .map(({ definition, playbook }) => ruleView(definition, playbook));
}

export function ruleView(definition: PlaybookRuleDefinition, playbook: CataloguePlaybook): PlaybookRule {
  return {
    playbookId: playbook.id,
    playbookName: playbook.name,
    playbookDescription: playbook.description,
    incidentTitle: definition.incidentTitle,
    entity: playbook.entityType,
    sentinelEntities: sentinelEntitiesFor(playbook.entityType),
    recoverPlaybookId: playbook.recoverPlaybookId ?? "",
    isAdminRequired: playbook.isAdminRequired,
  };
}
