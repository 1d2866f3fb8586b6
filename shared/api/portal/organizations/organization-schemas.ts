import { z } from "zod";
import { approvalModes } from "../../../model/gamebooks/approval-mode";
import { isActiveAccount, type AccountRecord } from "../../../model/organizations/account";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";
import {
  EXAMPLE_CUSTOMER_ACCOUNT_ID,
  EXAMPLE_CUSTOMER_TENANT_ID,
  EXAMPLE_PROVIDER_ACCOUNT_ID,
  EXAMPLE_PROVIDER_ACCOUNT_NAME,
  EXAMPLE_OFFBOARDED_WORKSPACE_ID,
  EXAMPLE_USER,
} from "../../../platform/http/examples";

const customerExample = {
  id: EXAMPLE_CUSTOMER_ACCOUNT_ID,
  name: "Fabrikam Retail",
  kind: "Customer",
  managedByAccountId: EXAMPLE_PROVIDER_ACCOUNT_ID,
  isActive: true,
  deactivatedAt: null,
  createdAt: "2026-03-02T08:00:00.000Z",
  lastModifiedAt: "2026-03-02T08:00:00.000Z",
};
const providerExample = { ...customerExample, id: EXAMPLE_PROVIDER_ACCOUNT_ID, name: EXAMPLE_PROVIDER_ACCOUNT_NAME, kind: "ServiceProvider", managedByAccountId: null };

export const organizationView = z
  .object({
    id: z.guid(),
    name: z.string(),
    kind: z.enum(["ServiceProvider", "Customer"]).describe("A service provider manages customer organizations; a customer is managed by one, or by nobody."),
    managedByAccountId: z.guid().nullable().describe("The service provider managing it; null for a provider, or a customer on its own."),
    isActive: z
      .boolean()
      .describe("False once deactivated: its own service accounts and people are refused at authentication, and no workspace can be onboarded into it. Its provider still sees and manages it."),
    deactivatedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime().nullable().describe("Null for organizations created before the service kept it."),
    lastModifiedAt: z.iso.datetime().nullable(),
  })
  .meta({ examples: [customerExample] });

export type OrganizationView = z.infer<typeof organizationView>;

export function toOrganizationView(account: AccountRecord): OrganizationView {
  return {
    id: account.id,
    name: account.name,
    kind: account.kind,
    managedByAccountId: account.managedByAccountId,
    isActive: isActiveAccount(account),
    deactivatedAt: account.deactivated?.at ?? null,
    createdAt: account.createdAt ?? null,
    lastModifiedAt: account.lastModifiedAt ?? null,
  };
}

export const organizationList = z.array(organizationView).meta({ examples: [[providerExample, customerExample]] });

const organizationName = z.string().trim().min(1).max(256).describe("Unique among the organizations of one service provider (case-insensitive).");

export const createOrganizationBody = z.strictObject({ name: organizationName }).meta({ examples: [{ name: "Woodgrove Bank" }] });

export const updateOrganizationBody = z
  .strictObject({
    name: organizationName.optional(),
    isActive: z.boolean().optional().describe("Deactivate (false) or reactivate (true) an organization your own organization manages; never your own."),
  })
  .refine((b) => b.name !== undefined || b.isActive !== undefined, { message: "Name at least one field to change: name, isActive.", path: [] })
  .meta({ anyOf: [{ required: ["name"] }, { required: ["isActive"] }], examples: [{ name: "Fabrikam Retail" }] });

export const accountParams = z.object({
  accountId: z.guid().describe("The organization's account id.").meta({ examples: [EXAMPLE_CUSTOMER_ACCOUNT_ID] }),
});

export const providerParams = z.object({
  accountId: z.guid().describe("The service provider's account id.").meta({ examples: [EXAMPLE_PROVIDER_ACCOUNT_ID] }),
});

export const partnerApprovalView = z
  .object({
    mode: z.enum(approvalModes),
    accountIds: z.array(z.guid()).describe("The managed organizations it covers; empty means every one the provider manages."),
  })
  .meta({ examples: [{ mode: "AdminRequiredPlaybooks", accountIds: [EXAMPLE_CUSTOMER_ACCOUNT_ID] }] });

