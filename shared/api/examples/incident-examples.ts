import { EXAMPLE_INCIDENT_BLOCK, EXAMPLE_ANALYST, EXAMPLE_CUSTOMER_TENANT_ID, EXAMPLE_INCIDENT, EXAMPLE_SECOND_WORKSPACE_ID, EXAMPLE_WORKSPACE_ID } from "../../platform/http/examples";

// Examples of the OpenAPI document for incidents: EXAMPLE_INCIDENT of the demo workspace
// fabrikam-sentinel-prod, as the simulated SourceA serves it (see platform/http/examples.ts).

const consoleUrl = (id: string) =>
  `https://console.source-a.example/tenants/${EXAMPLE_CUSTOMER_TENANT_ID}/workspaces/${EXAMPLE_WORKSPACE_ID}/incidents/${id}`;

export const incidentSummaryExample = {
  source: EXAMPLE_INCIDENT.source,
  incident: EXAMPLE_INCIDENT_BLOCK,
  lastModificationTime: "2026-03-02T08:41:07.602Z",
  lastActivityTime: "2026-03-02T08:41:07.602Z",
  classification: null,
  assignee: { userId: EXAMPLE_ANALYST.id, email: EXAMPLE_ANALYST.email, name: EXAMPLE_ANALYST.displayName, isAgent: false },
  serviceStatus: "New",
  // The demo workspace's High target: 4 hours.
  sla: {
    state: "Running",
    elapsedSeconds: 2417,
    startedAt: "2026-03-02T08:41:07.602Z",
    pausedSince: null,
    stoppedAt: null,
    targetSeconds: 14_400,
    remainingSeconds: 11_983,
    dueAt: "2026-03-02T12:41:07.602Z",
    breached: false,
  },
  vendorIdentifiers: {
    sourceA: { incidentId: EXAMPLE_INCIDENT.id, incidentNumber: String(EXAMPLE_INCIDENT.number), incidentUrl: consoleUrl(EXAMPLE_INCIDENT.id) },
  },
};

const HOST_ENTITY = "host-5b1f0c7e9a2d";
const ACCOUNT_ENTITY = "acct-8e4c2a6f1d93";

export const evidenceExample = {
  rows: [
    { id: "ev-3c9e1f7a5b2d4e60", entityId: HOST_ENTITY, kind: "ProcessTree", verdict: "Malicious", detail: "powershell.exe -enc launched by winword.exe", collectedAt: "2026-03-02T08:44:12.031Z" },
    { id: "ev-7a2d5e8c1f4b9036", entityId: ACCOUNT_ENTITY, kind: "SignInActivity", verdict: "Suspicious", detail: "Interactive sign-in to a domain controller outside working hours", collectedAt: "2026-03-02T08:47:55.480Z" },
  ],
};

export const incidentExample = {
  ...incidentSummaryExample,
  investigationDetails: {
    entities: [
      { id: HOST_ENTITY, kind: "Host", name: "FAB-DC-4624", properties: { hostName: "FAB-DC-4624", dnsDomain: "fabrikam.local", osFamily: "Windows" } },
      { id: ACCOUNT_ENTITY, kind: "Account", name: "svc-backup@fabrikam.example", properties: { upn: "svc-backup@fabrikam.example", accountName: "svc-backup", domain: "FABRIKAM" } },
    ],
    alerts: [
      {
        id: "9b4e2c7a-1f3d-8e5b-a6c0-d2f4b8e1a7c3",
        title: "Suspicious PowerShell command line",
        severity: "High",
        timeGenerated: "2026-03-02T08:41:07.602Z",
        productName: "Cloud SIEM Analytics",
        tactics: ["Execution", "DefenseEvasion"],
        entityIds: [HOST_ENTITY, ACCOUNT_ENTITY],
      },
    ],
  },
  evidence: evidenceExample,
  gamebookCatalog: {
    catalogVersion: "2024.11",
    // As the workspace's catalogue runs them: its playbook id, the vendor's name for the action as referenceId.
    recommended: [
      {
        id: "ba7b3cbf-37d7-83d6-a145-af9f138b1a33",
        referenceId: "isolate-host",
        name: "Isolate host",
        description: "Cuts the device off the network except for the endpoint service's channel.",
        entityType: "Host",
        entityId: HOST_ENTITY,
        isAdminRequired: true,
      },
    ],
    unavailable: [],
  },
};

