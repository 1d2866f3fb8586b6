import type { FieldErrors } from "../../platform/errors/api-error";
import type { PlaybookCatalogueRecord, PlaybookRuleDefinition } from "./playbook-catalogue-record";
import { normaliseTitle, patternProblem } from "./title-pattern";

/*
 * Gamebook rules as people edit them: one rule per title pattern with its playbooks in order, where
 * the catalogue stores one definition per pattern and playbook. The portal's rules page and the demo
 * seed check a list the same way before it replaces the stored rules.
 */

/** Playbook references across all rules: keeps the catalogue, one document, well within its size. */
export const MAX_RULE_PLAYBOOKS = 2000;

export interface RuleEntry {
  pattern: string;
  playbookIds: string[];
}

/** The stored definitions as rules: one per pattern with its playbooks in order, patterns in the order they first appear. */
export function rulesOf(definitions: readonly PlaybookRuleDefinition[]): RuleEntry[] {
  const byPattern = new Map<string, string[]>();
  for (const d of definitions) byPattern.set(d.incidentTitle, [...(byPattern.get(d.incidentTitle) ?? []), d.playbookId]);
  return [...byPattern].map(([pattern, playbookIds]) => ({ pattern, playbookIds }));
}

/** Rules as stored, with the rule each definition came from (its index in `rules`). */
export function definitionsOf(workspaceId: string, rules: readonly RuleEntry[]): { definitions: PlaybookRuleDefinition[]; ruleIndex: number[] } {
  const definitions: PlaybookRuleDefinition[] = [];
  const ruleIndex: number[] = [];
  rules.forEach((rule, i) => {
    for (const playbookId of rule.playbookIds) {
      definitions.push({ workspaceId, incidentTitle: rule.pattern.trim(), playbookId });
      ruleIndex.push(i);
    }
  });
  return { definitions, ruleIndex };
}

/**
 * Every problem of a rule list, where it is: a pattern that cannot match a title (empty, too long),
 * one written twice (as matched: case and whitespace aside), a playbook not in the catalogue or named
 * twice by one rule, too many playbooks in all.
 */
export function ruleProblems(rules: readonly RuleEntry[], catalogue: Pick<PlaybookCatalogueRecord, "playbooks">): FieldErrors {
  const errors: FieldErrors = Object.create(null) as FieldErrors;
  const add = (path: string, message: string) => (errors[path] ??= []).push(message);
  const known = new Set(catalogue.playbooks.map((p) => p.id));
  const firstOf = new Map<string, number>();
  rules.forEach((rule, i) => {
    const problem = patternProblem(rule.pattern);
    if (problem) add(`rules[${i}].pattern`, problem);
    const key = normaliseTitle(rule.pattern);
    const first = firstOf.get(key);
    if (first !== undefined && !problem) add(`rules[${i}].pattern`, `The same pattern as rules[${first}] (letter case and spaces aside): put its playbooks there.`);
    else firstOf.set(key, i);
    const seen = new Set<string>();
    rule.playbookIds.forEach((id, j) => {
      if (seen.has(id)) add(`rules[${i}].playbookIds[${j}]`, "Named twice in this rule.");
      else if (!known.has(id)) add(`rules[${i}].playbookIds[${j}]`, "Not a playbook of this workspace's catalogue.");
      seen.add(id);
    });
  });
  const total = rules.reduce((n, r) => n + r.playbookIds.length, 0);
  if (total > MAX_RULE_PLAYBOOKS) add("rules", `At most ${MAX_RULE_PLAYBOOKS} playbooks across all rules; these name ${total}.`);
  return errors;
}

/** What changed between two rule lists, by pattern, for the audit record. */
export function ruleChanges(before: readonly RuleEntry[], after: readonly RuleEntry[]) {
  const was = new Map(before.map((r) => [r.pattern, r.playbookIds]));
  const is = new Map(after.map((r) => [r.pattern, r.playbookIds]));
  return {
    added: after.filter((r) => !was.has(r.pattern)).map((r) => r.pattern),
    removed: before.filter((r) => !is.has(r.pattern)).map((r) => r.pattern),
    changed: after.filter((r) => was.has(r.pattern) && was.get(r.pattern)!.join("\n") !== r.playbookIds.join("\n")).map((r) => r.pattern),
    reordered: before.map((r) => r.pattern).filter((p) => is.has(p)).join("\n") !== after.map((r) => r.pattern).filter((p) => was.has(p)).join("\n"),
    rules: after.length,
  };
}