export const partnerApprovalBody = z
  .strictObject({
    mode: z.enum(approvalModes),
    accountIds: z.array(z.guid()).max(1000).default([]).describe("Organizations the provider manages; empty or absent: every one."),
  })
  .meta({ examples: [{ mode: "AdminRequiredPlaybooks", accountIds: [EXAMPLE_CUSTOMER_ACCOUNT_ID] }] });

export const offboardedWorkspaceView = z
  .object({
    id: z.guid(),
    name: z.string(),
    accountId: z.guid(),
    tenantId: z.string(),
    offboardedAt: z.iso.datetime(),
    offboardedBy: z.object({ userId: z.guid(), name: z.string() }),
  })
  .meta({
    examples: [
      {
        id: EXAMPLE_OFFBOARDED_WORKSPACE_ID,
        name: "fabrikam-sentinel-2019",
        accountId: EXAMPLE_CUSTOMER_ACCOUNT_ID,
        tenantId: EXAMPLE_CUSTOMER_TENANT_ID,
        offboardedAt: "2026-08-27T10:00:00.000Z",
        offboardedBy: { userId: EXAMPLE_USER.id, name: EXAMPLE_USER.displayName },
      },
    ],
  });

export function toOffboardedWorkspaceView(workspace: WorkspaceRecord): z.infer<typeof offboardedWorkspaceView> {
  const offboarded = workspace.offboarded!;
  return {
    id: workspace.id,
    name: workspace.name,
    accountId: workspace.accountId,
    tenantId: workspace.tenantId,
    offboardedAt: offboarded.at,
    offboardedBy: { userId: offboarded.byUserId, name: offboarded.byName },
  };
}

export const offboardedAuditParams = providerParams.extend({
  accountId: z.guid().describe("The offboarded workspace's organization (one of yours).").meta({ examples: [EXAMPLE_CUSTOMER_ACCOUNT_ID] }),
  offboardedWorkspaceId: z.guid().describe("The offboarded workspace's id.").meta({ examples: [EXAMPLE_OFFBOARDED_WORKSPACE_ID] }),
});

export const offboardedAuditQuery = z.strictObject({
  pageSize: z.coerce.number().int().min(1).max(1000).default(100).describe("Events per page, 1 to 1,000."),
  continuationToken: z.string().min(1).max(4096).optional().describe("The `pagination.continuationToken` of the previous page, unmodified: where to go on."),
});

/** An audit event as the contract's export shows it (docs/contract.md §2.12). */
const auditEventSchema = z.object({
  id: z.string(),
  timeGenerated: z.string(),
  workspaceId: z.string(),
  discriminator: z.string(),
  activityType: z.string(),
  activityAction: z.string(),
  actorId: z.string(),
  targetResourceType: z.string(),
  targetResourceId: z.string(),
  actorName: z.string(),
  actorEmail: z.string(),
  targetResourceName: z.string(),
  metadata: z.string().describe("JSON text of what changed; never a secret."),
});

/** The trail's events in the order they were recorded, as the contract's audit export shows them. */
export const offboardedAuditPage = z.array(auditEventSchema).meta({
  examples: [
    [
      {
        id: "3f6c1a9e-8b2d-4e7f-a5c3-9d1b7e2f4a60",
        timeGenerated: "2026-08-27T10:00:00.000Z",
        workspaceId: EXAMPLE_OFFBOARDED_WORKSPACE_ID,
        discriminator: "Workspace",
        activityType: "WorkspaceOffboarded",
        activityAction: "Delete",
        actorId: EXAMPLE_USER.id,
        targetResourceType: "Workspace",
        targetResourceId: EXAMPLE_OFFBOARDED_WORKSPACE_ID,
        actorName: EXAMPLE_USER.displayName,
        actorEmail: EXAMPLE_USER.email,
        targetResourceName: "fabrikam-sentinel-2019",
        metadata: "{\"runsDenied\":0,\"runsCancelled\":0}",
      },
    ],
  ],
});
