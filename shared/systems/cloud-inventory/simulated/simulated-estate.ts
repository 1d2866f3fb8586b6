import { derivedGuid } from "../../../platform/ids/derived-guid";
import type { CloudResourceGroup, CloudSubscription, LogAnalyticsWorkspace, NetworkSecurityGroup } from "../port";
import { resourceGroupId } from "../port";

/** An account of the demo organization, as the estate needs it. */
export interface EstateAccount {
  id: string;
  name: string;
}

/** A workspace the service knows: it becomes an onboarded Log Analytics workspace of its account. */
export interface EstateWorkspace {
  id: string;
  name: string;
  accountId: string;
}

export interface SimulatedEstateInput {
  seed: string;
  accounts: readonly EstateAccount[];
  workspaces: readonly EstateWorkspace[];
}

export interface SimulatedResourceGroup extends CloudResourceGroup {
  workspaces: LogAnalyticsWorkspace[];
}

export interface SimulatedSubscription extends CloudSubscription {
  /** The account the subscription belongs to (who may see it when nothing is configured). */
  accountId: string;
  resourceGroups: SimulatedResourceGroup[];
  networkSecurityGroups: NetworkSecurityGroup[];
}

export interface SimulatedEstate {
  subscriptions: SimulatedSubscription[];
}

/** Paired regions as customers deploy them, with the short code Azure Monitor uses in `DefaultResourceGroup-<code>`. */
const REGION_PAIRS = [
  { primary: "westeurope", code: "WEU", secondary: "northeurope" },
  { primary: "uksouth", code: "SUK", secondary: "ukwest" },
  { primary: "eastus2", code: "EUS2", secondary: "centralus" },
  { primary: "swedencentral", code: "SEC", secondary: "norwayeast" },
  { primary: "germanywestcentral", code: "DEWC", secondary: "westeurope" },
  { primary: "francecentral", code: "PAR", secondary: "westeurope" },
  { primary: "eastus", code: "EUS", secondary: "westus2" },
] as const;

/**
 * The demo organization's cloud estate, deterministic in the seed: per account a production and a
 * development subscription, laid out as Azure landing zones usually are — a security resource group
 * holding the account's workspaces (the service's workspaces, onboarded to the security solution,
 * with their ids as Log Analytics workspace ids) beside a staging workspace that is not onboarded,
 * a development security instance the service does not serve yet (what the portal's onboarding
 * offers to pick), monitoring, network and application groups, the `NetworkWatcherRG` and `DefaultResourceGroup-<code>`
 * Azure creates by itself, and network security groups. Regions are chosen per account from the seed.
 */
export function buildSimulatedEstate(input: SimulatedEstateInput): SimulatedEstate {
  const { seed } = input;
  const subscriptions: SimulatedSubscription[] = [];
  // Accounts get different regions (a step coprime with the list's length), where the list starts depends on the seed.
  const firstRegion = Number.parseInt(derivedGuid(`${seed}/cloud/regions`).slice(0, 8), 16);
  for (const [index, account] of input.accounts.entries()) {
    const slug = slugOf(account.name);
    const region = REGION_PAIRS[(firstRegion + index * 3) % REGION_PAIRS.length]!;
    const r = region.code.toLowerCase();
    const own = input.workspaces.filter((w) => w.accountId === account.id);
    const subscriptionId = (kind: string) => derivedGuid(`${seed}/cloud/subscription/${account.id}/${kind}`);

    const production = estateSubscription(seed, subscriptionId("production"), `${account.name} - Production`, account.id);
    production
      .group(`rg-${slug}-security-${r}`, region.primary)
      .onboarded(own)
      .workspace(`log-${slug}-soc-staging`);
    production.group(`rg-${slug}-monitoring-${r}`, region.primary).workspace(`log-${slug}-platform-${r}`);
    production
      .group(`rg-${slug}-network-${r}`, region.primary)
      .nsg(`nsg-${slug}-web-${r}`)
      .nsg(`nsg-${slug}-app-${r}`)
      .nsg(`nsg-${slug}-data-${r}`)
      .nsg(`nsg-${slug}-bastion-${r}`);
    production.group(`rg-${slug}-app-${region.secondary}`, region.secondary).nsg(`nsg-${slug}-app-${region.secondary}`);
    production.group("NetworkWatcherRG", region.primary);
    production.group(`DefaultResourceGroup-${region.code}`, region.primary).workspace(`DefaultWorkspace-${production.subscriptionId}-${region.code}`);

    const development = estateSubscription(seed, subscriptionId("development"), `${account.name} - Development`, account.id);
    development
      .group(`rg-${slug}-dev-${r}`, region.primary)
      .workspace(`log-${slug}-dev-${r}`)
      .securityInstance(`${slug}-sentinel-dev`)
      .nsg(`nsg-${slug}-dev-${r}`);
    development.group(`rg-${slug}-sandbox`, region.secondary).nsg(`nsg-${slug}-sandbox`);
    development.group("NetworkWatcherRG", region.primary);

    subscriptions.push(production.done(), development.done());
  }
  return { subscriptions };
}

/** "Fabrikam Retail" → "fabrikam": the first word, as resource names abbreviate a company. */
function slugOf(name: string): string {
  return (name.toLowerCase().match(/[a-z0-9]+/)?.[0] ?? "org").slice(0, 16);
}

function estateSubscription(seed: string, subscriptionId: string, displayName: string, accountId: string) {
  const subscription: SimulatedSubscription = { subscriptionId, displayName, accountId, resourceGroups: [], networkSecurityGroups: [] };
  return {
    subscriptionId,
    group(name: string, location: string) {
      const resourceId = resourceGroupId(subscriptionId, name);
      const group: SimulatedResourceGroup = { resourceId, name, location, workspaces: [] };
      subscription.resourceGroups.push(group);
      const provider = (type: string, resourceName: string) => `${resourceId}/providers/${type}/${resourceName}`;
      const logAnalyticsWorkspace = (workspaceName: string, onboarded: boolean): LogAnalyticsWorkspace => {
        const id = provider("Microsoft.OperationalInsights/workspaces", workspaceName);
        return { resourceId: id, name: workspaceName, location, customerId: derivedGuid(`${seed}/cloud/workspace/${id.toLowerCase()}`), onboarded };
      };
      const builder = {
        /** The service's own workspaces: onboarded, their ids as Log Analytics workspace ids. */
        onboarded(workspaces: readonly EstateWorkspace[]) {
          for (const w of workspaces) {
            group.workspaces.push({ resourceId: provider("Microsoft.OperationalInsights/workspaces", w.name), name: w.name, location, customerId: w.id, onboarded: true });
          }
          return builder;
        },
        /** A workspace without the security solution. */
        workspace(workspaceName: string) {
          group.workspaces.push(logAnalyticsWorkspace(workspaceName, false));
          return builder;
        },
        /** A workspace with the security solution onboarded that is not (yet) one of the service's workspaces. */
        securityInstance(workspaceName: string) {
          group.workspaces.push(logAnalyticsWorkspace(workspaceName, true));
          return builder;
        },
        nsg(nsgName: string) {
          subscription.networkSecurityGroups.push({ resourceId: provider("Microsoft.Network/networkSecurityGroups", nsgName), name: nsgName, location });
          return builder;
        },
      };
      return builder;
    },
    done: () => subscription,
  };
}
