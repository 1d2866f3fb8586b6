import { ApiError, type FieldErrors } from "../../../platform/errors/api-error";
import { personWorkspaceRoute } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import { isEnabled, type PlaybookCatalogueRecord } from "../../../model/gamebooks/playbook-catalogue-record";
import { definitionsOf, ruleChanges, ruleProblems, rulesOf } from "../../../domain/gamebooks/gamebook-rule-list";
import { ruleMatches } from "../../../domain/gamebooks/playbook-rules";
import { patternSpecificity, titleMatch } from "../../../domain/gamebooks/title-pattern";
import { changeCatalogue, etagHeader, readCatalogue } from "./catalogue-changes";
import { previewBody, previewView, rulesBody, rulesView, workspaceParams } from "./content-schemas";

const tag = "Portal: content";
const READERS = ["OrgContentOperator", "OrgContentAdmin"] as const;
const EDITORS = ["OrgContentAdmin"] as const;
const base = "/portal/workspaces/{workspaceId}/gamebook-rules";
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
      autoRun: rule.autoRun ?? false,
      playbooks: rule.playbookIds.map((id) => {
        const playbook = playbooks.get(id);
        return { id, name: playbook?.name ?? null, entityType: playbook?.entityType ?? null, enabled: playbook !== undefined && isEnabled(playbook) };
      }),
    })),
    updatedAt: catalogue.updatedAt || null,
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
      responseHeaders: [{ name: "ETag", when: "the workspace has a catalogue" }],
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
      responseHeaders: [{ name: "ETag", when: "the workspace has a catalogue" }],
      ifMatch: true,
      summary: "Replace the workspace's gamebook rules, in order",
      description:
        "Checked whole: each pattern can match a title and appears once, each playbook is in the catalogue, an automation rule's (`autoRun`) playbooks can run " +
        "without a person (no required parameter without a default); every problem is reported at once at its place " +
        "(`rules[2].pattern`, `rules[0].playbookIds[1]`, `rules[1].autoRun`). Audited with what changed. Optional `If-Match` with the catalogue's `ETag` (409 when it changed since).",
      tag,
      roles: EDITORS,
      params: workspaceParams,
      body: rulesBody,
      response: rulesView,
      problems: ["CONFLICT"],
      async handler(input) {
        const { workspace, body } = input;
        const rules = body.rules.map((r) => ({ pattern: r.pattern.trim(), playbookIds: r.playbookIds, autoRun: r.autoRun }));
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
          rules = body.rules.map((r) => ({ pattern: r.pattern.trim(), playbookIds: r.playbookIds, autoRun: r.autoRun }));
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
