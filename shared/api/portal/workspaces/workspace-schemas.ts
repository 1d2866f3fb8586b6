import { approvalModes } from "../../../model/gamebooks/approval-mode";
import { z } from "zod";
import { sources, type Source } from "../../../model/sources";
import { workspaceRoles } from "../../../model/organizations/roles";
import { integrationNames } from "../../../model/organizations/workspace-integrations";
import { workspaceParams as securityInstanceRef } from "../../schemas/cloud-schemas";
import {
  EXAMPLE_CUSTOMER_ACCOUNT_ID,
  EXAMPLE_CUSTOMER_TENANT_ID,
  EXAMPLE_RETIRED_WORKSPACE_ID,
  EXAMPLE_WORKSPACE_ID,
  EXAMPLE_WORKSPACE_NAME,
} from "../../../platform/http/examples";

/** One object with a member per source, each of `schema`: the record zod would make must name every key. */
function perSource<S extends z.ZodType>(schema: S) {
  return Object.fromEntries(sources.map((s) => [s, schema])) as Record<Source, S>;
}

const bridgeView = z
  .object({
    url: z.string(),
    hasAuthorization: z.boolean().describe("Whether an Authorization value is kept for the bridge; the value itself is never returned."),
  })
  .describe("The workspace's own bridge for the source (docs/vendor-bridge.md).");

const sourceView = z.object({
  enabled: z.boolean().describe("Off: the workspace's calls of this source answer 400 `EXTENSION_NOT_ENABLED`, and the reconciler passes it over."),
  vendorWorkspaceId: z.string().nullable().describe("The vendor's own identifier of the workspace, sent wherever the bridge protocol names the workspace; null: the workspace's id."),
  bridge: bridgeView.nullable().describe("Null: the deployment's system for the source serves the workspace."),
  inEffect: z.boolean().describe("Whether the workspace's calls of this source reach a system: on, and its own bridge or the deployment's."),
});

const offSource = { enabled: false, vendorWorkspaceId: null, bridge: null, inEffect: false };
const deploymentSource = { enabled: true, vendorWorkspaceId: null, bridge: null, inEffect: true };

const workspaceExample = {
  id: EXAMPLE_WORKSPACE_ID,
  name: EXAMPLE_WORKSPACE_NAME,
  accountId: EXAMPLE_CUSTOMER_ACCOUNT_ID,
  tenantId: EXAMPLE_CUSTOMER_TENANT_ID,
  azureId: `/subscriptions/45b7d4ce-07da-8954-b2fc-619b876709f7/resourceGroups/rg-fabrikam-security-par/providers/Microsoft.OperationalInsights/workspaces/${EXAMPLE_WORKSPACE_NAME}`,
  sources: {
    SourceA: { enabled: true, vendorWorkspaceId: "fabrikam-prod-7c1e", bridge: { url: "https://bridge.fabrikam.example/source-a", hasAuthorization: true }, inEffect: true },
    SourceB: deploymentSource,
    SourceC: deploymentSource,
    SourceD: deploymentSource,
    SourceE: deploymentSource,
    SourceF: deploymentSource,
    SourceG: offSource,
  },
  workspaceRole: "Owner",
  createdAt: "2026-03-02T08:00:00.000Z",
  lastModifiedAt: "2026-11-25T09:30:00.000Z",
};

export const workspaceView = z
  .object({
    id: z.guid(),
    name: z.string(),
    accountId: z.guid().describe("The organization it belongs to."),
    tenantId: z.string().describe("The directory tenant of the workspace's organization."),
    azureId: z
      .string()
      .nullable()
      .describe("The full Azure Resource Manager id of the security instance the workspace was onboarded from (its `id` is the instance's); null when it was onboarded by hand."),
    sources: z.object(perSource(sourceView)).describe("Every source, as the workspace uses it."),
    workspaceRole: z.enum(workspaceRoles).nullable().describe("Your own role on the workspace; null when you act on it through an organization-wide role."),
    createdAt: z.iso.datetime().nullable(),
    lastModifiedAt: z.iso.datetime().nullable(),
  })
  .meta({ examples: [workspaceExample] });

