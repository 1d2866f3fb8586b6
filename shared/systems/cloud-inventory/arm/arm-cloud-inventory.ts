import type { OperationalInsightsManagementClient } from "@azure/arm-operationalinsights";
import type { ResourceManagementClient } from "@azure/arm-resources";
import type { SubscriptionClient } from "@azure/arm-resources-subscriptions";
import type { Pipeline } from "@azure/core-rest-pipeline";
import type { TokenCredential } from "@azure/identity";
import { ApiError } from "../../../platform/errors/api-error";
import type { CloudInventory, CloudResourceGroup, LogAnalyticsWorkspace, NetworkSecurityGroup } from "../port";
import type { SubscriptionAccess } from "../../../platform/config/subscription-access";
import { sdkCall, sdkErrorCode, sdkErrorStatus } from "../../../platform/upstream/sdk-call";
import { mapLimited } from "../../../platform/concurrency/map-limited";

/**
 * The Azure Resource Manager adapter: the cloud inventory as the service's identity (its managed
 * identity in Azure, through DefaultAzureCredential) sees it, with the Reader role on each configured
 * subscription. The SDKs are loaded when the first client is built, so a cold start that serves no
 * cloud lookup never pays for them.
 *
 * Every list follows ARM's `nextLink` to the last page before answering. One deadline covers an
 * operation end to end (all its pages and calls). Throttling is not slept on: ARM's 429 reaches the
 * caller as RATE_LIMITED with ARM's Retry-After, since a synchronous lookup must not hang for as
 * long as ARM asks; a transient 5xx or 408 is retried twice, briefly.
 *
 * @example
 * const cloud = createArmCloudInventory({ access, endpoint: "https://management.azure.com", timeoutMs: 15_000 });
 * const groups = await cloud.listResourceGroups("2b1d…");
 */
export interface ArmCloudInventoryOptions {
  access: SubscriptionAccess;
  /** The ARM endpoint: the public cloud's, a sovereign cloud's, or a test's fake. Tokens are asked for `<endpoint>/.default`. */
  endpoint: string;
  /** Deadline of one operation, every page and call included. */
  timeoutMs: number;
  /** Default: DefaultAzureCredential. */
  credential?: TokenCredential;
  /** A CA certificate (PEM) these clients trust instead of the system's: a test's self-signed fake. */
  ca?: string;
  now?: () => Date;
  /** Onboarding checks in flight at once while listing a group's workspaces. */
  concurrency?: number;
}

/**
 * Sentinel's onboarding state of a workspace: an extension resource named `default` under the
 * workspace, present exactly when the solution is onboarded. Read through the generic resource GET
 * with a generally available API version (the only JavaScript SDK for the provider is a beta on a
 * 2022 preview version). The older check, the `SecurityInsights(<workspace>)` solution of
 * Microsoft.OperationsManagement, is deprecated and not used.
 */
export const SENTINEL_ONBOARDING_API_VERSION = "2024-03-01";
export const sentinelOnboardingStateId = (workspaceResourceId: string) =>
  `${workspaceResourceId}/providers/Microsoft.SecurityInsights/onboardingStates/default`;

/** `resources.getById` puts its own "/" before the id: a leading one would make the path start "//". */
const relativeId = (resourceId: string) => resourceId.replace(/^\/+/, "");

/** Network security groups are listed through the generic resource list, which the resources SDK already brings. */
export const NSG_FILTER = "resourceType eq 'Microsoft.Network/networkSecurityGroups'";

/** ARM's error codes for a 404 about the container rather than the resource asked for. */
const CONTAINER_NOT_FOUND = new Set(["ResourceGroupNotFound", "SubscriptionNotFound"]);

const USER_AGENT_PREFIX = "secops-management-api";

const ARM_SYSTEM = "Azure Resource Manager";

