import { ApiError, type FieldErrors } from "../../../platform/errors/api-error";
import { personWorkspaceRoute, type RouteGroup } from "../../../platform/http/route";
import { isEnabled, type PlaybookCatalogueRecord, type PlaybookRuleDefinition } from "../../../domain/gamebooks/playbook-catalogue-record";
import { ruleMatches } from "../../../domain/gamebooks/playbook-rules";
import { normaliseTitle, patternProblem, patternSpecificity, titleMatch } from "../../../domain/gamebooks/title-pattern";
import { changeCatalogue, etagHeader, readCatalogue } from "./catalogue-changes";
import { previewBody, previewView, rulesBody, rulesView, workspaceParams, type RulesBody } from "./content-schemas";

const tag = "Portal: content";
const READERS = ["OrgContentOperator", "OrgContentAdmin"] as const;
const EDITORS = ["OrgContentAdmin"] as const;
const base = "/portal/workspaces/{workspaceId}/gamebook-rules";
/** Playbook references across all rules: keeps the catalogue, one document, well within its size. */
const MAX_RULE_PLAYBOOKS = 2000;

type Rule = RulesBody["rules"][number];

/**
 * The stored rules (one definition per pattern and playbook) as the portal edits them: one rule per
 * pattern with its playbooks in order, patterns in the order they first appear.
 */
function rulesOf(definitions: readonly PlaybookRuleDefinition[]): Rule[] {
  const byPattern = new Map<string, string[]>();
  for (const d of definitions) byPattern.set(d.incidentTitle, [...(byPattern.get(d.incidentTitle) ?? []), d.playbookId]);
  return [...byPattern].map(([pattern, playbookIds]) => ({ pattern, playbookIds }));
}

