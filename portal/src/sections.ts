import type { ComponentType } from "preact";
import { BASE } from "./router";
import { ApprovalsPage } from "./approvals/approvals";
import { NewWebhookPage, WebhooksPage } from "./webhooks/webhooks";
import { IncidentsPage } from "./incidents/incidents";
import { IncidentDetailPage } from "./incidents/incident-detail";
import { WebhookDetailPage } from "./webhooks/webhook-detail";
import { WorkspacesPage } from "./workspaces/workspaces";
import { WorkspacePage } from "./workspaces/workspace";
import { PeoplePage } from "./people/people";
import { PersonPage } from "./people/person";
import { ContentPage } from "./content/content";
import { AgentsPage } from "./agents/agents";
import { SopsPage } from "./sops/sops";
import { NewServiceAccountPage } from "./service-accounts/new-service-account";
import { ServiceAccountPage } from "./service-accounts/service-account";
import { ServiceAccountsPage } from "./service-accounts/service-accounts";
import { DecidedApprovalsPage } from "./history/history-approvals";
import { RunHistoryPage } from "./history/history-runs";
import { AuditTrailPage } from "./history/history-audit";

/** A view: a path pattern under /portal (`:name` segments become params) and the page that shows it. */
export interface View {
  pattern: string;
  page: ComponentType<{ params: Record<string, string> }>;
}

/** A section of the portal: its entry in the navigation and its views. */
export interface Section {
  label: string;
  href: string;
  views: View[];
}

/** The portal's sections, in the navigation's order: what operators do most comes first. */
export const SECTIONS: Section[] = [
  { label: "Approvals", href: `${BASE}/approvals`, views: [{ pattern: "/approvals", page: ApprovalsPage }] },
  {
    label: "Incidents",
    href: `${BASE}/incidents`,
    views: [
      { pattern: "/incidents", page: IncidentsPage },
      { pattern: "/incidents/:workspaceId/:source/:incidentId", page: IncidentDetailPage },
    ],
  },
  {
    label: "History",
    href: `${BASE}/history`,
    views: [
      { pattern: "/history", page: DecidedApprovalsPage },
      { pattern: "/history/runs", page: RunHistoryPage },
      { pattern: "/history/audit", page: AuditTrailPage },
    ],
  },
  {
    label: "Webhooks",
    href: `${BASE}/webhooks`,
    views: [
      { pattern: "/webhooks", page: WebhooksPage },
      { pattern: "/webhooks/new", page: NewWebhookPage },
      { pattern: "/webhooks/:webhookId", page: WebhookDetailPage },
    ],
  },
  {
    label: "Workspaces",
    href: `${BASE}/workspaces`,
    views: [
      { pattern: "/workspaces", page: WorkspacesPage },
      { pattern: "/workspaces/:workspaceId", page: WorkspacePage },
    ],
  },
  {
    label: "People",
    href: `${BASE}/people`,
    views: [
      { pattern: "/people", page: PeoplePage },
      { pattern: "/people/new", page: PersonPage },
      { pattern: "/people/:userId", page: PersonPage },
    ],
  },
  {
    label: "Service accounts",
    href: `${BASE}/service-accounts`,
    views: [
      { pattern: "/service-accounts", page: ServiceAccountsPage },
      { pattern: "/service-accounts/new", page: NewServiceAccountPage },
      { pattern: "/service-accounts/:id", page: ServiceAccountPage },
    ],
  },
  { label: "Playbooks & rules", href: `${BASE}/content`, views: [{ pattern: "/content", page: ContentPage }] },
  { label: "Agents", href: `${BASE}/agents`, views: [{ pattern: "/agents", page: AgentsPage }] },
  { label: "SOPs", href: `${BASE}/sops`, views: [{ pattern: "/sops", page: SopsPage }] },
];
