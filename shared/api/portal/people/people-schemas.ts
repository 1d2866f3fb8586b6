import { z } from "zod";
import { pageQueryFields } from "../../../platform/http/paging";
import { organizationalRoles, workspaceRoles } from "../../../model/organizations/roles";
import type { UserRecord } from "../../../model/organizations/user";
import {
  EXAMPLE_ANALYST,
  EXAMPLE_LEAVING_USER,
  EXAMPLE_PROVIDER_ACCOUNT_ID,
  EXAMPLE_PROVIDER_TENANT_ID,
  EXAMPLE_WORKSPACE_ID,
} from "../../../platform/http/examples";

const workspaceRoleEntry = z.object({ workspaceId: z.guid(), role: z.enum(workspaceRoles) });

const personExample = {
  userId: EXAMPLE_ANALYST.id,
  tenantId: EXAMPLE_PROVIDER_TENANT_ID,
  displayName: EXAMPLE_ANALYST.displayName,
  email: EXAMPLE_ANALYST.email,
  accountId: EXAMPLE_PROVIDER_ACCOUNT_ID,
  organizationalRole: "Member",
  workspaceRoles: [{ workspaceId: EXAMPLE_WORKSPACE_ID, role: "Analyst" }],
  isActive: true,
  sessionsValidFrom: null,
  createdAt: "2026-03-02T08:00:00.000Z",
  lastModifiedAt: "2026-03-02T08:00:00.000Z",
};

export const personView = z
  .object({
    userId: z.guid().describe("The person's object id in their directory."),
    tenantId: z.string().describe("Their directory tenant."),
    displayName: z.string(),
    email: z.string(),
    accountId: z.guid().describe("The organization they are registered in."),
    organizationalRole: z.enum(organizationalRoles),
    workspaceRoles: z.array(workspaceRoleEntry),
    isActive: z.boolean(),
    sessionsValidFrom: z.iso.datetime().nullable().describe("Portal sessions that began before this instant are over (sign-out everywhere, deactivation)."),
    createdAt: z.iso.datetime(),
    lastModifiedAt: z.iso.datetime(),
  })
  .meta({ examples: [personExample] });

export type PersonView = z.infer<typeof personView>;

export function toPersonView(user: UserRecord): PersonView {
  return {
    userId: user.id,
    tenantId: user.tenantId,
    displayName: user.displayName,
    email: user.email,
    accountId: user.accountId,
    organizationalRole: user.organizationalRole,
    workspaceRoles: (user.workspaceAssignments ?? []).map((a) => ({ workspaceId: a.workspaceId, role: a.role })),
    isActive: user.isActive,
    sessionsValidFrom: user.sessionsValidFrom ?? null,
    createdAt: user.createdAt,
    lastModifiedAt: user.lastModifiedAt,
  };
}

export const peopleList = z.array(personView).meta({ examples: [[personExample]] });

export const listPeopleQuery = z.strictObject({
  accountId: z.guid().optional().describe("Only this organization's people."),
  email: z.string().trim().min(1).max(320).optional().describe("Exact e-mail address, case-insensitive."),
  role: z.enum(organizationalRoles).optional().describe("Only people with this organizational role."),
  ...pageQueryFields,
});

export const userIdParams = z.object({
  userId: z.guid().describe("The person's object id in their directory.").meta({ examples: [EXAMPLE_ANALYST.id] }),
});

/** Signing out everywhere acts on the demo's leaving analyst, so the example ends nobody else's sessions. */
export const signOutParams = z.object({
  userId: z.guid().describe("The person's object id in their directory.").meta({ examples: [EXAMPLE_LEAVING_USER.id] }),
});

export const personQuery = z.strictObject({
  accountId: z.guid().optional().describe("Which organization's registration, when the person is registered in more than one of yours; default: the first of yours."),
});

export const putPersonBody = z
  .strictObject({
    displayName: z.string().trim().min(1).max(256),
    email: z.email().max(320).describe("Unique within the organization."),
    tenantId: z.guid().describe("The directory tenant the person signs in from."),
    accountId: z.guid().describe("The organization to register them in: yours, or one your organization manages."),
    organizationalRole: z.enum(organizationalRoles).describe("Only an `Admin` grants or takes away `Admin`; nobody changes their own."),
    workspaceRoles: z
      .array(workspaceRoleEntry)
      .max(1000)
      .default([])
      .describe("Their roles on workspaces of that organization (its provider's included); the list replaces what they had."),
    isActive: z
      .boolean()
      .optional()
      .describe("False deactivates them and ends their sessions at once; nobody deactivates themselves. Left out: a new registration is active, an existing one stays as it is."),
  })
  .meta({
    examples: [
      {
        displayName: EXAMPLE_ANALYST.displayName,
        email: EXAMPLE_ANALYST.email,
        tenantId: EXAMPLE_PROVIDER_TENANT_ID,
        accountId: EXAMPLE_PROVIDER_ACCOUNT_ID,
        organizationalRole: "Member",
        workspaceRoles: [{ workspaceId: EXAMPLE_WORKSPACE_ID, role: "Analyst" }],
        isActive: true,
      },
    ],
  });

export const signedOutView = z
  .object({
    userId: z.guid(),
    sessionsValidFrom: z.iso.datetime().describe("Every portal session of the person that began before this instant is over."),
    registrations: z.int().describe("The person's registrations the sign-out was recorded on (one per organization they are registered in)."),
  })
  .meta({ examples: [{ userId: EXAMPLE_LEAVING_USER.id, sessionsValidFrom: "2026-11-25T10:00:00.000Z", registrations: 1 }] });
