import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TokenCredential } from "@azure/identity";
import type { ApiError } from "../../shared/platform/errors/api-error";
import { createArmCloudInventory, type ArmCloudInventoryOptions } from "../../shared/systems/cloud-inventory/arm/arm-cloud-inventory";
import { subscriptionAccess } from "../../shared/platform/config/subscription-access";
import type { CloudInventory } from "../../shared/systems/cloud-inventory/port";
import { ARM_LEAK, armError, fakeArm, type FakeEstate } from "../support/fake-arm";
import { startHttpsReceiver, type HttpsReceiver } from "../support/https-receiver";
import { apiErrorOf } from "../support/api-error-of";

// The adapter's real SDK clients talk HTTPS to a fake ARM on 127.0.0.1 (bearer tokens are refused
// over plain HTTP by the SDK): paging, retries, deadlines and errors happen as in production.

const SUB_A = "2b1d4c6e-8f0a-4b2c-9d3e-5f6a7b8c9d0e";
const SUB_B = "7c3e5a1f-2b4d-4e6f-8a0b-1c2d3e4f5a6b";
const SUB_C = "9e8d7c6b-5a4f-4e3d-2c1b-0a9f8e7d6c5b";
const WS_ID = "4f1e2d3c-b5a6-4978-8a9b-0c1d2e3f4a5b";
const ACCOUNT = "11111111-2222-4333-8444-555555555555";

