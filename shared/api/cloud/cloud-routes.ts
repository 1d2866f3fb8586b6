import type { z } from "zod";
import { notFound } from "../../platform/errors/api-error";
import type { CloudResourceGroup, LogAnalyticsWorkspace, NetworkSecurityGroup } from "../../systems/cloud-inventory/port";
import { organizationRoute, type RequestContext, type RouteGroup } from "../../platform/http/route";
import { derivedGuid } from "../../platform/ids/derived-guid";
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
  type networkSecurityGroupView,
  type resourceGroupView,
  type securityInstanceView,
  type ValidationReason,
} from "./cloud-schemas";

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
        const cloud = input.cloud;
        const visible = cloud.subscriptionsVisibleTo(input.principal.organizationAccountIds);
        const all = visible.size === 0 ? [] : await cloud.listSubscriptions(input.signal);
        const data = all
          .filter((s) => visible.has(s.subscriptionId))
          .map((s) => ({ id: s.subscriptionId, displayName: s.displayName }))
          .sort((a, b) => byText(a.displayName, b.displayName) || byText(a.id, b.id));
        return { data };
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
        const subscriptionId = visibleSubscription(input, input.params.subscriptionId);
        const groups = await input.cloud.listResourceGroups(subscriptionId, input.signal);
        return { data: groups.map(toResourceGroupView).sort(byName) };
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
        const subscriptionId = visibleSubscription(input, input.params.subscriptionId);
        const workspaces = await input.cloud.listWorkspaces({ subscriptionId, resourceGroup: input.params.resourceGroup }, input.signal);
        const data = workspaces.filter(isSecurityInstance).map(toSecurityInstanceView).sort(byName);
        return { data };
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
        const subscriptionId = visibleSubscription(input, input.params.subscriptionId);
        const nsgs = await input.cloud.listNetworkSecurityGroups(subscriptionId, input.signal);
        return { data: nsgs.map(toNetworkSecurityGroupView).sort((a, b) => byName(a, b) || byText(a.id, b.id)) };
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
        const { resourceGroup, workspaceName } = input.params;
        const subscriptionId = visibleSubscription(input, input.params.subscriptionId);
        const workspace = await input.cloud.findWorkspace({ subscriptionId, resourceGroup, workspaceName }, input.signal);
        const reason: ValidationReason | undefined = !workspace ? "WorkspaceNotFound" : !isSecurityInstance(workspace) ? "NotOnboarded" : undefined;
        return reason === undefined ? { data: true } : { data: false, headers: { [VALIDATION_REASON_HEADER]: reason } };
      },
    }),
  ],
};

/**
 * The subscription, lower case, when the caller's organization may see it. Any other is 404, the
 * same answer as for a subscription that does not exist, so that nobody learns of another's.
 */
function visibleSubscription(input: RequestContext, subscriptionId: string): string {
  const id = subscriptionId.toLowerCase();
  if (!input.cloud.subscriptionsVisibleTo(input.principal.organizationAccountIds).has(id)) {
    throw notFound("The subscription", "subscriptionId");
  }
  return id;
}

/** Onboarded, and provisioned far enough to have its workspace id. */
function isSecurityInstance(w: LogAnalyticsWorkspace): w is LogAnalyticsWorkspace & { customerId: string } {
  return w.onboarded && w.customerId !== null;
}

function toResourceGroupView(g: CloudResourceGroup): z.infer<typeof resourceGroupView> {
  return { id: resourceGroupServiceId(g.resourceId), name: g.name, azureId: g.resourceId, location: g.location };
}

function toSecurityInstanceView(w: LogAnalyticsWorkspace & { customerId: string }): z.infer<typeof securityInstanceView> {
  return { id: w.customerId, name: w.name, azureId: w.resourceId, location: w.location };
}

function toNetworkSecurityGroupView(n: NetworkSecurityGroup): z.infer<typeof networkSecurityGroupView> {
  return { id: n.resourceId, name: n.name, location: n.location };
}

/** ARM ids are case-insensitive: the id is derived from the lower-cased one, so `resourcegroups` and `resourceGroups` agree. */
export function resourceGroupServiceId(armResourceId: string): string {
  return derivedGuid(`azure-resource:${armResourceId.toLowerCase()}`);
}

function byText(a: string, b: string): number {
  return a.localeCompare(b, "en", { sensitivity: "base" });
}

function byName(a: { name: string }, b: { name: string }): number {
  return byText(a.name, b.name);
}