export type WorkspaceView = z.infer<typeof workspaceView>;

export const workspaceList = z.array(workspaceView).meta({ examples: [[workspaceExample]] });

export const listWorkspacesQuery = z.strictObject({
  accountId: z.guid().optional().describe("Only this organization's workspaces."),
});

/** A printable header value: no line breaks or controls, which could end the header early. */
const headerValue = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[\x20-\x7e]+$/, "Must be printable ASCII: a header value, with no line breaks.");

const bridgeInput = z
  .strictObject({
    url: z.string().trim().min(1).max(2048).describe("The bridge's base URL for this source (HTTPS), without credentials, query or fragment."),
    authorization: headerValue
      .nullable()
      .optional()
      .describe(
        "The whole Authorization header value the bridge expects (`Bearer <token>`), kept sealed and never returned. Absent: the one kept stays while the URL stays the same; null: none.",
      ),
  })
  .describe("The workspace's own bridge for the source; null: back to the deployment's.");

export const sourceInput = z
  .strictObject({
    enabled: z.boolean().optional().describe("Off: the workspace's calls of this source answer EXTENSION_NOT_ENABLED."),
    vendorWorkspaceId: z.string().trim().min(1).max(256).nullable().optional().describe("The vendor's own identifier of the workspace; null: the workspace's id."),
    bridge: bridgeInput.nullable().optional(),
  })
  .describe("Fields not sent keep their values (a new workspace's: on, the deployment's system, its own id).");

export type SourceInput = z.output<typeof sourceInput>;

export const sourcesInput = z
  .strictObject(Object.fromEntries(sources.map((s) => [s, sourceInput.optional()])) as Record<Source, z.ZodOptional<typeof sourceInput>>)
  .describe("Per source, by its name; a source not named keeps its settings.");

export type SourcesInput = z.output<typeof sourcesInput>;

export const onboardWorkspaceBody = z
  .strictObject({
    securityInstance: securityInstanceRef
      .optional()
      .describe(
        "The security instance the workspace is onboarded from, as the cloud lookups (`GET /portal/azure-resources/subscriptions/…`) found it: the workspace's id is " +
          "then the instance's Log Analytics workspace id, as the contract's security instances say (docs/contract.md §2.12). It must pass the check of " +
          "`…/workspaces/{workspaceName}/validate`: 400 at the field that fails, 409 when a workspace already has its id. Absent: the workspace is typed by hand " +
          "(a vendor reached through a bridge) and gets a new id.",
      ),
    name: z.string().trim().min(1).max(128).describe("Unique within its organization (case-insensitive)."),
    accountId: z.guid().describe("The organization it belongs to: yours, or one your organization manages; it must be active."),
    tenantId: z.guid().describe("The directory tenant of the workspace's organization."),
    sources: sourcesInput.optional(),
    approvalMode: z
      .enum(approvalModes)
      .default("AdminRequiredPlaybooks")
      .describe(
        "The workspace's approval policy from its first minute: by default runs with a playbook that needs an administrator (revoke sessions, reset a " +
          "password, isolate a host) wait for an Owner's approval, so no containment runs on a new customer without someone deciding. `NoApproval` " +
          "must be asked for. Change it later with `PUT /portal/workspaces/{workspaceId}/approval-policy`.",
      ),
  })
  .meta({
    examples: [
      {
        name: "fabrikam-sentinel-dev",
        approvalMode: "AdminRequiredPlaybooks",
        accountId: EXAMPLE_CUSTOMER_ACCOUNT_ID,
        tenantId: EXAMPLE_CUSTOMER_TENANT_ID,
        sources: {
          SourceA: { enabled: true, vendorWorkspaceId: "fabrikam-dev-41b2", bridge: { url: "https://bridge.fabrikam.example/source-a", authorization: "Bearer fabrikam-dev-bridge-token" } },
          SourceG: { enabled: false },
        },
      },
      {
        securityInstance: { subscriptionId: "f01e08e1-ea70-8008-9ea0-c50f1da40530", resourceGroup: "rg-fabrikam-dev-par", workspaceName: "fabrikam-sentinel-dev" },
        name: "fabrikam-sentinel-dev",
        accountId: EXAMPLE_CUSTOMER_ACCOUNT_ID,
        tenantId: EXAMPLE_CUSTOMER_TENANT_ID,
      },
    ],
  });

