import { organizationRoute } from "../route-kinds";
import type { RouteGroup } from "../../platform/http/route";
import { networkSecurityGroupsOf, resourceGroupsOf, securityInstancesOf, securityInstanceValidity, visibleSubscriptions } from "../../domain/cloud/cloud-lookups";
import {
  networkSecurityGroupList,
  resourceGroupList,
  resourceGroupParams,
  securityInstanceList,
  subscriptionList,
  subscriptionParams,
  VALIDATION_REASON_HEADER,
  VALIDATION_REASON_HEADER_DEFINITION,
  workspaceParams,
  workspaceValidity,
} from "../schemas/cloud-schemas";

const tag = "Cloud resources";
const base = "/azure-resources/subscriptions";

/**
 * Cloud-resource lookups (docs/contract.md §4.3): organization-scoped reads of the cloud estate, limited to the
 * subscriptions configured for the caller's organization. All are reads and need `org:azure:read`;
 * `org:azure:manage` is for changes to the estate, which none of these makes.
 */
export const cloudRoutes: RouteGroup = {
  name: "azure-resources",
  routes: [
    organizationRoute({
      method: "GET",
      path: base,
      summary: "List your organization's cloud subscriptions",
      tag,
      auth: "org:azure:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      response: subscriptionList,
      async handler(input) {
        return { data: await visibleSubscriptions(input, input.principal.organizationAccountIds) };
      },
    }),
    organizationRoute({
      method: "GET",
      path: `${base}/{subscriptionId}/resource-groups`,
      summary: "List the resource groups of a subscription",
      tag,
      auth: "org:azure:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      params: subscriptionParams,
      response: resourceGroupList,
      async handler(input) {
        return { data: await resourceGroupsOf(input, input.principal.organizationAccountIds, input.params.subscriptionId) };
      },
    }),
    organizationRoute({
      method: "GET",
      path: `${base}/{subscriptionId}/resource-groups/{resourceGroup}/sentinels`,
      summary: "List the security instances (workspaces with the security solution onboarded) of a resource group",
      tag,
      auth: "org:azure:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      params: resourceGroupParams,
      response: securityInstanceList,
      async handler(input) {
        return { data: await securityInstancesOf(input, input.principal.organizationAccountIds, input.params) };
      },
    }),
    organizationRoute({
      method: "GET",
      path: `${base}/{subscriptionId}/network-security-groups`,
      summary: "List the network security groups of a subscription",
      tag,
      auth: "org:azure:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      params: subscriptionParams,
      response: networkSecurityGroupList,
      async handler(input) {
        return { data: await networkSecurityGroupsOf(input, input.principal.organizationAccountIds, input.params.subscriptionId) };
      },
    }),
    organizationRoute({
      method: "GET",
      path: `${base}/{subscriptionId}/resource-groups/{resourceGroup}/workspaces/{workspaceName}/validate`,
      summary: "Check that a workspace is a security instance the service can connect",
      tag,
      auth: "org:azure:read",
      problems: ["EXTENSION_NOT_ENABLED"],
      params: workspaceParams,
      response: workspaceValidity,
      responseHeaders: [{ name: VALIDATION_REASON_HEADER, definition: VALIDATION_REASON_HEADER_DEFINITION, when: "`data` is false" }],
      async handler(input) {
        const { reason } = await securityInstanceValidity(input, input.principal.organizationAccountIds, input.params);
        return reason === undefined ? { data: true } : { data: false, headers: { [VALIDATION_REASON_HEADER]: reason } };
      },
    }),
  ],
};