export const commentsExample = [
  {
    id: "2f8a6c4e-1b3d-8f5a-9c7e-0d2b4f6a8c1e",
    message: "Triage summary: encoded PowerShell from an Office document on a domain controller; recommend isolating the host.",
    createdTime: "2026-03-02T08:52:31.214Z",
    authorEmail: "agent@soc-automation.example",
    authorName: "Investigation Agent",
    isActivityComment: false,
    isAgentComment: true,
    agentName: "Investigation Agent",
    isClosingComment: false,
    ticketNoteId: null,
    ticketId: null,
  },
  {
    id: "6d1e3a5c-7f9b-8d2e-b4a6-c8e0f2a4b6d8",
    message: "Playbook \"Isolate host\" completed.",
    createdTime: "2026-03-02T09:03:12.770Z",
    authorEmail: "connector@soar.example",
    authorName: "SOAR connector",
    isActivityComment: true,
    isAgentComment: false,
    agentName: null,
    isClosingComment: false,
    ticketNoteId: null,
    ticketId: null,
  },
];

/** Work starts on the incident. */
export const updateStatusExample = { status: "Active" };

export const updateAssigneeExample = { userId: EXAMPLE_ANALYST.id, email: EXAMPLE_ANALYST.email };

/** An integration writes a comment for its triage agent. */
export const serviceCommentExample = {
  message: "Sender domain registered 3 days ago; 14 mailboxes received the same attachment.",
  agentName: "Triage agent",
};

/** An integration's edit of a comment it wrote. */
export const serviceCommentUpdateExample = {
  message: "Playbook \"Enrich incident\" completed: 3 of 4 indicators enriched; the sender domain is on no feed yet.",
};

/** The comment as that write answers it (docs/contract.md §2.5). */
export const serviceCommentViewExample = {
  id: "9b3f5d7e-2c4a-8e6f-b1d3-5f7a9c1e3b5d",
  message: serviceCommentExample.message,
  createdTime: "2026-03-02T09:14:55.301Z",
  authorEmail: "",
  authorName: "Triage agent",
  isActivityComment: false,
  isAgentComment: true,
  agentName: "Triage agent",
  isClosingComment: false,
  ticketNoteId: null,
  ticketId: null,
};

/** The demo workspaces' SLA targets (minutes to resolve): four hours for High, a day for Medium, three days for Low, none for Informational. */
export const demoSlaPolicy = { timeToResolveMinutes: { Informational: null, Low: 4320, Medium: 1440, High: 240 } };

/** An analyst's note on the incident page. */
export const analystCommentExample = { message: "Called the user: the sign-in was not them. Resetting credentials." };

/** The first page of the week's high and medium severity incidents of every mapped workspace. */
export const acrossWorkspacesExample = {
  severities: ["High", "Medium"],
  statuses: ["New", "Active"],
  sources: [],
  isFirstCall: true,
  workspacePageTokens: [],
};

export const acrossWorkspacesResultExample = {
  incidents: [incidentSummaryExample],
  sourcePageTokens: [
    { workspaceId: EXAMPLE_WORKSPACE_ID, sourceTokens: { SourceA: "eyJ3IjoiMzM4NzMyNjUiLCJzIjoiU291cmNlQSIsImEiOjkxMzl9.c2lnbmF0dXJl" } },
    { workspaceId: EXAMPLE_SECOND_WORKSPACE_ID, sourceTokens: { SourceB: "eyJ3IjoiNmFlYjNhODYiLCJzIjoiU291cmNlQiIsImEiOjQ0MDJ9.c2lnbmF0dXJl" } },
  ],
  moreIncidentsAvailable: true,
};

/** An agent's verdict on EXAMPLE_INCIDENT, with its own investigation id (a repeat is the same event). */
export const agentInvestigationExample = {
  investigationId: "4f8c2d1a-6b3e-4a7f-9d2c-8e1b0a9f7c65",
  classification: "TruePositive",
  maliciousScore: 87,
  summary: "Encoded PowerShell fetched a second stage from a domain registered three days ago; C2 beaconing confirmed.",
};

export const agentInvestigationResultExample = {
  investigationId: agentInvestigationExample.investigationId,
  eventId: "9b2f6e4c-1d8a-8c3e-a5f7-2e6d0c4b8a13",
  webhookIds: ["319a4962-405f-8b40-a23d-50cc209b83f0"],
};
