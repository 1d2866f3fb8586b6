import { notFound } from "../../platform/errors/api-error";
import { derivedGuid } from "../../platform/ids/derived-guid";
import type { Uses } from "../operation-context";
import type { CloudResourceGroup, LogAnalyticsWorkspace, NetworkSecurityGroup, ResourceGroupRef, WorkspaceRef } from "../../systems/cloud-inventory/port";

/** A cloud subscription: its id is the same in Azure and in this service. */
export interface SubscriptionView {
  id: string;
  displayName: string;
}

/** A cloud resource group: `id` is the service's own (derived from the ARM id), `azureId` the ARM id. */
export interface ResourceGroupView {
  id: string;
  name: string;
  azureId: string;
  location: string;
}

/** A security instance: a Log Analytics workspace with the security solution onboarded; `id` is its `customerId`. */
export interface SecurityInstanceView {
  id: string;
  name: string;
  azureId: string;
  location: string;
}

/** A network security group: `id` is its ARM id. */
export interface NetworkSecurityGroupView {
  id: string;
  name: string;
  location: string;
}

/** Why a workspace is not valid; sent in the `X-Validation-Reason` header when `data` is false. */
export const validationReasons = ["WorkspaceNotFound", "NotOnboarded"] as const;
export type ValidationReason = (typeof validationReasons)[number];

/** What validating a workspace found: the security instance, or why it is not one. */
export type SecurityInstanceValidity = { instance: SecurityInstanceView; reason?: undefined } | { instance?: undefined; reason: ValidationReason };

/**
 * The cloud-resource lookups (docs/contract.md §4.3), for whoever asks on behalf of an organization:
 * a service account through `/azure-resources/…`, a person through the portal's onboarding. Both
 * pass the account ids of the caller's organization and get the same answers, the same 404s.
 */

/** The organization's subscriptions the service can read, by display name. */
export async function visibleSubscriptions(ctx: Uses<"cloud">, accountIds: readonly string[]): Promise<SubscriptionView[]> {
  const visible = ctx.cloud.subscriptionsVisibleTo(accountIds);
  const all = visible.size === 0 ? [] : await ctx.cloud.listSubscriptions(ctx.signal);
  return all
    .filter((s) => visible.has(s.subscriptionId))
    .map((s) => ({ id: s.subscriptionId, displayName: s.displayName }))
    .sort((a, b) => byText(a.displayName, b.displayName) || byText(a.id, b.id));
}

/** A subscription's resource groups, by name. */
export async function resourceGroupsOf(ctx: Uses<"cloud">, accountIds: readonly string[], subscriptionId: string): Promise<ResourceGroupView[]> {
  const groups = await ctx.cloud.listResourceGroups(visibleSubscription(ctx, accountIds, subscriptionId), ctx.signal);
  return groups.map(toResourceGroupView).sort(byName);
}

/** A resource group's security instances (its workspaces with the security solution onboarded), by name. */
export async function securityInstancesOf(ctx: Uses<"cloud">, accountIds: readonly string[], group: ResourceGroupRef): Promise<SecurityInstanceView[]> {
  const subscriptionId = visibleSubscription(ctx, accountIds, group.subscriptionId);
  const workspaces = await ctx.cloud.listWorkspaces({ subscriptionId, resourceGroup: group.resourceGroup }, ctx.signal);
  return workspaces.filter(isSecurityInstance).map(toSecurityInstanceView).sort(byName);
}

/** A subscription's network security groups, by name then id. */
export async function networkSecurityGroupsOf(ctx: Uses<"cloud">, accountIds: readonly string[], subscriptionId: string): Promise<NetworkSecurityGroupView[]> {
  const nsgs = await ctx.cloud.listNetworkSecurityGroups(visibleSubscription(ctx, accountIds, subscriptionId), ctx.signal);
  return nsgs.map(toNetworkSecurityGroupView).sort((a, b) => byName(a, b) || byText(a.id, b.id));
}

/**
 * Whether the resource group holds a workspace of this name with the security solution onboarded:
 * the instance when it does, else the reason. An unknown (or invisible) subscription or group is 404.
 */
export async function securityInstanceValidity(ctx: Uses<"cloud">, accountIds: readonly string[], ref: WorkspaceRef): Promise<SecurityInstanceValidity> {
  const subscriptionId = visibleSubscription(ctx, accountIds, ref.subscriptionId);
  const workspace = await ctx.cloud.findWorkspace({ subscriptionId, resourceGroup: ref.resourceGroup, workspaceName: ref.workspaceName }, ctx.signal);
  if (!workspace) return { reason: "WorkspaceNotFound" };
  if (!isSecurityInstance(workspace)) return { reason: "NotOnboarded" };
  return { instance: toSecurityInstanceView(workspace) };
}

/**
 * The subscription, lower case, when the caller's organization may see it. Any other is 404, the
 * same answer as for a subscription that does not exist, so that nobody learns of another's.
 */
function visibleSubscription(ctx: Uses<"cloud">, accountIds: readonly string[], subscriptionId: string): string {
  const id = subscriptionId.toLowerCase();
  if (!ctx.cloud.subscriptionsVisibleTo(accountIds).has(id)) throw notFound("The subscription", "subscriptionId");
  return id;
}

/** Onboarded, and provisioned far enough to have its workspace id. */
function isSecurityInstance(w: LogAnalyticsWorkspace): w is LogAnalyticsWorkspace & { customerId: string } {
  return w.onboarded && w.customerId !== null;
}

function toResourceGroupView(g: CloudResourceGroup): ResourceGroupView {
  return { id: resourceGroupServiceId(g.resourceId), name: g.name, azureId: g.resourceId, location: g.location };
}

function toSecurityInstanceView(w: LogAnalyticsWorkspace & { customerId: string }): SecurityInstanceView {
  return { id: w.customerId, name: w.name, azureId: w.resourceId, location: w.location };
}

function toNetworkSecurityGroupView(n: NetworkSecurityGroup): NetworkSecurityGroupView {
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