export const updateWorkspaceBody = z
  .strictObject({
    name: z.string().trim().min(1).max(128).optional(),
    sources: sourcesInput.optional(),
  })
  .refine((b) => b.name !== undefined || b.sources !== undefined, { message: "Name at least one field to change: name, sources.", path: [] })
  .meta({ anyOf: [{ required: ["name"] }, { required: ["sources"] }], examples: [{ sources: { SourceG: { enabled: false } } }] });

export const workspaceParams = z.object({
  workspaceId: z.guid().describe("The workspace's id.").meta({ examples: [EXAMPLE_WORKSPACE_ID] }),
});

/** The offboarding example acts on the demo's retired workspace, brought back at every start. */
export const offboardParams = z.object({
  workspaceId: z.guid().describe("The workspace's id.").meta({ examples: [EXAMPLE_RETIRED_WORKSPACE_ID] }),
});

const integrationState = z.object({
  switchedOn: z.boolean().describe("The workspace's own switch."),
  inEffect: z.boolean().describe("Switched on, and the deployment has the system for the workspace."),
  notInEffect: z
    .string()
    .nullable()
    .describe("Why it is not in effect: switched off here, or what the deployment lacks for the workspace and the setting that provides it; null when in effect."),
});

export const integrationsView = z
  .object(Object.fromEntries(integrationNames.map((n) => [n, integrationState])) as Record<(typeof integrationNames)[number], typeof integrationState>)
  .meta({
    examples: [
      {
        ticketing: { switchedOn: true, inEffect: true, notInEffect: null },
        directoryLogs: { switchedOn: true, inEffect: true, notInEffect: null },
        logAnalytics: { switchedOn: true, inEffect: false, notInEffect: "The deployment maps no Log Analytics workspace to this workspace (LOG_ANALYTICS_WORKSPACES)." },
        playbookAutomation: { switchedOn: false, inEffect: false, notInEffect: "Switched off for this workspace." },
      },
    ],
  });

/** An integration's switch: a boolean, or the read's `{switchedOn}`, so that what GET shows can be sent back. */
const integrationSwitch = z
  .union([z.boolean(), z.strictObject({ switchedOn: z.boolean() })])
  .transform((s) => (typeof s === "boolean" ? s : s.switchedOn));

export const integrationsBody = z
  .strictObject(Object.fromEntries(integrationNames.map((n) => [n, integrationSwitch.optional()])) as Record<(typeof integrationNames)[number], z.ZodOptional<typeof integrationSwitch>>)
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: `Name at least one integration: ${integrationNames.join(", ")}.`, path: [] })
  .describe(
    "Integrations not named keep their switch. Each named one is `true` or `false`, or `{switchedOn}` as a read shows it (without `inEffect` and `notInEffect`, which are the service's to say). " +
      "Playbook automation off: the automation steps of runs fail, the incident's own steps still run.",
  )
  .meta({ minProperties: 1, examples: [{ ticketing: true }] });

export const offboardedView = z
  .object({
    id: z.guid(),
    offboardedAt: z.iso.datetime(),
    runsDenied: z.int().describe("Runs that were waiting for approval, now Denied."),
    runsCancelled: z.int().describe("Runs dispatched or running, now Cancelled (a playbook already in the automation backend is not called back)."),
  })
  .meta({ examples: [{ id: EXAMPLE_RETIRED_WORKSPACE_ID, offboardedAt: "2026-11-25T10:00:00.000Z", runsDenied: 0, runsCancelled: 0 }] });
