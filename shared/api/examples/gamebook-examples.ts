import { EXAMPLE_WORKSPACE_ID } from "../../platform/http/examples";

/**
 * Examples for the OpenAPI document, taken from the local host's demo world with the default
 * `DEMO_SEED`, so that "Try it out" against `npm start` works as shown: workspace
 * `fabrikam-sentinel-prod`, one of its SourceA incidents and its catalogue's playbooks. The API tests
 * submit the run example to prove it.
 */

export { EXAMPLE_WORKSPACE_ID };
export const EXAMPLE_INCIDENT_ID = "effe7c24-f901-892c-9d77-16282227156c";
export const EXAMPLE_INCIDENT_TITLE = "Impossible travel activity for mateo.costa@fabrikam.example";
const EXAMPLE_ACCOUNT_ENTITY = "acct-43126f817741";

/** "Contain a compromised account" of the demo catalogue, on the incident's account. */
export const runRequestExample = {
  incidentId: EXAMPLE_INCIDENT_ID,
  incidentTitle: EXAMPLE_INCIDENT_TITLE,
  source: "SourceA",
  playbooks: [
    { id: "2d240ade-3cd2-8915-87ee-afdd08ce059d", sequence: 1, entityId: EXAMPLE_ACCOUNT_ENTITY, parameters: {} },
    { id: "9ef93e8f-9d01-8a68-8fbc-cb06af7a2ee4", sequence: 2, entityId: EXAMPLE_ACCOUNT_ENTITY, parameters: {} },
    {
      id: "5f42b74f-2f0e-8820-8a1f-16fe3beffa37",
      sequence: 3,
      entityId: EXAMPLE_ACCOUNT_ENTITY,
      parameters: { note: "Your account signed in from two countries within an hour; we signed you out everywhere." },
    },
    { id: "ad255856-13a3-8753-b918-b030a4631d64", sequence: 4, entityId: EXAMPLE_INCIDENT_ID, parameters: { message: "Contained: sessions revoked, password reset, user notified." } },
  ],
  isQueued: false,
};

export const runSubmittedExample = { id: "7d1c3f0e-5a2b-4c8d-9e6f-1a2b3c4d5e6f", status: "Pending", isQueued: false };

export const playbookEntryExample = {
  id: "0f6a1c2e-9b4d-8e3f-a1b2-c3d4e5f60718",
  referenceId: "9ef93e8f-9d01-8a68-8fbc-cb06af7a2ee4",
  entityId: EXAMPLE_ACCOUNT_ENTITY,
  name: "Reset user password",
  description: "Sets a temporary password and forces a change at the next sign-in.",
  affectedEntity: "mateo.costa@fabrikam.example",
  tracingId: "5b0e4c8a-2f1d-4e6b-9a3c-7d8e9f0a1b2c",
  userObjectId: "9c1e0d2b7a4f4e3c8b6d5a4f3e2d1c0b",
  userPrincipalName: "mateo.costa@fabrikam.example",
  internetMessageId: "",
  entityType: "User",
  isRecommended: true,
  isAdminRequired: true,
  status: "Succeeded",
  errorMessage: "",
  sequence: 2,
  modificationDate: "2026-03-02T09:14:27.412Z",
  startingDate: "2026-03-02T09:14:21.100Z",
  finishingDate: "2026-03-02T09:14:27.412Z",
  executionTime: "00:00:07.245",
  parameters: {},
};

export const gamebookRunExample = {
  id: runSubmittedExample.id,
  tracingId: playbookEntryExample.tracingId,
  incidentId: EXAMPLE_INCIDENT_ID,
  source: "SourceA",
  incidentTitle: EXAMPLE_INCIDENT_TITLE,
  incidentNumber: 1042,
  isOcr: false,
  isRecover: false,
  isAdminRequired: true,
  isAutoRun: false,
  isRetryGamebook: false,
  isQueued: false,
  triggedByUserId: "3f0c2a8e-5d7b-4c1e-9a6f-2b8d4e6f1a3c",
  displayName: "SOAR connector",
  modificationDate: "2026-03-02T09:14:27.412Z",
  creationDate: "2026-03-02T09:14:20.870Z",
  status: "Running",
  title: "Contain a compromised account",
  summary: "Running playbook 3 of 4: Notify the user on mateo.costa@fabrikam.example.",
  workspaceId: EXAMPLE_WORKSPACE_ID,
  workspaceName: "fabrikam-sentinel-prod",
  tenantId: "4b7f1e2a-8c3d-8e5f-9a1b-2c3d4e5f6a7b",
  originalGamebookId: "c2a9e7f1-4b3d-8a5c-9e6f-0a1b2c3d4e5f",
  originalGamebookTitle: "Contain a compromised account",
  playbooks: [playbookEntryExample],
};

export const playbookRuleExample = {
  playbookId: "2d240ade-3cd2-8915-87ee-afdd08ce059d",
  playbookName: "Revoke user sessions",
  playbookDescription: "Signs the user out of every session and revokes their refresh tokens.",
  incidentTitle: "Impossible travel activity for *",
  entity: "User",
  sentinelEntities: ["Account"],
  recoverPlaybookId: "",
  isAdminRequired: false,
};

/**
 * The demo's workspace whose policy makes every run wait (northwind-sentinel-clinics), and the two
 * runs the local host seeds there waiting for approval: the approval examples act on them, the
 * first approved, the second denied.
 */
export const EXAMPLE_APPROVAL_WORKSPACE_ID = "020d8f14-40b4-86f3-90b4-221fc0c4efd9";
export const EXAMPLE_RUN_TO_APPROVE_ID = "6ae03602-be5d-8d4e-a2ab-ee6372800037";
export const EXAMPLE_RUN_TO_DENY_ID = "719b9aa5-2ea8-8899-be71-856b0c66b8ed";

/**
 * The runs the local host seeds for the run examples of the incident page: in `fabrikam-sentinel-prod`
 * (which dispatches at once), one that failed (a block of a private address: the retry example's) and
 * one that succeeded (a block of a public address, which the catalogue's unblock undoes: the undo
 * example's), both asked for by Li Wei; in the approval workspace, the third run waiting for approval
 * (the cancel example's).
 */
export const EXAMPLE_RUN_TO_RETRY_ID = "36f6051e-e5aa-881c-8a0d-67b0fb68ec74";
export const EXAMPLE_RUN_TO_UNDO_ID = "91101d4f-66a7-8f13-babf-6dad3a84833f";
export const EXAMPLE_RUN_TO_CANCEL_ID = "9d4db314-6c55-84f7-a4a6-18a1ba1845ad";

/**
 * The provider's own demo workspace (contoso-soc-internal), where the local host seeds a standing
 * pre-authorization of its isolate-host playbook: the pre-authorization examples act on it (its own
 * organization's people record them there).
 */
export const EXAMPLE_PRE_AUTHORIZATION_WORKSPACE_ID = "6aeb3a86-6df2-8a52-9183-256be7af30dc";
export const EXAMPLE_PRE_AUTHORIZED_PLAYBOOK_ID = "97aea6d4-3a14-8b20-a2bd-29b6c9068d2c";
export const EXAMPLE_PRE_AUTHORIZATION_ID = "af48c5cf-92ae-8995-b3b2-32174b19295c";
