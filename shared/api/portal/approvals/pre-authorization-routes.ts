import { z } from "zod";
import { ApiError } from "../../../platform/errors/api-error";
import { personWorkspaceRoute, type PersonWorkspaceInput } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import { EXAMPLE_PRE_AUTHORIZATION_ID, EXAMPLE_PRE_AUTHORIZATION_WORKSPACE_ID, EXAMPLE_PRE_AUTHORIZED_PLAYBOOK_ID } from "../../examples/gamebook-examples";
import { catalogueOf } from "../../../domain/gamebooks/gamebook-settings";
import {
  createPreAuthorization,
  preAuthorizationInput,
  preAuthorizationState,
  revokePreAuthorization,
  type PreAuthorizationRecord,
} from "../../../domain/gamebooks/pre-authorizations";
import type { PlaybookCatalogueRecord } from "../../../model/gamebooks/playbook-catalogue-record";

const tag = "Portal: approvals";
const EXAMPLE_PLAYBOOK_ID = EXAMPLE_PRE_AUTHORIZED_PLAYBOOK_ID;
const workspaceParams = z.object({ workspaceId: z.guid().meta({ examples: [EXAMPLE_PRE_AUTHORIZATION_WORKSPACE_ID] }) });
const oneParams = workspaceParams.extend({ preAuthorizationId: z.guid().meta({ examples: [EXAMPLE_PRE_AUTHORIZATION_ID] }) });

const act = z.object({ at: z.string(), byUserId: z.string(), byName: z.string() });

const example = {
  id: EXAMPLE_PRE_AUTHORIZATION_ID,
  playbooks: [{ id: EXAMPLE_PLAYBOOK_ID, name: "Isolate host" }],
  endsAt: "2027-06-30T22:00:00.000Z",
  note: "Isolate hosts without asking while the ransomware campaign lasts.",
  state: "Active",
  created: { at: "2026-11-29T09:00:00.000Z", byUserId: "d58bcce7-2e4a-8a4a-95e4-42bca0a0bc6b", byName: "Jonas Becker" },
  revoked: null,
};

const preAuthorizationView = z
  .object({
    id: z.guid(),
    playbooks: z.array(z.object({ id: z.string(), name: z.string().describe("Its name in the catalogue; its id when it has left the catalogue.") })),
    endsAt: z.string().describe("When it stops applying, by itself."),
    note: z.string().nullable(),
    state: z.enum(["Active", "Expired", "Revoked"]).describe("At the time of the answer: `Expired` once `endsAt` has passed."),
    created: act,
    revoked: act.nullable(),
  })
  .meta({ examples: [example] });

function viewOf(p: PreAuthorizationRecord, catalogue: PlaybookCatalogueRecord, now: Date) {
  return {
    id: p.id,
    playbooks: p.playbookIds.map((id) => ({ id, name: catalogue.playbooks.find((c) => c.id === id)?.name ?? id })),
    endsAt: p.endsAt,
    note: p.note,
    state: preAuthorizationState(p, now),
    created: { ...p.created },
    revoked: p.revoked && { ...p.revoked },
  };
}

/**
 * Only the workspace's own organization records or revokes its pre-authorizations: they waive its own
 * policy, which a provider's people may not waive for it (the provider's own demand is its partner
 * setting, which no pre-authorization waives).
 */
function ownOrganization(input: PersonWorkspaceInput<unknown, unknown, unknown>): { userId: string; name: string } {
  const { person, workspace } = input;
  if (person.accountId !== workspace.accountId) {
    throw new ApiError("FORBIDDEN", "A standing pre-authorization is the workspace's own organization's to record or revoke: a person of the managing provider may not.", {
      target: "workspaceId",
    });
  }
  return { userId: person.userId, name: person.name };
}

/**
 * Standing pre-authorizations of a workspace: playbooks its own organization lets run without asking
 * until a date. Anyone who sees the workspace reads them; its own organization's `Owner` of the
 * workspace, or `Admin`, records and revokes them, each audited with the person as actor.
 */
const playbookChoice = z
  .array(
    z.object({
      id: z.string(),
      name: z.string(),
      isAdminRequired: z.boolean().describe("Whether a run of it waits under the policy's default mode (a playbook that needs an administrator)."),
    }),
  )
  .meta({ examples: [[{ id: EXAMPLE_PLAYBOOK_ID, name: "Isolate host", isAdminRequired: true }]] });

