import type { ComponentType } from "preact";
import { BASE } from "./router";
import { ApprovalsPage } from "./pages/approvals";
import { NewWebhookPage, WebhooksPage } from "./pages/webhooks";
import { IncidentsPage } from "./pages/incidents";
import { IncidentDetailPage } from "./pages/incident-detail";
import { WebhookDetailPage } from "./pages/webhook-detail";
import { WorkspacesPage } from "./pages/workspaces";
import { WorkspacePage } from "./pages/workspace";
import { PeoplePage, PersonPage } from "./pages/people";
import { ContentPage } from "./pages/content";
import { AgentsPage } from "./pages/agents";
import { SopsPage } from "./pages/sops";
import { NewServiceAccountPage, ServiceAccountPage, ServiceAccountsPage } from "./pages/service-accounts";
import { DecidedApprovalsPage } from "./pages/history-approvals";
import { RunHistoryPage } from "./pages/history-runs";
import { AuditTrailPage } from "./pages/history-audit";

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
