import { isDeepStrictEqual } from "node:util";
import { ApiError, notFound, type FieldErrors } from "../../../platform/errors/api-error";
import { derivedGuid } from "../../../platform/ids/derived-guid";
import { personWorkspaceRoute } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import { catalogueProblems, playbookProblems } from "../../../domain/gamebooks/playbook-catalogue";
import { isEnabled, type CataloguePlaybook, type PlaybookCatalogueRecord } from "../../../model/gamebooks/playbook-catalogue-record";
import type { AutomationPlaybook } from "../../../systems/playbook-automation/port";
import { changeCatalogue, etagHeader, readCatalogue } from "./catalogue-changes";
import { catalogueView, existingPlaybookParams, importView, playbookBody, playbookParams, playbookView, workspaceParams, type PlaybookBody } from "./content-schemas";

const tag = "Portal: content";
const READERS = ["OrgContentOperator", "OrgContentAdmin"] as const;
const EDITORS = ["OrgContentAdmin"] as const;
const base = "/portal/workspaces/{workspaceId}/playbooks";

/** A playbook as the portal shows it, with what names it (it cannot be deleted while anything does). */
function viewOf(playbook: CataloguePlaybook, catalogue: PlaybookCatalogueRecord) {
  return {
    id: playbook.id,
    referenceId: playbook.referenceId,
    name: playbook.name,
    description: playbook.description,
    entityType: playbook.entityType,
    action: playbook.action,
    isAdminRequired: playbook.isAdminRequired,
    isRecommended: playbook.isRecommended,
    recoverPlaybookId: playbook.recoverPlaybookId,
    parameters: playbook.parameters,
    enabled: isEnabled(playbook),
    usage: {
      rules: catalogue.rules.filter((r) => r.playbookId === playbook.id).length,
      gamebooks: catalogue.gamebooks.filter((g) => g.playbooks.some((p) => p.playbookId === playbook.id)).length,
    },
  };
}

const byName = (a: CataloguePlaybook, b: CataloguePlaybook) => a.name.localeCompare(b.name, "en") || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The entry a PUT body describes; an entity playbook's action defaults to the automation. Whether it
 * needs an administrator and whether it is switched on, left out, stay as they were (a new entry: no,
 * and on): an omission never lets a playbook run with less approval, nor switches one back on.
 */
function entryOf(workspaceId: string, id: string, body: PlaybookBody, before: CataloguePlaybook | undefined): CataloguePlaybook {
  return {
    id,
    workspaceId,
    referenceId: body.referenceId,
    name: body.name,
    description: body.description,
    entityType: body.entityType,
    action: body.action ?? (body.entityType === "Incident" ? "incident.comment" : "automation"),
    isAdminRequired: body.isAdminRequired ?? before?.isAdminRequired ?? false,
    isRecommended: body.isRecommended,
    recoverPlaybookId: body.recoverPlaybookId,
    parameters: body.parameters,
    enabled: body.enabled ?? (before ? isEnabled(before) : true),
  };
}

/** The fields whose values differ between two versions of a playbook, for the audit record. */
function changedFields(before: CataloguePlaybook, after: CataloguePlaybook): string[] {
  const fields = ["referenceId", "name", "description", "entityType", "action", "isAdminRequired", "isRecommended", "recoverPlaybookId", "parameters"] as const;
  const changed: string[] = fields.filter((f) => !isDeepStrictEqual(before[f], after[f]));
  if (isEnabled(before) !== isEnabled(after)) changed.push("enabled");
  return changed;
}

function refused(errors: FieldErrors): ApiError {
  const fields = Object.keys(errors);
  return new ApiError("VALIDATION_ERROR", `The playbook has invalid fields: ${fields.join(", ")}.`, { errors, target: fields.length === 1 ? fields[0] : undefined });
}

/**
 * An import: the backend's actions merged into the catalogue by reference id. New ones are added,
 * switched on; known ones take the backend's name, description, entity type and parameters, and keep
 * the workspace's own settings (switched on or off, needs an administrator, recommended, undo).
 */
