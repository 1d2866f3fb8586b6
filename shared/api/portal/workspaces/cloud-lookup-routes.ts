import { personRoute } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import { resourceGroupsOf, securityInstancesOf, visibleSubscriptions } from "../../../domain/cloud/cloud-lookups";
import { resourceGroupList, resourceGroupParams, securityInstanceList, subscriptionList, subscriptionParams, workspaceParams } from "../../schemas/cloud-schemas";
import { instanceCheckView } from "./cloud-lookup-schemas";
import { checkSecurityInstance } from "./security-instance-check";

const tag = "Portal: workspaces";
const base = "/portal/azure-resources/subscriptions";
/** Those who onboard workspaces: the lookups serve the onboarding form and nothing else. */
const roles = ["WorkspaceAdmin"] as const;

/**
 * The cloud lookups of the onboarding form: subscription, then resource group, then security
 * instance, then the check before onboarding. The same domain operations as the contract's
 * `/azure-resources/…` (docs/contract.md §4.3), over the person's organization instead of the
 * service account's: the same subscriptions, the same answers, the same 404 for any other.
 */
export const cloudLookupRoutes: RouteGroup = {
  name: "portal-cloud-lookups",
  routes: [
    personRoute({
      method: "GET",
      path: base,
      summary: "Your organization's cloud subscriptions, to pick a security instance from",
      description: "The subscriptions configured for your organization (its own and its customers') that the service can read, by display name.",
      tag,
      roles,
      problems: ["EXTENSION_NOT_ENABLED"],
      response: subscriptionList,
      async handler(input) {
        return { data: await visibleSubscriptions(input, input.person.organizationAccountIds) };
      },
    }),
    personRoute({
      method: "GET",
      path: `${base}/{subscriptionId}/resource-groups`,
      summary: "The resource groups of one of your organization's subscriptions",
      description: "404 for a subscription that does not exist or is not your organization's.",
      tag,
      roles,
      problems: ["EXTENSION_NOT_ENABLED"],
      params: subscriptionParams,
      response: resourceGroupList,
      async handler(input) {
        return { data: await resourceGroupsOf(input, input.person.organizationAccountIds, input.params.subscriptionId) };
      },
    }),
    personRoute({
      method: "GET",
      path: `${base}/{subscriptionId}/resource-groups/{resourceGroup}/sentinels`,
      summary: "The security instances of a resource group: what a workspace is onboarded from",
      description: "Log Analytics workspaces with the security solution onboarded, by name; each one's `id` is the `workspaceId` a workspace onboarded from it gets. 404 for an unknown subscription or group.",
      tag,
      roles,
      problems: ["EXTENSION_NOT_ENABLED"],
      params: resourceGroupParams,
      response: securityInstanceList,
      async handler(input) {
        return { data: await securityInstancesOf(input, input.person.organizationAccountIds, input.params) };
      },
    }),
    personRoute({
      method: "GET",
      path: `${base}/{subscriptionId}/resource-groups/{resourceGroup}/workspaces/{workspaceName}/validate`,
      summary: "Check that a security instance can be onboarded as a workspace",
      description:
        "The contract's validation (a Log Analytics workspace of that name in the group, with the security solution onboarded), and that no workspace of " +
        "the service has the instance's id yet. A refusal is an answer (`valid` false, with `reason` and `detail`), not an error; an unknown subscription or " +
        "group is 404, an illegal name 400.",
      tag,
      roles,
      problems: ["EXTENSION_NOT_ENABLED"],
      params: workspaceParams,
      response: instanceCheckView,
      async handler(input) {
        const check = await checkSecurityInstance(input, input.person, input.params);
        return { data: { valid: check.reason === null, ...check } };
      },
    }),
  ],
};
