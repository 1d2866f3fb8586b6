/**
 * The ids the OpenAPI document's examples share, taken from the local host's demo organization for
 * the default `DEMO_SEED` (secops-demo) and incident count, so that the reference page's "Try it out"
 * against `npm start` works as pre-filled. Literals, because endpoint groups do not import the local
 * host: test/unit/openapi-examples.test.ts derives each one from the demo data again, and
 * test/api/openapi-examples.test.ts sends every operation's example request.
 */

/** Contoso Managed Security, the service provider the local admin belongs to. */
export const EXAMPLE_PROVIDER_ACCOUNT_ID = "86415e4f-1085-8dee-a123-1d0407ef2acc";
export const EXAMPLE_PROVIDER_ACCOUNT_NAME = "Contoso Managed Security";
/** Fabrikam Retail, a managed customer. */
export const EXAMPLE_CUSTOMER_ACCOUNT_ID = "2bfb33bf-8579-8229-8fd5-68adbd2f87a7";
export const EXAMPLE_CUSTOMER_TENANT_ID = "1a56243a-540f-8dc1-9b49-88d09b1389be";
export const EXAMPLE_PROVIDER_TENANT_ID = "2a8cc883-0968-8486-8b92-4569ed8ff8c8";

/** Workspace `fabrikam-sentinel-prod`. */
export const EXAMPLE_WORKSPACE_ID = "33873265-ff9f-864c-b501-d00077f35d2a";
export const EXAMPLE_WORKSPACE_NAME = "fabrikam-sentinel-prod";
/** Northwind Health, the demo's second managed customer, and its workspace `northwind-sentinel-prod`. */
export const EXAMPLE_SECOND_CUSTOMER_ACCOUNT_ID = "4cf735f1-d959-84ec-8d82-ce003877f702";
export const EXAMPLE_SECOND_CUSTOMER_WORKSPACE_ID = "8b6678d2-af0c-8a8b-8ab1-b35eeedb2ad8";
/** Workspace `contoso-soc-internal`, the provider's own. */
export const EXAMPLE_SECOND_WORKSPACE_ID = "6aeb3a86-6df2-8a52-9183-256be7af30dc";
/** Workspace `fabrikam-sentinel-legacy`, Fabrikam's retired one (its sources off): the offboarding example's target. */
export const EXAMPLE_RETIRED_WORKSPACE_ID = "616343c6-bed1-86b2-b43b-985704708398";
/** Workspace `fabrikam-sentinel-2019`, offboarded long ago: the offboarded-workspace audit export example's. */
export const EXAMPLE_OFFBOARDED_WORKSPACE_ID = "5f672e64-6375-82df-929f-20b3b9f69ff2";

/** The newest SourceA incident of `fabrikam-sentinel-prod`; a demo gamebook run has acted on it. */
export const EXAMPLE_INCIDENT = {
  source: "SourceA",
  id: "67ad2f09-8df1-8539-bb5d-4fe70e2b6f00",
  number: 9139,
  title: "Suspicious PowerShell command line on FAB-DC-4624",
} as const;
/** EXAMPLE_INCIDENT's block as incident listings and event payloads carry it. */
export const EXAMPLE_INCIDENT_BLOCK = {
  id: EXAMPLE_INCIDENT.id,
  number: EXAMPLE_INCIDENT.number,
  title: EXAMPLE_INCIDENT.title,
  severity: "High",
  status: "New",
  workspaceId: EXAMPLE_WORKSPACE_ID,
  createdAt: "2026-03-02T08:41:07.602Z",
  updatedAt: "2026-03-02T08:41:07.602Z",
} as const;
/** The demo gamebook run ("Contain a compromised account") on EXAMPLE_INCIDENT. */
export const EXAMPLE_GAMEBOOK_RUN_ID = "e33b5203-a371-859e-a3cf-7318eb17ddbd";

/** A comment the SOAR connector's integration wrote on another SourceA incident of the workspace. */
export const EXAMPLE_INTEGRATION_COMMENT = {
  incidentId: "a4d549c9-92c5-8010-8169-13d6180203d3",
  commentId: "be14f83f-60ae-8c00-aa03-8749bfe2080d",
  extensionId: "ext-soar-connector",
} as const;

