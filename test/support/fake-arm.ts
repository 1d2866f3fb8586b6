import type { ReceivedRequest, ReceiverScript } from "./https-receiver";

/**
 * A fake Azure Resource Manager for the ARM adapter's tests: the routes the adapter calls, answered
 * from a small estate, with ARM's list shape (`value` + absolute `nextLink`) and error shape
 * (`{error: {code, message}}`). Lists are served `pageSize` items per page so that paging is real.
 */
export interface FakeEstate {
  subscriptions: { subscriptionId: string; displayName: string }[];
  groups: Record<string, { name: string; location: string }[]>;
  /** Key: `<subscriptionId>/<group, lower case>`. */
  workspaces: Record<string, { name: string; location: string; customerId?: string; onboarded: boolean }[]>;
  nsgs: Record<string, { group: string; name: string; location: string }[]>;
}

/** Every message the fake sends in an error body: it must never reach a caller. */
export const ARM_LEAK = "principal 0b1e-secret-object-id of tenant contoso-internal";

export function armError(status: number, code: string, headers: Record<string, string> = {}): ReceiverScript {
  return {
    status,
    headers: { "content-type": "application/json", "x-ms-failure-cause": "gateway", ...headers },
    body: JSON.stringify({ error: { code, message: `${code}: ${ARM_LEAK}` } }),
  };
}

const json = (body: unknown): ReceiverScript => ({ status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

export function fakeArm(estate: FakeEstate, origin: string, pageSize = 2): (request: ReceivedRequest) => ReceiverScript {
  const page = (path: string, items: unknown[], url: URL): ReceiverScript => {
    const skip = Number(url.searchParams.get("$skiptoken") ?? "0");
    const next = skip + pageSize;
    const nextUrl = new URL(origin + path);
    url.searchParams.forEach((v, k) => k !== "$skiptoken" && nextUrl.searchParams.set(k, v));
    nextUrl.searchParams.set("$skiptoken", String(next));
    return json({ value: items.slice(skip, next), ...(next < items.length && { nextLink: nextUrl.href }) });
  };

  return (request) => {
    const url = new URL(request.url, origin);
    const path = decodeURIComponent(url.pathname).replace(/\/+/g, "/");
    const lower = path.toLowerCase();
    let m: RegExpMatchArray | null;

    if (lower === "/subscriptions") {
      return page(path, estate.subscriptions.map((s) => ({ id: `/subscriptions/${s.subscriptionId}`, ...s, state: "Enabled" })), url);
    }
    if ((m = /^\/subscriptions\/([^/]+)(\/.*)?$/i.exec(path))) {
      const sub = m[1]!.toLowerCase();
      const rest = m[2] ?? "";
      if (!estate.subscriptions.some((s) => s.subscriptionId === sub)) return armError(404, "SubscriptionNotFound");
      const groups = estate.groups[sub] ?? [];
      if (/^\/resourcegroups$/i.test(rest)) {
        return page(path, groups.map((g) => ({ id: `/subscriptions/${sub}/resourceGroups/${g.name}`, ...g, properties: { provisioningState: "Succeeded" } })), url);
      }
      if (/^\/resources$/i.test(rest)) {
        if (url.searchParams.get("$filter") !== "resourceType eq 'Microsoft.Network/networkSecurityGroups'") return armError(400, "InvalidFilter");
        const nsgs = (estate.nsgs[sub] ?? []).map((n) => ({
          id: `/subscriptions/${sub}/resourceGroups/${n.group}/providers/Microsoft.Network/networkSecurityGroups/${n.name}`,
          name: n.name,
          type: "Microsoft.Network/networkSecurityGroups",
          location: n.location,
        }));
        return page(path, nsgs, url);
      }
      const inGroup = /^\/resourcegroups\/([^/]+)\/providers\/microsoft\.operationalinsights\/workspaces(?:\/([^/]+))?(\/providers\/microsoft\.securityinsights\/onboardingstates\/default)?$/i.exec(rest);
      if (inGroup) {
        const group = groups.find((g) => g.name.toLowerCase() === inGroup[1]!.toLowerCase());
        if (!group) return armError(404, "ResourceGroupNotFound");
        const all = (estate.workspaces[`${sub}/${group.name.toLowerCase()}`] ?? []).map((w) => ({
          id: `/subscriptions/${sub}/resourceGroups/${group.name}/providers/Microsoft.OperationalInsights/workspaces/${w.name}`,
          name: w.name,
          location: w.location,
          type: "Microsoft.OperationalInsights/workspaces",
          properties: { customerId: w.customerId, provisioningState: "Succeeded", sku: { name: "PerGB2018" }, retentionInDays: 90 },
          onboarded: w.onboarded,
        }));
        if (!inGroup[2]) return json({ value: all.map(({ onboarded: _, ...w }) => w) });
        const one = all.find((w) => w.name.toLowerCase() === inGroup[2]!.toLowerCase());
        if (!one) return armError(404, "ResourceNotFound");
        if (!inGroup[3]) return json((({ onboarded: _, ...w }) => w)(one));
        if (url.searchParams.get("api-version") !== "2024-03-01") return armError(400, "InvalidApiVersionParameter");
        if (!one.onboarded) return armError(404, "NotFound");
        return json({ id: `${one.id}/providers/Microsoft.SecurityInsights/onboardingStates/default`, name: "default", type: "Microsoft.SecurityInsights/onboardingStates", properties: { customerManagedKey: false } });
      }
    }
    return armError(404, "InvalidResourceType");
  };
}