export const preAuthorizationRoutes: RouteGroup = {
  name: "portal-pre-authorizations",
  routes: [
    personWorkspaceRoute({
      method: "GET",
      path: "/portal/workspaces/{workspaceId}/pre-authorizable-playbooks",
      summary: "The playbooks a standing pre-authorization of the workspace may name: its catalogue's, by name",
      description:
        "For the person who records one (the workspace's `Owner`, who may not read the catalogue's settings): each playbook's id, name and whether it " +
        "needs an administrator. Those needing one first.",
      tag,
      roles: "any",
      params: workspaceParams,
      response: playbookChoice,
      async handler(input) {
        const catalogue = await catalogueOf(input, input.workspace.id);
        const choices = catalogue.playbooks.map((p) => ({ id: p.id, name: p.name, isAdminRequired: p.isAdminRequired }));
        choices.sort((a, b) => Number(b.isAdminRequired) - Number(a.isAdminRequired) || a.name.localeCompare(b.name));
        return { data: choices };
      },
    }),
    personWorkspaceRoute({
      method: "GET",
      path: "/portal/workspaces/{workspaceId}/pre-authorizations",
      summary: "The workspace's standing pre-authorizations: playbooks that run without asking until a date",
      description: "Newest first, those ended (expired or revoked) included for 90 days after their end.",
      tag,
      roles: "any",
      params: workspaceParams,
      response: z.array(preAuthorizationView).meta({ examples: [[example]] }),
      async handler(input) {
        const catalogue = await catalogueOf(input, input.workspace.id);
        const now = input.now();
        const list = [...(input.workspace.preAuthorizations ?? [])].sort((a, b) => b.created.at.localeCompare(a.created.at));
        return { data: list.map((p) => viewOf(p, catalogue, now)) };
      },
    }),
    personWorkspaceRoute({
      method: "POST",
      path: "/portal/workspaces/{workspaceId}/pre-authorizations",
      idempotencyKey: true,
      summary: "Record a standing pre-authorization: these playbooks run on this workspace without asking until its end",
      description:
        "A run of only these playbooks is then let past the workspace's own approval policy, and records which pre-authorization let it through; " +
        "the managing provider's partner setting, and a caller's `isQueued: true`, still make it wait. It ends by itself at `endsAt`. " +
        "Only the workspace's own organization records one (403 for a person of the managing provider). Audited.",
      tag,
      roles: "any",
      workspaceRole: "Owner",
      adminWithoutWorkspaceRole: true,
      params: workspaceParams,
      body: preAuthorizationInput.meta({
        examples: [{ playbookIds: [EXAMPLE_PLAYBOOK_ID], endsAt: "2027-06-30T22:00:00Z", note: "Isolate hosts without asking while the ransomware campaign lasts." }],
      }),
      response: preAuthorizationView,
      successStatus: 201,
      responseHeaders: ["Location"],
      problems: ["FORBIDDEN", "CONFLICT"],
      async handler(input) {
        const by = ownOrganization(input);
        const { record } = await createPreAuthorization(input, input.workspace, input.body, by);
        const catalogue = await catalogueOf(input, input.workspace.id);
        return {
          status: 201,
          data: viewOf(record, catalogue, input.now()),
          headers: { Location: `${input.origin}/api/v2/portal/workspaces/${input.workspace.id}/pre-authorizations/${record.id}` },
        };
      },
    }),
    personWorkspaceRoute({
      method: "GET",
      path: "/portal/workspaces/{workspaceId}/pre-authorizations/{preAuthorizationId}",
      summary: "One standing pre-authorization",
      tag,
      roles: "any",
      params: oneParams,
      response: preAuthorizationView,
      async handler(input) {
        const found = (input.workspace.preAuthorizations ?? []).find((p) => p.id === input.params.preAuthorizationId.toLowerCase());
        if (!found) throw new ApiError("NOT_FOUND", "The pre-authorization was not found.", { target: "preAuthorizationId" });
        return { data: viewOf(found, await catalogueOf(input, input.workspace.id), input.now()) };
      },
    }),
    personWorkspaceRoute({
      method: "POST",
      path: "/portal/workspaces/{workspaceId}/pre-authorizations/{preAuthorizationId}/revoke",
      summary: "Revoke a standing pre-authorization: runs ask again from now on",
      description: "It stays listed, revoked. 409 when it is revoked or ended already. Only the workspace's own organization revokes (403 otherwise). Audited.",
      tag,
      roles: "any",
      workspaceRole: "Owner",
      adminWithoutWorkspaceRole: true,
      params: oneParams,
      response: preAuthorizationView,
      problems: ["FORBIDDEN", "CONFLICT"],
      async handler(input) {
        const by = ownOrganization(input);
        const revoked = await revokePreAuthorization(input, input.workspace, input.params.preAuthorizationId, by);
        return { data: viewOf(revoked, await catalogueOf(input, input.workspace.id), input.now()) };
      },
    }),
  ],
};
