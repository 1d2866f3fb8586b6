import { z } from "zod";
import type { HeaderDefinition } from "../../platform/http/documented-headers";
import { validationReasons } from "../../domain/cloud/cloud-lookups";

// Examples are the local host's own answers for the default DEMO_SEED (the Fabrikam Retail production
// subscription); test/api/cloud-resources.test.ts holds them to what the simulated estate serves.
const SUBSCRIPTION = "45b7d4ce-07da-8954-b2fc-619b876709f7";
const GROUP = "rg-fabrikam-security-par";
const GROUP_ARM_ID = `/subscriptions/${SUBSCRIPTION}/resourceGroups/${GROUP}`;

// ---------------------------------------------------------------------------------------------------
// Path parameters
// ---------------------------------------------------------------------------------------------------

const subscriptionId = z
  .guid("A subscription id is a GUID.")
  .describe("The Azure subscription id (a GUID).")
  .meta({ examples: [SUBSCRIPTION] });

/**
 * Azure's rule for resource group names: 1 to 90 letters, digits, underscores, hyphens, periods and
 * parentheses (Unicode letters and digits included), not ending with a period. Checked by a
 * refinement rather than a regex check, because a regex check is published as the schema's `pattern`
 * and this one needs Unicode classes, which a reference page's "try it" form would apply without the
 * Unicode flag and so refuse ordinary names.
 */
const RESOURCE_GROUP_NAME = /^[-\p{L}\p{Mn}\p{Nd}\p{Pc}.()]{0,89}[-\p{L}\p{Mn}\p{Nd}\p{Pc}()]$/u;
const resourceGroup = z
  .string()
  .refine(
    (name) => RESOURCE_GROUP_NAME.test(name),
    "A resource group name is 1 to 90 letters, digits, underscores, hyphens, periods and parentheses, and does not end with a period.",
  )
  .describe(
    "The resource group's name, compared without regard to case as Azure does: 1 to 90 letters, digits, underscores, hyphens, periods and parentheses, not ending with a period.",
  )
  .meta({ examples: [GROUP] });

/** Log Analytics workspace names: 4 to 63 letters, digits and hyphens, starting and ending with a letter or digit. */
const workspaceName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9-]{2,61}[A-Za-z0-9]$/,
    "A workspace name is 4 to 63 letters, digits and hyphens, and starts and ends with a letter or digit.",
  )
  .describe("The Log Analytics workspace's name.")
  .meta({ examples: ["fabrikam-sentinel-prod"] });

export const subscriptionParams = z.object({ subscriptionId }).strict();
export const resourceGroupParams = z.object({ subscriptionId, resourceGroup }).strict();
export const workspaceParams = z.object({ subscriptionId, resourceGroup, workspaceName }).strict();

// ---------------------------------------------------------------------------------------------------
// Records (docs/contract.md §2.12)
// ---------------------------------------------------------------------------------------------------

const location = z.string().describe("Azure region name, e.g. `westeurope`.");

const subscriptionExample = { id: SUBSCRIPTION, displayName: "Fabrikam Retail - Production" };
export const subscriptionView = z
  .object({
    id: z.string().describe("The subscription id (a GUID, lower case): the same in Azure and in this service."),
    displayName: z.string(),
  })
  .describe("A cloud subscription.")
  .meta({ examples: [subscriptionExample] });

const resourceGroupExample = { id: "64f81938-97bd-8092-a417-92f318b0b2e2", name: GROUP, azureId: GROUP_ARM_ID, location: "francecentral" };
export const resourceGroupView = z
  .object({
    id: z
      .string()
      .describe(
        "The service's own id of the resource group: a GUID derived from its full ARM resource id (lower-cased), so the same group always has the same id. Not an Azure identifier.",
      ),
    name: z.string(),
    azureId: z.string().describe("The full Azure Resource Manager resource id: `/subscriptions/{subscriptionId}/resourceGroups/{name}`."),
    location,
  })
  .describe("A cloud resource group.")
  .meta({ examples: [resourceGroupExample] });

const securityInstanceExample = {
  id: "33873265-ff9f-864c-b501-d00077f35d2a",
  name: "fabrikam-sentinel-prod",
  azureId: `${GROUP_ARM_ID}/providers/Microsoft.OperationalInsights/workspaces/fabrikam-sentinel-prod`,
  location: "francecentral",
};
export const securityInstanceView = z
  .object({
    id: z
      .string()
      .describe(
        "The service's own id of the security instance: the Log Analytics workspace id (a GUID, the workspace's `customerId`), which is the `workspaceId` the workspace has in this service's `/workspaces/{workspaceId}` paths.",
      ),
    name: z.string().describe("The Log Analytics workspace's name."),
    azureId: z
      .string()
      .describe("The full Azure Resource Manager resource id of the workspace: `/subscriptions/…/resourceGroups/…/providers/Microsoft.OperationalInsights/workspaces/{name}`."),
    location,
  })
  .describe("A security instance: a Log Analytics workspace with the security solution onboarded.")
  .meta({ examples: [securityInstanceExample] });

const nsgExample = {
  id: `/subscriptions/${SUBSCRIPTION}/resourceGroups/rg-fabrikam-network-par/providers/Microsoft.Network/networkSecurityGroups/nsg-fabrikam-web-par`,
  name: "nsg-fabrikam-web-par",
  location: "francecentral",
};
export const networkSecurityGroupView = z
  .object({
    id: z
      .string()
      .describe(
        "The full Azure Resource Manager resource id of the network security group (the record has no `azureId`: names repeat across resource groups, this id does not).",
      ),
    name: z.string(),
    location,
  })
  .describe("A network security group.")
  .meta({ examples: [nsgExample] });

export const subscriptionList = z
  .array(subscriptionView)
  .describe("The subscriptions your organization may see that the service can read, by display name.")
  .meta({ examples: [[subscriptionExample, { id: "f01e08e1-ea70-8008-9ea0-c50f1da40530", displayName: "Fabrikam Retail - Development" }]] });

export const resourceGroupList = z.array(resourceGroupView).describe("The subscription's resource groups, by name.").meta({ examples: [[resourceGroupExample]] });

export const securityInstanceList = z
  .array(securityInstanceView)
  .describe("The resource group's Log Analytics workspaces that have the security solution (Sentinel onboarding state) onboarded, by name. Workspaces without it are left out.")
  .meta({ examples: [[securityInstanceExample]] });

export const networkSecurityGroupList = z
  .array(networkSecurityGroupView)
  .describe("The subscription's network security groups across its resource groups, by name.")
  .meta({ examples: [[nsgExample]] });

export const VALIDATION_REASON_HEADER = "X-Validation-Reason";

/** `X-Validation-Reason` as the OpenAPI document describes it. */
export const VALIDATION_REASON_HEADER_DEFINITION: HeaderDefinition = {
  description: "Why the workspace is not valid: `WorkspaceNotFound` (no workspace of that name in the resource group) or `NotOnboarded` (the workspace exists without the security solution).",
  schema: { type: "string", enum: [...validationReasons] },
  example: "NotOnboarded",
};

export const workspaceValidity = z
  .boolean()
  .describe(
    "True when the resource group holds a Log Analytics workspace of this name with the security solution onboarded, i.e. a security instance the service can connect. " +
      `When false, the \`${VALIDATION_REASON_HEADER}\` response header says why: \`WorkspaceNotFound\` (no workspace of that name in the group) or \`NotOnboarded\` (the workspace exists without the security solution). ` +
      "An unknown subscription or resource group is 404, an illegal name 400.",
  )
  .meta({ examples: [true, false] });