function mergeImport(draft: PlaybookCatalogueRecord, offered: readonly AutomationPlaybook[]) {
  const ref = (p: CataloguePlaybook) => ({ id: p.id, referenceId: p.referenceId, name: p.name });
  const report = { added: [] as ReturnType<typeof ref>[], updated: [] as (ReturnType<typeof ref> & { changed: string[] })[], unchanged: [] as ReturnType<typeof ref>[], notOffered: [] as ReturnType<typeof ref>[] };
  for (const action of offered) {
    const index = draft.playbooks.findIndex((p) => p.referenceId === action.referenceId);
    const known = draft.playbooks[index];
    if (!known) {
      // The same id for the same action every time, so that two imports at once add it once.
      let id = derivedGuid(`playbook/${draft.workspaceId}/${action.referenceId}`);
      if (draft.playbooks.some((p) => p.id === id)) id = derivedGuid(`playbook/${draft.workspaceId}/${action.referenceId}/${draft.playbooks.length}`);
      const added: CataloguePlaybook = {
        id,
        workspaceId: draft.workspaceId,
        referenceId: action.referenceId,
        name: action.name,
        description: action.description,
        entityType: action.entityType,
        action: "automation",
        isAdminRequired: action.isAdminRequired,
        isRecommended: true,
        recoverPlaybookId: null,
        parameters: action.parameters,
        enabled: true,
      };
      draft.playbooks.push(added);
      report.added.push(ref(added));
      continue;
    }
    const next: CataloguePlaybook = { ...known, name: action.name, description: action.description, entityType: action.entityType, parameters: action.parameters };
    const changed = changedFields(known, next);
    if (known.action !== "automation") {
      // An incident action of the service's own with the backend's reference id: not the backend's to change.
      report.unchanged.push(ref(known));
    } else if (changed.length === 0) report.unchanged.push(ref(known));
    else {
      draft.playbooks[index] = next;
      report.updated.push({ ...ref(next), changed });
    }
  }
  const offeredIds = new Set(offered.map((a) => a.referenceId));
  report.notOffered = draft.playbooks.filter((p) => p.action === "automation" && !offeredIds.has(p.referenceId)).map(ref);
  return report;
}

/**
 * The workspace's playbook catalogue for the portal's content pages: `OrgContentOperator` reads it,
 * `OrgContentAdmin` changes it. Every change is audited in the same commit as the catalogue.
 */
