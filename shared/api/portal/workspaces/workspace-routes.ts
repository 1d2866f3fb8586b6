import { randomUUID } from "node:crypto";
import { ApiError, isApiError, notFound } from "../../../platform/errors/api-error";
import { personRoute, personWorkspaceRoute } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import { commit } from "../../../platform/store/commit";
import type { Person } from "../../../platform/auth/person";
import type { Uses } from "../../../domain/operation-context";
import { isActiveAccount } from "../../../model/organizations/account";
import { integrationStates, missingSystemOf, switchIntegrations } from "../../../domain/organizations/integration-switches";
import { integrationNames, type IntegrationName } from "../../../model/organizations/workspace-integrations";
import { workspaceAudit } from "../../../domain/organizations/workspace-audit";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";
import { actsOnEveryWorkspace, fieldProblem } from "../portal-access";
import { changedSources, sourcesSummary, sourcesView } from "./source-settings";
import { offboardWorkspace } from "./workspace-offboarding";
import { checkSecurityInstance } from "./security-instance-check";
import type { WorkspaceRef } from "../../../systems/cloud-inventory/port";
import type { SecurityInstanceView } from "../../../domain/cloud/cloud-lookups";
import {
  integrationsBody,
  integrationsView,
  listWorkspacesQuery,
  offboardedView,
  offboardParams,
  onboardWorkspaceBody,
  updateWorkspaceBody,
  workspaceList,
  workspaceParams,
  workspaceView,
  type WorkspaceView,
} from "./workspace-schemas";

const tag = "Portal: workspaces";

function toWorkspaceView(input: Uses<"sources">, person: Person, workspace: WorkspaceRecord): WorkspaceView {
  return {
    id: workspace.id,
    name: workspace.name,
    accountId: workspace.accountId,
    tenantId: workspace.tenantId,
    azureId: workspace.azureId ?? null,
    sources: sourcesView(workspace, input.sources),
    workspaceRole: person.workspaceRoles.get(workspace.id) ?? null,
    createdAt: workspace.createdAt ?? null,
    lastModifiedAt: workspace.lastModifiedAt ?? null,
  };
}

/** A workspace name is unique within its organization, as people tell workspaces apart by it. */
async function nameTaken(ctx: Uses<"stores">, accountId: string, name: string, except?: string): Promise<boolean> {
  const wanted = name.toLowerCase();
  return (await ctx.stores.workspaces.listByAccounts([accountId])).some((w) => w.id !== except && w.name.toLowerCase() === wanted);
}

/**
 * The security instance a workspace is onboarded from, checked as the form's check does; each refusal
 * at the body's field: 400 where the person can pick another, 409 when a workspace already has its id.
 */
async function instanceToOnboard(input: Parameters<typeof checkSecurityInstance>[0], person: Person, ref: WorkspaceRef): Promise<SecurityInstanceView> {
  let check: Awaited<ReturnType<typeof checkSecurityInstance>>;
  try {
    check = await checkSecurityInstance(input, person, ref);
  } catch (error) {
    // The lookups' 404 is about a path parameter; here the subscription and group are the body's fields.
    if (!isApiError(error) || error.code !== "NOT_FOUND") throw error;
    throw error.target === "subscriptionId"
      ? fieldProblem("securityInstance.subscriptionId", "No subscription of your organization has this id.")
      : fieldProblem("securityInstance.resourceGroup", `The subscription has no resource group named ${ref.resourceGroup}.`);
  }
  if (check.reason === "AlreadyOnboarded") throw new ApiError("CONFLICT", check.detail, { target: "securityInstance" });
  if (check.reason !== null) throw fieldProblem("securityInstance.workspaceName", check.detail);
  return check.instance;
}

/**
 * Workspaces in the portal: list the ones a person may see, onboard one into an organization with
 * its per-source settings (on or off, the vendor's identifier of the workspace, its own bridge), read
 * and change it, switch its integrations, and offboard it. Every write is audited in the same
 * commit, in the workspace's trail, with the person as the actor; a change of the source settings
 * applies at once on this instance (and on the others within the settings' cache period).
 */
