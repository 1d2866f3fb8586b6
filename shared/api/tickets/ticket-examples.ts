import { EXAMPLE_INCIDENT, EXAMPLE_SERVICE_ACCOUNT_ID, EXAMPLE_WORKSPACE_ID } from "../../platform/http/examples";

// Examples of the OpenAPI document for tickets: the demo workspace's Jira-style desk and EXAMPLE_TICKET.

/** SEC-2219 on the demo workspace's Jira-style desk, as a search finds it. */
const exampleTicket = {
  ticketSystem: "Jira Service Management",
  ticketId: "12219",
  ticketNumber: "SEC-2219",
  url: "https://fabrikam.atlassian.example/browse/SEC-2219",
  title: "Security incident: impossible travel for s.novak@fabrikam.example",
  status: "Closed",
  state: "Closed",
  priority: "P3",
  groupingIds: ["case-b0d15480"],
  assignmentGroup: "Service Desk",
  assignee: "Elena Petrova",
  createdAt: "2026-02-21T21:32:18.024Z",
  updatedAt: "2026-02-22T11:32:18.024Z",
};

export const ticketSearchExample = [{ ...exampleTicket, links: [] }];

export const ticketLinkExample = {
  id: "2d70eb6c-5153-8f68-8004-27b6ce1de704",
  workspaceId: EXAMPLE_WORKSPACE_ID,
  source: "SourceA",
  incidentId: EXAMPLE_INCIDENT.id,
  ticketSystem: "Jira Service Management",
  ticketId: "12219",
  ticketNumber: "SEC-2219",
  url: "https://fabrikam.atlassian.example/browse/SEC-2219",
  linkedAt: "2026-03-02T22:16:08.160Z",
  linkedBy: { serviceAccountId: EXAMPLE_SERVICE_ACCOUNT_ID, userId: null, name: "SOAR connector" },
};

/** The demo's link of the gamebook run example's incident and SEC-2228, as a read shows it. */
export const demoLinkExample = {
  ...ticketLinkExample,
  id: "beffa9d7-bf61-86d8-bef4-7a6bf6670a48",
  incidentId: "effe7c24-f901-892c-9d77-16282227156c",
  ticketId: "12228",
  ticketNumber: "SEC-2228",
  url: "https://fabrikam.atlassian.example/browse/SEC-2228",
};

/** The same ticket after its priority was raised to P1. */
export const ticketPriorityExample = { ...exampleTicket, priority: "P1", updatedAt: "2026-03-02T22:16:08.191Z" };