export const portalPlaybookRoutes: RouteGroup = {
  name: "portal-playbooks",
  routes: [
    personWorkspaceRoute({
      method: "GET",
      path: base,
      responseHeaders: [{ name: "ETag", when: "the workspace has a catalogue" }],
      summary: "The workspace's playbook catalogue",
      description: "With the catalogue's `ETag`, which a change may send back as `If-Match`.",
      tag,
      roles: READERS,
      params: workspaceParams,
      response: catalogueView,
      async handler(input) {
        const { value, etag } = await readCatalogue(input, input.workspace.id);
        const data = { workspaceId: input.workspace.id, playbooks: [...value.playbooks].sort(byName).map((p) => viewOf(p, value)), updatedAt: value.updatedAt || null };
        return { data, headers: etagHeader(etag) };
      },
    }),
    personWorkspaceRoute({
      method: "PUT",
      path: `${base}/{playbookId}`,
      responseHeaders: ["ETag", { name: "Location", status: 201 }],
      ifMatch: true,
      summary: "Add a playbook to the catalogue, or change one",
      description:
        "The whole entry: a field left out takes its default, except `isAdminRequired` and `enabled`, which keep their values (a new entry: false, and true). " +
        "201 when it was added, with `Location`. Refused (400, naming the field) when its reference id is another playbook's, " +
        "its action does not fit its entity type, an incident action lacks the parameter it needs, or its undo playbook is missing, itself or on another entity type. " +
        "Optional `If-Match` with the catalogue's `ETag` (409 when it changed since).",
      tag,
      roles: EDITORS,
      params: playbookParams,
      body: playbookBody,
      response: playbookView,
      successStatus: [200, 201],
      problems: ["CONFLICT"],
      async handler(input) {
        const { workspace, params, body } = input;
        let created = false;
        let entry: CataloguePlaybook | undefined;
        const saved = await changeCatalogue(input, workspace, input.header("if-match"), (draft) => {
          const index = draft.playbooks.findIndex((p) => p.id === params.playbookId);
          const before = draft.playbooks[index];
          const next = entryOf(workspace.id, params.playbookId, body, before);
          const others = draft.playbooks.filter((p) => p.id !== params.playbookId);
          const errors: FieldErrors = Object.create(null) as FieldErrors;
          for (const problem of playbookProblems(next, others)) (errors[problem.path] ??= []).push(problem.message);
          if (Object.keys(errors).length > 0) throw refused(errors);
          created = before === undefined;
          entry = next;
          if (before && changedFields(before, next).length === 0) return null;
          if (created) draft.playbooks.push(next);
          else draft.playbooks[index] = next;
          // Whatever else the catalogue holds must still stand (gamebooks, other playbooks' undo links).
          const remaining = catalogueProblems(draft.playbooks, draft.gamebooks);
          if (remaining.length > 0) throw refused({ "": remaining });
          return {
            activityType: "Playbook",
            activityAction: created ? "Create" : "Update",
            targetResourceType: "Playbook",
            targetResourceId: next.id,
            targetResourceName: next.name,
            metadata: created ? { after: next } : { changed: changedFields(before!, next), before, after: next },
          };
        });
        const current = saved ?? (await readCatalogue(input, workspace.id));
        if (!created) return { data: viewOf(entry!, current.value), headers: etagHeader(current.etag) };
        const location = `${input.origin}/api/v2/portal/workspaces/${workspace.id}/playbooks/${encodeURIComponent(params.playbookId)}`;
        return { status: 201, data: viewOf(entry!, current.value), headers: { ...etagHeader(current.etag), Location: location } };
      },
    }),
    personWorkspaceRoute({
      method: "GET",
      path: `${base}/{playbookId}`,
      summary: "One playbook of the catalogue",
      tag,
      roles: READERS,
      params: existingPlaybookParams,
      response: playbookView,
      async handler(input) {
        const { value } = await readCatalogue(input, input.workspace.id);
        const playbook = value.playbooks.find((p) => p.id === input.params.playbookId);
        if (!playbook) throw notFound("The playbook", "playbookId");
        return { data: viewOf(playbook, value) };
      },
    }),
    personWorkspaceRoute({
      method: "DELETE",
      path: `${base}/{playbookId}`,
      ifMatch: true,
      summary: "Remove a playbook from the catalogue",
      description:
        "409 while a rule, a gamebook or another playbook's undo names it (the detail says which): change those first, or switch the playbook off (`enabled: false`), " +
        "which keeps it out of runs and recommendations. Runs already made keep their record of it.",
      tag,
      roles: EDITORS,
      params: playbookParams,
      successStatus: 204,
      problems: ["CONFLICT"],
      async handler(input) {
        const { workspace, params } = input;
        await changeCatalogue(input, workspace, input.header("if-match"), (draft) => {
          const playbook = draft.playbooks.find((p) => p.id === params.playbookId);
          if (!playbook) throw notFound("The playbook", "playbookId");
          const rules = draft.rules.filter((r) => r.playbookId === playbook.id).map((r) => `"${r.incidentTitle}"`);
          const gamebooks = draft.gamebooks.filter((g) => g.playbooks.some((p) => p.playbookId === playbook.id)).map((g) => `"${g.title}"`);
          const undone = draft.playbooks.filter((p) => p.recoverPlaybookId === playbook.id).map((p) => p.name);
          const users = [
            ...(rules.length > 0 ? [`the rules ${[...new Set(rules)].join(", ")}`] : []),
            ...(gamebooks.length > 0 ? [`the gamebooks ${gamebooks.join(", ")}`] : []),
            ...(undone.length > 0 ? [`the undo of ${undone.join(", ")}`] : []),
          ];
          if (users.length > 0) {
            throw new ApiError("CONFLICT", `${playbook.name} is still named by ${users.join("; ")}. Change those first, or switch it off instead.`, { target: "playbookId" });
          }
          draft.playbooks = draft.playbooks.filter((p) => p.id !== playbook.id);
          return { activityType: "Playbook", activityAction: "Delete", targetResourceType: "Playbook", targetResourceId: playbook.id, targetResourceName: playbook.name, metadata: { before: playbook } };
        });
        return { status: 204 };
      },
    }),
    personWorkspaceRoute({
      method: "POST",
      path: `${base}/import`,
      responseHeaders: [{ name: "ETag", when: "the workspace has a catalogue" }],
      ifMatch: true,
      summary: "Import the actions the automation backend offers the workspace into its catalogue",
      description:
        "Merged by reference id: an action the catalogue lacks is added (switched on); one it has takes the backend's name, description, entity type and parameters " +
        "and keeps the workspace's own settings (switched on or off, needs an administrator, recommended, undo). Nothing is removed: `notOffered` lists the automation " +
        "playbooks the backend no longer offers. One audit event for the whole import; none when nothing changed. 400 `EXTENSION_NOT_ENABLED` without an automation backend.",
      tag,
      roles: EDITORS,
      params: workspaceParams,
      response: importView,
      problems: ["CONFLICT", "EXTENSION_NOT_ENABLED"],
      async handler(input) {
        const { workspace } = input;
        const offered = await input.playbookActions.listPlaybooks(workspace.id, input.signal);
        let report: ReturnType<typeof mergeImport> | undefined;
        const saved = await changeCatalogue(input, workspace, input.header("if-match"), (draft) => {
          report = mergeImport(draft, offered);
          if (report.added.length === 0 && report.updated.length === 0) return null;
          const problems = catalogueProblems(draft.playbooks, draft.gamebooks);
          if (problems.length > 0) throw new ApiError("CONFLICT", `The backend's actions no longer fit the catalogue: ${problems.join(" ")}`);
          return {
            activityType: "PlaybookCatalogue",
            activityAction: "Update",
            targetResourceType: "Workspace",
            targetResourceId: workspace.id,
            targetResourceName: workspace.name,
            metadata: { import: { added: report.added.map((p) => p.referenceId), updated: report.updated.map((p) => ({ referenceId: p.referenceId, changed: p.changed })) } },
          };
        });
        return { data: report!, headers: etagHeader(saved?.etag ?? (await readCatalogue(input, workspace.id)).etag) };
      },
    }),
  ],
};