/** Amira Haddad, the provider's administrator. */
export const EXAMPLE_USER = { id: "67ff43b5-98aa-8eab-8ef8-ac664bac3ae2", displayName: "Amira Haddad", email: "amira.haddad@contoso-mssp.example" } as const;
/** Li Wei, an analyst of the provider: the assignee in examples. */
export const EXAMPLE_ANALYST = { id: "6ca1b3c2-1cfb-8ec6-8d44-18ffea2b84aa", displayName: "Li Wei", email: "li.wei@contoso-mssp.example" } as const;
/** Noah Fischer, an analyst who is leaving: the user the update and delete examples act on. */
export const EXAMPLE_LEAVING_USER = { id: "5f45b11a-761f-8667-8672-36677aaf80c3", displayName: "Noah Fischer", email: "noah.fischer@contoso-mssp.example" } as const;

/** The SOAR platform's service account and its credential. */
export const EXAMPLE_SERVICE_ACCOUNT_ID = "b247775e-0fae-8a3e-a7c5-29558bd76133";
export const EXAMPLE_CREDENTIAL_ID = "93721159-6577-8bb6-942a-d3bedbe8c331";
/** A retired SIEM export's service account: the delete example's target. */
export const EXAMPLE_RETIRED_SERVICE_ACCOUNT_ID = "1d34c190-bcb6-8f96-ae29-e31692add812";
/** The vulnerability scanner's service account and its credential: what the portal's examples deactivate, revoke and delete. */
export const EXAMPLE_SCANNER_SERVICE_ACCOUNT_ID = "c9c15733-5a90-8236-95c2-e7c0075a645b";
export const EXAMPLE_SCANNER_CREDENTIAL_ID = "2252b03f-7139-8fa8-9625-28bd92426cc3";

/** Webhooks of the provider: one per state, and a retired one for the delete example. */
export const EXAMPLE_WEBHOOK_ID = "319a4962-405f-8b40-a23d-50cc209b83f0";
export const EXAMPLE_PAUSED_WEBHOOK_ID = "4ba3fc2c-01d6-8ba0-b9c4-612fc39cc8fc";
export const EXAMPLE_DISABLED_WEBHOOK_ID = "84f52718-2f35-8d90-abc8-22396eb5ef47";
export const EXAMPLE_RETIRED_WEBHOOK_ID = "0c7e5a83-ffec-8f16-8436-579253be0d7c";
/** EXAMPLE_WEBHOOK_ID's failed delivery of EXAMPLE_INCIDENT's `incident.created.v1` (attempt 10 of 10). */
export const EXAMPLE_FAILED_DELIVERY_LOG_ID = "0755f71c-7716-8f43-a5ad-41c42a188767";
/**
 * When that delivery failed. Entries expire after the retention period, so no fixed date stays
 * valid: it is the minute this process started, and the local host's demo seed logs the entry then.
 */
export const EXAMPLE_FAILED_DELIVERY_CREATED_AT = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();

/** The `meta` of a response envelope. */
export const EXAMPLE_META = { requestId: "0b8e6f4c-2a1d-4c3b-9e5f-7a6d8c9b0e1f", timestamp: "2026-03-02T09:15:04.117Z" } as const;

/**
 * The incident listing's report (`meta.unavailable`): one workspace's source rate limited the
 * service, and its circuit breaker is open.
 */
export const EXAMPLE_UNAVAILABLE_STREAMS = [
  {
    workspaceId: EXAMPLE_SECOND_WORKSPACE_ID,
    workspaceName: "contoso-soc-internal",
    source: "SourceA",
    code: "RATE_LIMITED",
    detail: "SourceA for workspace 6aeb3a86-6df2-8a52-9183-256be7af30dc is not being called: it failed 2 times in a row (last RATE_LIMITED); the next try is in 27 s.",
    retryAfterSeconds: 27,
    circuitOpen: true,
    gaveUp: false,
    failedPages: 1,
  },
] as const;

/** The report of the other cross-workspace answers: one workspace's Log Analytics (or store) failed. */
export const EXAMPLE_UNAVAILABLE_WORKSPACES = [
  {
    workspaceId: EXAMPLE_SECOND_WORKSPACE_ID,
    workspaceName: "contoso-soc-internal",
    code: "UPSTREAM_ERROR",
    detail: "Log Analytics failed (status 503) while listing the data connectors of workspace 6aeb3a86-6df2-8a52-9183-256be7af30dc.",
    retryAfterSeconds: 30,
    circuitOpen: false,
    gaveUp: false,
  },
] as const;
