import type { PlaybookRuleDefinition } from "../../model/gamebooks/playbook-catalogue-record";
import { sentinelEntitiesFor, type CataloguePlaybook } from "./playbook-catalogue";
import { patternSpecificity, titleMatch, type TitleMatch } from "./title-pattern";
import { isEnabled } from "../../model/gamebooks/playbook-catalogue-record";

export type { PlaybookRuleDefinition } from "../../model/gamebooks/playbook-catalogue-record";

/** docs/contract.md §2.7: a rule as the rules endpoint returns it, with its playbook's details. */
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
 * order they are stored). A rule whose playbook is no longer in the catalogue, or is switched off,
 * recommends nothing.
 */
export function matchingRules(
  definitions: readonly PlaybookRuleDefinition[],
  catalogue: readonly CataloguePlaybook[],
  incidentTitle: string,
): PlaybookRule[] {
  return ruleMatches(definitions, catalogue, incidentTitle).map(({ definition, playbook }) => ruleView(definition, playbook));
}

/** A rule that matched a title, and why: where it is stored, its playbook, what each `*` covered. */
export interface RuleMatch {
  /** Its place among the workspace's stored rules. */
  index: number;
  definition: PlaybookRuleDefinition;
  playbook: CataloguePlaybook;
  match: TitleMatch;
}

/**
 * What `matchingRules` recommends, with the reasons: the one matching, ordering and filtering of
 * rules, which runs (isRecommended), the rules endpoint and the portal's preview all go through.
 */
export function ruleMatches(definitions: readonly PlaybookRuleDefinition[], catalogue: readonly CataloguePlaybook[], incidentTitle: string): RuleMatch[] {
  const playbooks = new Map(catalogue.map((p) => [p.id, p]));
  const matches: RuleMatch[] = [];
  definitions.forEach((definition, index) => {
    const playbook = playbooks.get(definition.playbookId);
    if (playbook === undefined || playbook.workspaceId !== definition.workspaceId || !isEnabled(playbook)) return;
    const match = titleMatch(definition.incidentTitle, incidentTitle);
    if (match !== null) matches.push({ index, definition, playbook, match });
  });
  return matches.sort((a, b) => patternSpecificity(b.definition.incidentTitle) - patternSpecificity(a.definition.incidentTitle) || a.index - b.index);
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