/** Rules as stored, with the rule each definition came from (its index in `rules`). */
function definitionsOf(workspaceId: string, rules: readonly Rule[]): { definitions: PlaybookRuleDefinition[]; ruleIndex: number[] } {
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
function ruleProblems(rules: readonly Rule[], catalogue: PlaybookCatalogueRecord): FieldErrors {
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

function refuseIfAny(errors: FieldErrors): void {
  const fields = Object.keys(errors);
  if (fields.length === 0) return;
  throw new ApiError("VALIDATION_ERROR", `The rules have invalid fields: ${fields.join(", ")}.`, { errors, target: fields.length === 1 ? fields[0] : undefined });
}

function rulesViewOf(catalogue: PlaybookCatalogueRecord) {
  const playbooks = new Map(catalogue.playbooks.map((p) => [p.id, p]));
  return {
    workspaceId: catalogue.workspaceId,
    rules: rulesOf(catalogue.rules).map((rule) => ({
      ...rule,
      playbooks: rule.playbookIds.map((id) => {
        const playbook = playbooks.get(id);
        return { id, name: playbook?.name ?? null, entityType: playbook?.entityType ?? null, enabled: playbook !== undefined && isEnabled(playbook) };
      }),
    })),
    updatedAt: catalogue.updatedAt || null,
  };
}

/** What changed between two rule lists, by pattern, for the audit record. */
function ruleChanges(before: readonly Rule[], after: readonly Rule[]) {
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

/**
 * Gamebook rules: incident title patterns and the playbooks each recommends, in order. The rules
 * endpoint of the contract (`GET /gamebooks/rules/{incidentTitle}`) and a run's `isRecommended`
 * read them; the preview answers with the same matching, and says why.
 */
export const portalGamebookRuleRoutes: RouteGroup = {
  name: "portal-gamebook-rules",
  routes: [
    personWorkspaceRoute({
      method: "GET",
      path: base,
      summary: "The workspace's gamebook rules: title patterns and the playbooks each recommends",
      description: "With the catalogue's `ETag`, which `PUT` may send back as `If-Match`.",
      tag,
      roles: READERS,
      params: workspaceParams,
      response: rulesView,
      async handler(input) {
        const { value, etag } = await readCatalogue(input, input.workspace.id);
        return { data: rulesViewOf(value), headers: etagHeader(etag) };
      },
    }),
    personWorkspaceRoute({
      method: "PUT",
      path: base,
      summary: "Replace the workspace's gamebook rules, in order",
      description:
        "Checked whole: each pattern can match a title and appears once, each playbook is in the catalogue; every problem is reported at once at its place " +
        "(`rules[2].pattern`, `rules[0].playbookIds[1]`). Audited with what changed. Optional `If-Match` with the catalogue's `ETag` (409 when it changed since).",
      tag,
      roles: EDITORS,
      params: workspaceParams,
      body: rulesBody,
      response: rulesView,
      problems: ["CONFLICT"],
      async handler(input) {
        const { workspace, body } = input;
        const rules = body.rules.map((r) => ({ pattern: r.pattern.trim(), playbookIds: r.playbookIds }));
        const saved = await changeCatalogue(input, workspace, input.header("if-match"), (draft) => {
          refuseIfAny(ruleProblems(rules, draft));
          const before = rulesOf(draft.rules);
          draft.rules = definitionsOf(workspace.id, rules).definitions;
          const changes = ruleChanges(before, rules);
          if (changes.added.length + changes.removed.length + changes.changed.length === 0 && !changes.reordered) return null;
          return { activityType: "GamebookRules", activityAction: "Update", targetResourceType: "Workspace", targetResourceId: workspace.id, targetResourceName: workspace.name, metadata: changes };
        });
        const current = saved ?? (await readCatalogue(input, workspace.id));
        return { data: rulesViewOf(current.value), headers: etagHeader(current.etag) };
      },
    }),
    personWorkspaceRoute({
      method: "POST",
      path: `${base}/preview`,
      summary: "Which playbooks an incident title is recommended, and why",
      description:
        "The same matching as the contract's rules endpoint and a run's `isRecommended`: every rule whose pattern matches the whole title (case-insensitively, `*` " +
        "for any run of characters), most specific pattern first (most literal characters), then in the rules' order; for each, the rule, its pattern and what " +
        "each `*` covered. Rules that match but recommend nothing (a playbook switched off or gone) are listed apart. With `rules`, a draft is tried instead of " +
        "the stored rules, checked as `PUT` checks them. Changes nothing.",
      tag,
      roles: READERS,
      params: workspaceParams,
      body: previewBody,
      response: previewView,
      async handler(input) {
        const { workspace, body } = input;
        const { value: catalogue } = await readCatalogue(input, workspace.id);
        let rules = rulesOf(catalogue.rules);
        if (body.rules) {
          rules = body.rules.map((r) => ({ pattern: r.pattern.trim(), playbookIds: r.playbookIds }));
          refuseIfAny(ruleProblems(rules, catalogue));
        }
        const { definitions, ruleIndex } = definitionsOf(workspace.id, rules);
        const because = (index: number, wildcards: string[]) => {
          const pattern = definitions[index]!.incidentTitle;
          return { ruleIndex: ruleIndex[index]!, pattern, specificity: patternSpecificity(pattern), wildcards };
        };
        const recommendations = ruleMatches(definitions, catalogue.playbooks, body.title).map((m) => ({
          playbookId: m.playbook.id,
          playbookName: m.playbook.name,
          entityType: m.playbook.entityType,
          isAdminRequired: m.playbook.isAdminRequired,
          because: because(m.index, m.match.wildcards),
        }));
        const playbooks = new Map(catalogue.playbooks.map((p) => [p.id, p]));
        const skipped = definitions.flatMap((d, index) => {
          const playbook = playbooks.get(d.playbookId);
          if (playbook && isEnabled(playbook)) return [];
          const match = titleMatch(d.incidentTitle, body.title);
          return match ? [{ playbookId: d.playbookId, reason: playbook ? ("SwitchedOff" as const) : ("NotInCatalogue" as const), because: because(index, match.wildcards) }] : [];
        });
        return { data: { title: body.title, recommendations, skipped } };
      },
    }),
  ],
};