export function createArmCloudInventory(options: ArmCloudInventoryOptions): CloudInventory {
  const { access, timeoutMs } = options;
  const endpoint = options.endpoint.replace(/\/+$/, "");
  const now = options.now ?? (() => new Date());
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new Error("timeoutMs must be a positive integer.");

  let credential = options.credential;
  let subscriptionClient: SubscriptionClient | undefined;
  const resourceClients = new Map<string, ResourceManagementClient>();
  const workspaceClients = new Map<string, OperationalInsightsManagementClient>();

  function clientOptions() {
    if (!credential) {
      const { DefaultAzureCredential } = require("@azure/identity") as typeof import("@azure/identity");
      credential = new DefaultAzureCredential();
    }
    return {
      credential,
      settings: {
        endpoint,
        userAgentOptions: { userAgentPrefix: USER_AGENT_PREFIX },
        ...(options.ca !== undefined && { tlsOptions: { ca: options.ca } }),
      },
    };
  }

  function subscriptions(): SubscriptionClient {
    if (!subscriptionClient) {
      const { SubscriptionClient } = require("@azure/arm-resources-subscriptions") as typeof import("@azure/arm-resources-subscriptions");
      const { credential, settings } = clientOptions();
      subscriptionClient = withoutThrottlingWaits(new SubscriptionClient(credential, settings));
    }
    return subscriptionClient;
  }

  function resources(subscriptionId: string): ResourceManagementClient {
    let client = resourceClients.get(subscriptionId);
    if (!client) {
      const { ResourceManagementClient } = require("@azure/arm-resources") as typeof import("@azure/arm-resources");
      const { credential, settings } = clientOptions();
      client = withoutThrottlingWaits(new ResourceManagementClient(credential, subscriptionId, settings));
      resourceClients.set(subscriptionId, client);
    }
    return client;
  }

  function workspaces(subscriptionId: string): OperationalInsightsManagementClient {
    let client = workspaceClients.get(subscriptionId);
    if (!client) {
      const { OperationalInsightsManagementClient } = require("@azure/arm-operationalinsights") as typeof import("@azure/arm-operationalinsights");
      const { credential, settings } = clientOptions();
      client = withoutThrottlingWaits(new OperationalInsightsManagementClient(credential, subscriptionId, settings));
      workspaceClients.set(subscriptionId, client);
    }
    return client;
  }

  /**
   * Runs one operation under its deadline; every failure leaves as an ApiError by docs/contract.md §7 (ARM's
   * message is never quoted: it can name principals, tenants and resources of others), with ARM's
   * own error as its cause.
   */
  function operation<T>(what: string, signal: AbortSignal | undefined, run: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    return sdkCall({ system: ARM_SYSTEM, what, timeoutMs, signal, now }, run);
  }

  /** A field ARM always sends; its absence means the answer cannot be trusted. */
  function present(value: string | undefined, field: string, what: string): string {
    if (typeof value === "string" && value.length > 0) return value;
    throw new ApiError("UPSTREAM_ERROR", `${ARM_SYSTEM} sent an invalid response (no ${field}) while ${what}.`);
  }

  async function onboarded(subscriptionId: string, workspaceResourceId: string, abortSignal: AbortSignal): Promise<boolean> {
    try {
      await resources(subscriptionId).resources.getById(relativeId(sentinelOnboardingStateId(workspaceResourceId)), SENTINEL_ONBOARDING_API_VERSION, { abortSignal });
      return true;
    } catch (error) {
      // No onboarding state: the solution is not onboarded on this workspace.
      if (sdkErrorStatus(error) === 404) return false;
      throw error;
    }
  }

  async function toWorkspace(
    subscriptionId: string,
    raw: { id?: string; name?: string; location?: string; customerId?: string },
    what: string,
    abortSignal: AbortSignal,
  ): Promise<LogAnalyticsWorkspace> {
    const resourceId = present(raw.id, "id", what);
    return {
      resourceId,
      name: present(raw.name, "name", what),
      location: present(raw.location, "location", what),
      customerId: raw.customerId ? raw.customerId.toLowerCase() : null,
      onboarded: await onboarded(subscriptionId, resourceId, abortSignal),
    };
  }

  return {
    subscriptionsVisibleTo: (accountIds) => access.visibleTo(accountIds),

    listSubscriptions(signal) {
      const what = "listing subscriptions";
      return operation(what, signal, async (abortSignal) => {
        const out = [];
        for await (const s of subscriptions().subscriptions.list({ abortSignal })) {
          const subscriptionId = present(s.subscriptionId, "subscriptionId", what).toLowerCase();
          out.push({ subscriptionId, displayName: s.displayName || subscriptionId });
        }
        return out;
      });
    },

    listResourceGroups(subscriptionId, signal) {
      const what = `listing the resource groups of subscription ${subscriptionId}`;
      return operation(what, signal, async (abortSignal) => {
        const out: CloudResourceGroup[] = [];
        for await (const g of resources(subscriptionId).resourceGroups.list({ abortSignal })) {
          out.push({ resourceId: present(g.id, "id", what), name: present(g.name, "name", what), location: present(g.location, "location", what) });
        }
        return out;
      });
    },

    listWorkspaces({ subscriptionId, resourceGroup }, signal) {
      const what = `listing the Log Analytics workspaces of resource group ${resourceGroup} in subscription ${subscriptionId}`;
      return operation(what, signal, async (abortSignal) => {
        const found = [];
        for await (const w of workspaces(subscriptionId).workspaces.listByResourceGroup(resourceGroup, { abortSignal })) found.push(w);
        return mapLimited(found, concurrency, (w, signal) => toWorkspace(subscriptionId, w, what, signal), abortSignal);
      });
    },

    findWorkspace({ subscriptionId, resourceGroup, workspaceName }, signal) {
      const what = `reading Log Analytics workspace ${workspaceName} of resource group ${resourceGroup} in subscription ${subscriptionId}`;
      return operation(what, signal, async (abortSignal) => {
        let raw;
        try {
          raw = await workspaces(subscriptionId).workspaces.get(resourceGroup, workspaceName, { abortSignal });
        } catch (error) {
          // A 404 about the workspace is an answer ("no such workspace"); one about its group or
          // subscription is the caller's NOT_FOUND.
          if (sdkErrorStatus(error) === 404 && !CONTAINER_NOT_FOUND.has(sdkErrorCode(error) ?? "")) return undefined;
          throw error;
        }
        return toWorkspace(subscriptionId, raw, what, abortSignal);
      });
    },

    listNetworkSecurityGroups(subscriptionId, signal) {
      const what = `listing the network security groups of subscription ${subscriptionId}`;
      return operation(what, signal, async (abortSignal) => {
        const out: NetworkSecurityGroup[] = [];
        for await (const r of resources(subscriptionId).resources.list({ filter: NSG_FILTER, abortSignal })) {
          out.push({ resourceId: present(r.id, "id", what), name: present(r.name, "name", what), location: present(r.location, "location", what) });
        }
        return out;
      });
    },
  };
}

/**
 * Replaces the SDK's default retry policy, which sleeps for as long as a 429's Retry-After asks
 * before retrying, with one that retries only transient answers (5xx without Retry-After, 408) twice
 * within about a second. A 429 then reaches our caller at once.
 */
function withoutThrottlingWaits<C extends { pipeline: Pipeline }>(client: C): C {
  const { exponentialRetryPolicy } = require("@azure/core-rest-pipeline") as typeof import("@azure/core-rest-pipeline");
  client.pipeline.removePolicy({ name: "defaultRetryPolicy" });
  client.pipeline.addPolicy(exponentialRetryPolicy({ maxRetries: 2, retryDelayInMs: 200, maxRetryDelayInMs: 800 }), { phase: "Retry" });
  return client;
}
