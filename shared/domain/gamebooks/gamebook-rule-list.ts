import type { FieldErrors } from "../../platform/errors/api-error";
import type { PlaybookCatalogueRecord, PlaybookRuleDefinition } from "../../model/gamebooks/playbook-catalogue-record";
import { normaliseTitle, patternProblem } from "./title-pattern";
import { runsUnattended } from "./auto-run";

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
  /** An automation rule: its playbooks run by themselves on a new incident whose title matches (auto-run.ts). */
  autoRun?: boolean;
}

/** The stored definitions as rules: one per pattern with its playbooks in order, patterns in the order they first appear. */
export function rulesOf(definitions: readonly PlaybookRuleDefinition[]): RuleEntry[] {
  const byPattern = new Map<string, RuleEntry>();
  for (const d of definitions) {
    const rule = byPattern.get(d.incidentTitle) ?? { pattern: d.incidentTitle, playbookIds: [], autoRun: false };
    rule.playbookIds.push(d.playbookId);
    rule.autoRun = rule.autoRun || d.autoRun === true;
    byPattern.set(d.incidentTitle, rule);
  }
  return [...byPattern.values()];
}

/** Rules as stored, with the rule each definition came from (its index in `rules`). */
export function definitionsOf(workspaceId: string, rules: readonly RuleEntry[]): { definitions: PlaybookRuleDefinition[]; ruleIndex: number[] } {
  const definitions: PlaybookRuleDefinition[] = [];
  const ruleIndex: number[] = [];
  rules.forEach((rule, i) => {
    for (const playbookId of rule.playbookIds) {
      // Only automation rules carry the flag: a rule that recommends is stored as it always was.
      definitions.push({ workspaceId, incidentTitle: rule.pattern.trim(), playbookId, ...(rule.autoRun ? { autoRun: true } : {}) });
      ruleIndex.push(i);
    }
  });
  return { definitions, ruleIndex };
}

/**
 * Every problem of a rule list, where it is: a pattern that cannot match a title (empty, too long),
 * one written twice (as matched: case and whitespace aside), a playbook not in the catalogue or named
 * twice by one rule, an automation rule with a playbook that cannot run without a person (a required
 * parameter without a default), too many playbooks in all.
 */
export function ruleProblems(rules: readonly RuleEntry[], catalogue: Pick<PlaybookCatalogueRecord, "playbooks">): FieldErrors {
  const errors: FieldErrors = Object.create(null) as FieldErrors;
  const add = (path: string, message: string) => (errors[path] ??= []).push(message);
  const known = new Map(catalogue.playbooks.map((p) => [p.id, p]));
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
    if (rule.autoRun) {
      const attended = rule.playbookIds.map((id) => known.get(id)).filter((p) => p !== undefined && !runsUnattended(p));
      for (const p of attended) {
        const needed = p!.parameters.filter((x) => x.required && x.default === undefined).map((x) => x.name);
        add(`rules[${i}].autoRun`, `${p!.name} cannot run by itself: ${needed.join(", ")} ${needed.length === 1 ? "is" : "are"} required and ${needed.length === 1 ? "has" : "have"} no default.`);
      }
    }
  });
  const total = rules.reduce((n, r) => n + r.playbookIds.length, 0);
  if (total > MAX_RULE_PLAYBOOKS) add("rules", `At most ${MAX_RULE_PLAYBOOKS} playbooks across all rules; these name ${total}.`);
  return errors;
}

/** What changed between two rule lists, by pattern, for the audit record. */
export function ruleChanges(before: readonly RuleEntry[], after: readonly RuleEntry[]) {
  const was = new Map(before.map((r) => [r.pattern, r]));
  const is = new Map(after.map((r) => [r.pattern, r]));
  const differs = (a: RuleEntry, b: RuleEntry) => a.playbookIds.join("\n") !== b.playbookIds.join("\n") || (a.autoRun ?? false) !== (b.autoRun ?? false);
  return {
    added: after.filter((r) => !was.has(r.pattern)).map((r) => r.pattern),
    removed: before.filter((r) => !is.has(r.pattern)).map((r) => r.pattern),
    changed: after.filter((r) => was.has(r.pattern) && differs(was.get(r.pattern)!, r)).map((r) => r.pattern),
    automated: after.filter((r) => r.autoRun).map((r) => r.pattern),
    reordered: before.map((r) => r.pattern).filter((p) => is.has(p)).join("\n") !== after.map((r) => r.pattern).filter((p) => was.has(p)).join("\n"),
    rules: after.length,
  };
}
