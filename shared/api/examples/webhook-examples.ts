import {
  EXAMPLE_INCIDENT_BLOCK,
  EXAMPLE_CUSTOMER_ACCOUNT_ID,
  EXAMPLE_FAILED_DELIVERY_CREATED_AT,
  EXAMPLE_FAILED_DELIVERY_LOG_ID,
  EXAMPLE_INCIDENT,
  EXAMPLE_PROVIDER_ACCOUNT_ID,
  EXAMPLE_PROVIDER_ACCOUNT_NAME,
  EXAMPLE_WEBHOOK_ID,
} from "../../platform/http/examples";

// Examples of the OpenAPI document for webhooks: the demo provider's SOAR intake webhook and its
// delivery log (see platform/http/examples.ts). A new or changed endpoint must resolve to a public address,
// so those examples point at example.com.

export const webhookExample = {
  id: EXAMPLE_WEBHOOK_ID,
  serviceProviderId: EXAMPLE_PROVIDER_ACCOUNT_ID,
  targetAccountId: EXAMPLE_PROVIDER_ACCOUNT_ID,
  targetAccountName: EXAMPLE_PROVIDER_ACCOUNT_NAME,
  workspaceId: null,
  name: "SOAR incident intake",
  url: "https://soar.contoso-mssp.example/hooks/secops",
  status: "Active",
  eventTypes: ["incident.created.v1", "incident.closed.v1"],
  monitoredAccountIds: [],
  authenticationType: "Bearer",
  hasSigningToken: true,
  disableReason: null,
  disabledAt: null,
  createdAt: "2026-03-02T09:12:44.318Z",
  lastModifiedAt: "2026-03-02T09:12:44.318Z",
};

/** Fabrikam's SIEM, told of Fabrikam's new and closed incidents only. */
export const createWebhookExample = {
  name: "Fabrikam SIEM",
  url: "https://example.com/secops-events",
  eventTypes: ["incident.created.v1", "incident.closed.v1"],
  monitoredAccountIds: [EXAMPLE_CUSTOMER_ACCOUNT_ID],
  authenticationType: "Bearer",
  token: "siem-ingest-7f3c9a2e51d84b06",
};

const SIGNING_SECRET_EXAMPLE = "whsec_MfKQ9r8GKYqXzB5V7m3tLj2pWn4sHc6dRa1uTe0yZgo=";

export const createdWebhookExample = {
  ...webhookExample,
  id: "d6f1a3b8-2c4e-4f7a-9b0d-1e3c5a7f9b2d",
  name: createWebhookExample.name,
  url: createWebhookExample.url,
  eventTypes: createWebhookExample.eventTypes,
  monitoredAccountIds: createWebhookExample.monitoredAccountIds,
  signingSecret: SIGNING_SECRET_EXAMPLE,
};

/** The retired SIEM forwarder, pointed at the new SIEM before it goes. */
export const updateWebhookExample = {
  name: "Legacy SIEM forwarder",
  url: "https://example.com/siem-ingest",
  eventTypes: ["incident.created.v1"],
  monitoredAccountIds: [],
};

export const updateCredentialsExample = { authenticationType: "Bearer", token: "soar-intake-2c71e94b0fa35d68", rotateSigningSecret: true };

/** The SOAR intake's new bearer token, the signing secret left as it is. */
export const endpointCredentialsExample = { authenticationType: "Bearer", token: "soar-intake-2c71e94b0fa35d68" };

export const credentialsChangedExample = { ...webhookExample, signingSecret: SIGNING_SECRET_EXAMPLE };

export const deliveryLogExample = {
  id: EXAMPLE_FAILED_DELIVERY_LOG_ID,
  webhookConfigurationId: EXAMPLE_WEBHOOK_ID,
  eventId: "42b604ad-6c1b-81e3-a694-6818d293cfa5",
  eventType: "incident.created.v1",
  status: "Failed",
  httpStatusCode: 503,
  success: false,
  requestUrl: webhookExample.url,
  requestHeaders: {
    "Content-Type": "application/json",
    "User-Agent": "SecOps-Webhooks/2",
    "X-Svc-Event-Id": "42b604ad-6c1b-81e3-a694-6818d293cfa5",
    "X-Svc-Event-Type": "incident.created.v1",
  },
  requestBody: "",
  responseBody: "",
  eventPayload: null,
  durationMs: 2013,
  createdAt: EXAMPLE_FAILED_DELIVERY_CREATED_AT,
  redelivered: false,
  attempt: 10,
  isTest: false,
  error: "HTTP 503; retries exhausted, dead-lettered",
};

/** One entry, with the incident as it stands now. */
export const deliveryLogEntryExample = {
  ...deliveryLogExample,
  eventPayload: {
    source: EXAMPLE_INCIDENT.source,
    incident: EXAMPLE_INCIDENT_BLOCK,
  },
};

export const deliveryAcceptedExample = { eventId: "9d3b7c1e-5f2a-4e8d-b6c0-3a1f7e9d2b54", status: "Pending" };

/** Demo webhooks the portal's state examples act on, each in the state its action needs. */
export const EXAMPLE_DATA_LAKE_WEBHOOK_ID = "4b6f4302-9e1b-8292-bd47-9284477318e5";
export const EXAMPLE_CHANGE_BOARD_WEBHOOK_ID = "3c857380-5ddb-808d-9a63-9c5306bd34aa";
export const EXAMPLE_CHATOPS_WEBHOOK_ID = "20bfadc7-fe93-8aa7-9b06-171aeb244218";

/** A demo webhook the portal's delete example removes: a retired ticketing relay. */
export const EXAMPLE_TICKET_RELAY_WEBHOOK_ID = "69aec880-0d82-8481-827f-d4d5b3627ac6";

/** The SOAR intake created in the portal: its signing secret, shown once. */
export const portalCreatedWebhookExample = {
  webhook: { ...webhookExample, id: createdWebhookExample.id, name: createdWebhookExample.name, url: createdWebhookExample.url, eventTypes: createdWebhookExample.eventTypes, monitoredAccountIds: createdWebhookExample.monitoredAccountIds },
  actions: ["pause"],
  signingSecret: SIGNING_SECRET_EXAMPLE,
};

/** The SOAR intake's signing secret rotated in the portal: the new one, and when the previous one stops signing. */
export const signingSecretRotatedExample = {
  webhook: webhookExample,
  actions: ["pause"],
  signingSecret: SIGNING_SECRET_EXAMPLE,
  previousSecretRetiresAt: "2026-03-03T09:15:04.117Z",
};