const estate: FakeEstate = {
  subscriptions: [
    { subscriptionId: SUB_A, displayName: "Fabrikam Retail Production" },
    { subscriptionId: SUB_B, displayName: "Fabrikam Retail Development" },
    { subscriptionId: SUB_C, displayName: "Unrelated" },
  ],
  groups: {
    [SUB_A]: [
      { name: "rg-fabrikam-security-weu", location: "westeurope" },
      { name: "rg-fabrikam-network-weu", location: "westeurope" },
      { name: "NetworkWatcherRG", location: "westeurope" },
      { name: "DefaultResourceGroup-WEU", location: "westeurope" },
      { name: "rg-fabrikam-app-prod", location: "northeurope" },
    ],
  },
  workspaces: {
    [`${SUB_A}/rg-fabrikam-security-weu`]: [
      { name: "fabrikam-sentinel-prod", location: "westeurope", customerId: WS_ID.toUpperCase(), onboarded: true },
      { name: "log-fabrikam-soc-staging", location: "westeurope", customerId: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", onboarded: false },
      { name: "log-fabrikam-new", location: "westeurope", onboarded: false },
    ],
  },
  nsgs: {
    [SUB_A]: [
      { group: "rg-fabrikam-network-weu", name: "nsg-fabrikam-web-prod", location: "westeurope" },
      { group: "rg-fabrikam-network-weu", name: "nsg-fabrikam-app-prod", location: "westeurope" },
      { group: "rg-fabrikam-network-weu", name: "nsg-fabrikam-data-prod", location: "westeurope" },
    ],
  },
};

let arm: HttpsReceiver;
const scopesAsked: string[][] = [];
const credential: TokenCredential = {
  async getToken(scopes) {
    scopesAsked.push([scopes].flat());
    return { token: "fake-arm-token", expiresOnTimestamp: Date.now() + 3_600_000 };
  },
};

function inventory(over: Partial<ArmCloudInventoryOptions> = {}): CloudInventory {
  return createArmCloudInventory({
    access: subscriptionAccess({ [ACCOUNT]: [SUB_A, SUB_B] }),
    endpoint: arm.origin,
    timeoutMs: 5_000,
    credential,
    ca: arm.certificate,
    ...over,
  });
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const apiError = await apiErrorOf(promise);
  expect(apiError.message).not.toContain(ARM_LEAK);
  expect(apiError.message).not.toContain("fake-arm-token");
  return apiError;
}

const paths = () => arm.requests.map((r) => decodeURIComponent(new URL(r.url, arm.origin).pathname));

beforeAll(async () => {
  arm = await startHttpsReceiver();
});
afterAll(async () => arm?.close());
beforeEach(() => {
  arm.reset();
  arm.respondWith(fakeArm(estate, arm.origin));
  scopesAsked.length = 0;
});

describe("ARM cloud inventory: lists", () => {
  it("loads no ARM SDK until the first lookup builds a client", async () => {
    const armModules = () => Object.keys(require.cache).filter((k) => /@azure[\\/]arm-/.test(k));
    const cloud = inventory();
    expect(armModules()).toEqual([]);
    await cloud.listSubscriptions();
    expect(armModules().some((k) => /arm-resources-subscriptions/.test(k))).toBe(true);
    expect(armModules().some((k) => /arm-operationalinsights/.test(k))).toBe(false);
  });

  it("follows nextLink to the last page of subscriptions, with a bearer token for the endpoint's audience", async () => {
    const subs = await inventory().listSubscriptions();
    expect(subs).toEqual(estate.subscriptions);
    expect(arm.requests).toHaveLength(2);
    expect(arm.requests[1]!.url).toContain("%24skiptoken=2");
    for (const r of arm.requests) expect(r.headers.authorization).toBe("Bearer fake-arm-token");
    expect(scopesAsked[0]).toEqual([`${arm.origin}/.default`]);
    expect(arm.requests[0]!.headers["user-agent"]).toMatch(/^secops-management-api azsdk-js-arm-resources-subscriptions/);
  });

  it("lists every resource group of a subscription across three pages", async () => {
    const groups = await inventory().listResourceGroups(SUB_A);
    expect(groups.map((g) => g.name)).toEqual(estate.groups[SUB_A]!.map((g) => g.name));
    expect(groups[0]).toEqual({ resourceId: `/subscriptions/${SUB_A}/resourceGroups/rg-fabrikam-security-weu`, name: "rg-fabrikam-security-weu", location: "westeurope" });
    expect(arm.requests).toHaveLength(3);
    expect(paths().every((p) => p.toLowerCase() === `/subscriptions/${SUB_A}/resourcegroups`)).toBe(true);
  });

  it("lists a group's workspaces with their onboarding state read from Sentinel's onboardingStates/default", async () => {
    const workspaces = await inventory().listWorkspaces({ subscriptionId: SUB_A, resourceGroup: "RG-Fabrikam-Security-WEU" });
    expect(workspaces.map((w) => [w.name, w.onboarded, w.customerId])).toEqual([
      ["fabrikam-sentinel-prod", true, WS_ID],
      ["log-fabrikam-soc-staging", false, "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"],
      ["log-fabrikam-new", false, null],
    ]);
    expect(workspaces[0]!.resourceId).toBe(`/subscriptions/${SUB_A}/resourceGroups/rg-fabrikam-security-weu/providers/Microsoft.OperationalInsights/workspaces/fabrikam-sentinel-prod`);
    const onboardingReads = arm.requests.filter((r) => r.url.includes("onboardingStates"));
    expect(onboardingReads).toHaveLength(3);
    for (const r of onboardingReads) {
      expect(r.url).toMatch(/\/providers\/Microsoft\.SecurityInsights\/onboardingStates\/default\?api-version=2024-03-01$/);
      expect(r.url.startsWith("//")).toBe(false);
    }
    expect(arm.requests.some((r) => /OperationsManagement|solutions/i.test(r.url))).toBe(false);
  });

  it("lists network security groups through the resource list filtered by type, every page", async () => {
    const nsgs = await inventory().listNetworkSecurityGroups(SUB_A);
    expect(nsgs.map((n) => n.name)).toEqual(["nsg-fabrikam-web-prod", "nsg-fabrikam-app-prod", "nsg-fabrikam-data-prod"]);
    expect(nsgs[0]!.resourceId).toBe(`/subscriptions/${SUB_A}/resourceGroups/rg-fabrikam-network-weu/providers/Microsoft.Network/networkSecurityGroups/nsg-fabrikam-web-prod`);
    expect(arm.requests).toHaveLength(2);
    for (const r of arm.requests) expect(new URL(r.url, arm.origin).searchParams.get("$filter")).toBe("resourceType eq 'Microsoft.Network/networkSecurityGroups'");
  });

});

describe("ARM cloud inventory: errors (docs/contract.md §7)", () => {
  it("relays a 429 at once as RATE_LIMITED with ARM's Retry-After, without sleeping on it or retrying", async () => {
    arm.enqueue(armError(429, "TooManyRequests", { "retry-after": "37" }));
    const started = Date.now();
    const error = await failure(inventory().listResourceGroups(SUB_A));
    expect(error.code).toBe("RATE_LIMITED");
    expect(error.status).toBe(429);
    expect(error.headers["Retry-After"]).toBe("37");
    // ARM's own error stays the cause, for the logs; only the detail above reaches the caller.
    expect(error.cause).toMatchObject({ name: "RestError", statusCode: 429, code: "TooManyRequests" });
    expect(arm.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("relays a 429 on a later page too", async () => {
    const serve = fakeArm(estate, arm.origin);
    arm.respondWith((request) => (request.url.includes("skiptoken") ? armError(429, "TooManyRequests", { "retry-after": "5" }) : serve(request)));
    const error = await failure(inventory().listSubscriptions());
    expect(error.code).toBe("RATE_LIMITED");
    expect(error.headers["Retry-After"]).toBe("5");
    expect(arm.requests).toHaveLength(2);
  });

  it("maps a 403 (the identity lacks Reader) to UPSTREAM_ERROR without quoting ARM", async () => {
    arm.enqueue(armError(403, "AuthorizationFailed"));
    const error = await failure(inventory().listNetworkSecurityGroups(SUB_A));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.status).toBe(502);
    expect(error.message).toContain("refused the service's credential");
    expect(error.cause).toMatchObject({ name: "RestError", statusCode: 403, code: "AuthorizationFailed" });
    expect(arm.requests).toHaveLength(1);
  });

  it("maps a 401 to UPSTREAM_ERROR", async () => {
    arm.enqueue(armError(401, "InvalidAuthenticationToken"));
    expect((await failure(inventory().listSubscriptions())).code).toBe("UPSTREAM_ERROR");
  });

  it("maps a 403 on an onboarding-state read to UPSTREAM_ERROR rather than 'not onboarded'", async () => {
    arm.respondWith((request) => (request.url.includes("onboardingStates") ? armError(403, "AuthorizationFailed") : fakeArm(estate, arm.origin)(request)));
    const error = await failure(inventory({ concurrency: 2 }).listWorkspaces({ subscriptionId: SUB_A, resourceGroup: "rg-fabrikam-security-weu" }));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.cause).toMatchObject({ name: "RestError", statusCode: 403 });
    // The first failure stops the rest: of three workspaces, the third is never asked about (two in flight at most).
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(arm.requests.filter((r) => r.url.includes("onboardingStates")).length).toBeLessThanOrEqual(2);
  });

  it("retries a transient 503 and then answers", async () => {
    arm.enqueue(armError(503, "ServiceUnavailable"));
    const groups = await inventory().listResourceGroups(SUB_A);
    expect(groups).toHaveLength(5);
    expect(arm.requests).toHaveLength(4);
  });

  it("gives up on a persistent 500 after two retries: UPSTREAM_ERROR", async () => {
    arm.respondWith(armError(500, "InternalServerError"));
    const error = await failure(inventory().listResourceGroups(SUB_A));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(arm.requests).toHaveLength(3);
  });

  it("maps ARM's own 504 to TIMEOUT", async () => {
    arm.respondWith(armError(504, "GatewayTimeout"));
    const error = await failure(inventory().listSubscriptions());
    expect(error.code).toBe("TIMEOUT");
    expect(error.cause).toMatchObject({ name: "RestError", statusCode: 504 });
  });

  it("is TIMEOUT when ARM does not answer within the deadline, which covers every page", async () => {
    arm.respondWith({ hang: true });
    const started = Date.now();
    const error = await failure(inventory({ timeoutMs: 300 }).listSubscriptions());
    expect(error.code).toBe("TIMEOUT");
    expect(error.status).toBe(504);
    expect(error.cause).toBeInstanceOf(Error);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("is UPSTREAM_ERROR (aborted), not TIMEOUT, when the caller goes away", async () => {
    arm.respondWith({ hang: true });
    const caller = new AbortController();
    const pending = inventory().listSubscriptions(caller.signal);
    setTimeout(() => caller.abort(), 50);
    const error = await failure(pending);
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).toContain("caller went away");
    expect(error.cause).toBeInstanceOf(Error);
  });

  it("is UPSTREAM_ERROR when ARM cannot be reached", async () => {
    const error = await failure(inventory({ endpoint: "https://127.0.0.1:1" }).listSubscriptions());
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.cause).toMatchObject({ name: "RestError" });
  });

  it("is UPSTREAM_ERROR when an answer lacks a field ARM always sends", async () => {
    arm.enqueue({ status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ value: [{ name: "rg-no-id", location: "westeurope" }] }) });
    const error = await failure(inventory().listResourceGroups(SUB_A));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).toContain("no id");
  });
});