export const workspaceRoutes: RouteGroup = {
  name: "portal-workspaces",
  routes: [
    personRoute({
      method: "GET",
      path: "/portal/workspaces",
      summary: "The workspaces you may act on",
      description: "`Admin` and `WorkspaceAdmin` see every workspace of their organization; others those they hold a workspace role on. By name.",
      tag,
      roles: "any",
      query: listWorkspacesQuery,
      response: workspaceList,
      async handler(input) {
        const { person, query } = input;
        const accountIds = query.accountId ? person.organizationAccountIds.filter((id) => id === query.accountId!.toLowerCase()) : person.organizationAccountIds;
        const found = actsOnEveryWorkspace(person)
          ? await input.stores.workspaces.listByAccounts(accountIds)
          : (await input.stores.workspaces.getMany([...person.workspaceRoles.keys()])).filter((w) => accountIds.includes(w.accountId));
        found.sort((a, b) => a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1));
        return { data: found.map((w) => toWorkspaceView(input, person, w)) };
      },
    }),
    personRoute({
      method: "POST",
      path: "/portal/workspaces",
      idempotencyKey: true,
      responseHeaders: ["Location", "ETag"],
      summary: "Onboard a workspace into an organization of yours, with its per-source settings",
      description:
        "Onboarded from a security instance (`securityInstance`, found with the cloud lookups), the workspace's id is the instance's; typed by hand, it gets a new one. " +
        "Every source is on and served by the deployment's system unless `sources` says otherwise: off, the vendor's own identifier of the workspace, " +
        "or its own bridge. Runs of playbooks that need an administrator wait for approval unless `approvalMode` says otherwise. " +
        "A bridge's Authorization value is kept sealed and never returned. The organization must be yours and active (409 when " +
        "deactivated); the name unique within it (409).",
      tag,
      roles: ["WorkspaceAdmin"],
      body: onboardWorkspaceBody,
      response: workspaceView,
      successStatus: 201,
      problems: ["CONFLICT", "EXTENSION_NOT_ENABLED"],
      async handler(input) {
        const { person, body } = input;
        const accountId = body.accountId.toLowerCase();
        const account = person.organizationAccountIds.includes(accountId) ? await input.stores.accounts.get(accountId) : undefined;
        if (!account) throw fieldProblem("accountId", "No organization of yours has this id.");
        if (!isActiveAccount(account)) throw new ApiError("CONFLICT", `${account.name} is deactivated: no workspace can be onboarded into it.`, { target: "accountId" });
        if (await nameTaken(input, accountId, body.name)) throw new ApiError("CONFLICT", `${account.name} already has a workspace named "${body.name}".`, { target: "name" });
        const instance = body.securityInstance && (await instanceToOnboard(input, person, body.securityInstance));
        const stamp = input.now().toISOString();
        const workspace: WorkspaceRecord = {
          // The contract's security instance id is the workspace id (docs/contract.md §2.12).
          id: instance ? instance.id : randomUUID(),
          name: body.name,
          tenantId: body.tenantId.toLowerCase(),
          accountId,
          ...(instance ? { azureId: instance.azureId } : {}),
          sources: changedSources(undefined, body.sources, { seal: (v) => input.secretBox.seal(v), allowHttp: input.config.workspaceBridgesAllowHttp }),
          gamebookApproval: { mode: body.approvalMode },
          createdAt: stamp,
          lastModifiedAt: stamp,
        };
        const created = await commit({
          deadline: input.deadline,
          read: async () => ({ value: workspace, etag: null }),
          change: (draft) => [
            workspaceAudit(input, draft, "WorkspaceOnboarded", "Create", {
              name: draft.name,
              accountId,
              tenantId: draft.tenantId,
              azureId: draft.azureId ?? null,
              sources: sourcesSummary(draft.sources),
              approvalMode: body.approvalMode,
            }),
          ],
          write: (draft, _etag, outbox) => input.stores.workspaces.create(draft, outbox),
          outbox: input.events.outbox,
          // A new id can collide only with itself, an instance's with a concurrent onboarding of the same instance: its 409 is the answer.
          maxAttempts: 1,
        });
        return {
          status: 201,
          data: toWorkspaceView(input, person, created.value),
          headers: { Location: `${input.origin}/api/v2/portal/workspaces/${workspace.id}`, ETag: created.etag },
        };
      },
    }),
    personWorkspaceRoute({
      method: "GET",
      path: "/portal/workspaces/{workspaceId}",
      responseHeaders: ["ETag"],
      summary: "One workspace, with its per-source settings",
      tag,
      roles: "any",
      params: workspaceParams,
      response: workspaceView,
      async handler(input) {
        const found = await input.stores.workspaces.read(input.workspace.id);
        if (!found || found.value.offboarded) throw notFound("The workspace", "workspaceId");
        return { data: toWorkspaceView(input, input.person, found.value), headers: { ETag: found.etag } };
      },
    }),
    personWorkspaceRoute({
      method: "PATCH",
      path: "/portal/workspaces/{workspaceId}",
      responseHeaders: ["ETag"],
      ifMatch: true,
      summary: "Rename a workspace, or change its per-source settings",
      description:
        "Fields not sent keep their values; within `sources`, sources not named keep theirs, and a named source keeps the fields not sent (a bridge's " +
        "Authorization value stays only while its URL does). Optional `If-Match` with the `ETag` of a read: a mismatch is 409 `CONFLICT`; without it " +
        "a concurrent change is applied on a fresh read, never lost.",
      tag,
      roles: ["WorkspaceAdmin"],
      params: workspaceParams,
      body: updateWorkspaceBody,
      response: workspaceView,
      problems: ["CONFLICT"],
      async handler(input) {
        const { person, body, workspace } = input;
        const stamp = input.now().toISOString();
        const saved = await commit({
          deadline: input.deadline,
          async read() {
            const found = await input.stores.workspaces.read(workspace.id);
            if (!found || found.value.offboarded) throw notFound("The workspace", "workspaceId");
            if (body.name !== undefined && body.name.toLowerCase() !== found.value.name.toLowerCase() && (await nameTaken(input, found.value.accountId, body.name, found.value.id))) {
              throw new ApiError("CONFLICT", `The organization already has a workspace named "${body.name}".`, { target: "name" });
            }
            return found;
          },
          ifMatch: input.header("if-match"),
          change(draft) {
            const before = { name: draft.name, sources: sourcesSummary(draft.sources) };
            if (body.name !== undefined) draft.name = body.name;
            if (body.sources !== undefined) {
              draft.sources = changedSources(draft.sources, body.sources, { seal: (v) => input.secretBox.seal(v), allowHttp: input.config.workspaceBridgesAllowHttp });
            }
            draft.lastModifiedAt = stamp;
            return [workspaceAudit(input, draft, "WorkspaceUpdated", "Update", { before, after: { name: draft.name, sources: sourcesSummary(draft.sources) } })];
          },
          write: (draft, etag, outbox) => input.stores.workspaces.replace(draft, etag!, outbox),
          outbox: input.events.outbox,
        });
        input.sources.evict(workspace.id);
        return { data: toWorkspaceView(input, person, saved.value), headers: { ETag: saved.etag } };
      },
    }),
    personWorkspaceRoute({
      method: "GET",
      path: "/portal/workspaces/{workspaceId}/integrations",
      summary: "The workspace's integrations: its switches, and which are in effect",
      tag,
      roles: "any",
      params: workspaceParams,
      response: integrationsView,
      async handler(input) {
        return { data: await integrationsOf(input, input.workspace) };
      },
    }),
    personWorkspaceRoute({
      method: "PUT",
      path: "/portal/workspaces/{workspaceId}/integrations",
      summary: "Switch the workspace's integrations: ticketing, directory logs, Log Analytics, playbook automation",
      description:
        "An integration in effect needs both its switch on and the deployment's system for the workspace. Off, its endpoints answer 400 " +
        "`EXTENSION_NOT_ENABLED`; playbook automation off fails the automation steps of runs when they come to run (the incident's own steps still run).",
      tag,
      roles: ["WorkspaceAdmin"],
      params: workspaceParams,
      body: integrationsBody,
      response: integrationsView,
      async handler(input) {
        const switched = await switchIntegrations(input, input.workspace, input.body);
        return { data: await integrationsOf(input, input.workspace, switched) };
      },
    }),
    personWorkspaceRoute({
      method: "DELETE",
      path: "/portal/workspaces/{workspaceId}",
      ifMatch: true,
      summary: "Offboard a workspace: it leaves every listing and route, its audit trail stays",
      description:
        "Runs waiting for approval are denied and runs dispatched or running are cancelled, each audited; then the workspace is marked offboarded. " +
        "From then on every route answers 404 for it, cross-workspace listings and the reconciler leave it out, and its incident state stays untouched " +
        "where it was. Its audit trail stays for its retention, exported by its organization's `Admin`s " +
        "(`GET /portal/organizations/{accountId}/offboarded-workspaces/{offboardedWorkspaceId}/audit`). Optional `If-Match` with the `ETag` of a read.",
      tag,
      roles: ["WorkspaceAdmin"],
      params: offboardParams,
      response: offboardedView,
      problems: ["CONFLICT"],
      async handler(input) {
        const result = await offboardWorkspace(input, input.header("if-match"));
        return { data: result };
      },
    }),
  ],
};

/** Each integration's switch, whether it is in effect, and if not, why. */
async function integrationsOf(input: Parameters<typeof integrationStates>[0], workspace: WorkspaceRecord, switched?: Record<string, boolean>) {
  const states = await integrationStates(input, workspace);
  const stored = switched ?? (await input.stores.integrations.get(workspace.id))?.value.enabled ?? {};
  const stateOf = (name: IntegrationName) => {
    const switchedOn = stored[name] ?? true;
    const notInEffect = states[name] ? null : switchedOn ? missingSystemOf(name, workspace) : "Switched off for this workspace.";
    return { switchedOn, inEffect: states[name], notInEffect };
  };
  return Object.fromEntries(integrationNames.map((name) => [name, stateOf(name)])) as Record<IntegrationName, ReturnType<typeof stateOf>>;
}
