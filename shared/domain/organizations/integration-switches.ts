import { ApiError } from "../../platform/errors/api-error";
import { auditRecord } from "../../platform/events/audit-record";
import { logAnalyticsNotEnabled } from "../../systems/log-analytics/port";
import type { Uses } from "../operation-context";
import { outboxScope } from "../../platform/store/outbox-scope";
import { commit } from "../../platform/store/commit";
import { integrationNames, type IntegrationName, type WorkspaceIntegrationsRecord } from "../../model/organizations/workspace-integrations";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { ticketingNotEnabled } from "../../systems/itsm/port";

export type IntegrationStates = Record<IntegrationName, boolean>;

/** What reading a workspace's integration switches takes: its stored switches and the configured systems. */
export type IntegrationContext = Uses<"stores" | "ticketing" | "directoryLogs" | "logAnalytics" | "playbookActions">;

/**
 * Whether each integration is on for the workspace: the workspace's own switch (on unless turned
 * off) and the deployment having the system for it (a configured bridge, a tenant Graph may read, a
 * Log Analytics workspace behind it, an automation backend).
 */
export async function integrationStates(ctx: IntegrationContext, workspace: WorkspaceRecord): Promise<IntegrationStates> {
  const stored = await ctx.stores.integrations.get(workspace.id);
  return statesOf(ctx, workspace, stored?.value);
}

/** The states of a workspace's integrations from its switches as read (undefined: none stored, every one on). */
export function statesOf(ctx: Omit<IntegrationContext, "stores" | "signal">, workspace: WorkspaceRecord, stored: WorkspaceIntegrationsRecord | undefined): IntegrationStates {
  const switched = (name: IntegrationName) => stored?.enabled[name] ?? true;
  const { ticketing, directoryLogs, logAnalytics, playbookActions } = ctx;
  return {
    ticketing: switched("ticketing") && ticketing.isEnabled(workspace.id),
    directoryLogs: switched("directoryLogs") && directoryLogs.isEnabled(workspace.tenantId),
    logAnalytics: switched("logAnalytics") && logAnalytics.isEnabled(workspace.id),
    playbookAutomation: switched("playbookAutomation") && playbookActions.enabled,
  };
}

/**
 * Why an integration switched on is not in effect for the workspace: what the deployment lacks, named
 * by the setting that provides it, so that whoever reads it knows whom to ask for what.
 */
export function missingSystemOf(name: IntegrationName, workspace: Pick<WorkspaceRecord, "tenantId">): string {
  switch (name) {
    case "ticketing":
      return "The deployment has no ticketing bridge (TICKETING_URL).";
    case "directoryLogs":
      return `The deployment may not read the directory logs of tenant ${workspace.tenantId} (DIRECTORY_LOGS_TENANT_IDS).`;
    case "logAnalytics":
      return "The deployment maps no Log Analytics workspace to this workspace (LOG_ANALYTICS_WORKSPACES).";
    case "playbookAutomation":
      return "The deployment has no playbook automation bridge (PLAYBOOK_AUTOMATION_URL).";
  }
}

/** Whether the workspace's own playbook automation switch is on (the executor's check before an automation step). */
export async function playbookAutomationSwitchedOn(ctx: Uses<"stores">, workspaceId: string): Promise<boolean> {
  return (await ctx.stores.integrations.get(workspaceId))?.value.enabled.playbookAutomation ?? true;
}

/** 400 EXTENSION_NOT_ENABLED naming the integration, unless it is on for the workspace. */
export async function requireIntegration(ctx: IntegrationContext, workspace: WorkspaceRecord, name: IntegrationName): Promise<void> {
  if (!(await integrationStates(ctx, workspace))[name]) throw notEnabled(name, workspace.id);
}

export function notEnabled(name: IntegrationName, workspaceId: string): ApiError {
  if (name === "ticketing") return ticketingNotEnabled(workspaceId);
  if (name === "directoryLogs") {
    return new ApiError("EXTENSION_NOT_ENABLED", `The directory logs integration is not enabled for workspace ${workspaceId}.`, { target: "directoryLogs" });
  }
  if (name === "playbookAutomation") {
    return new ApiError("EXTENSION_NOT_ENABLED", `The playbook automation integration is not enabled for workspace ${workspaceId}.`, { target: "playbookAutomation" });
  }
  return logAnalyticsNotEnabled(workspaceId);
}

/**
 * Turns integrations of a workspace on or off (the portal's setting; the demo seed's on the local host),
 * audited with the change. Integrations not named keep their state.
 */
export async function switchIntegrations(ctx: Uses<"actor" | "events" | "now" | "stores">, workspace: WorkspaceRecord, change: Partial<IntegrationStates>): Promise<IntegrationStates> {
  const { stores } = ctx;
  const now = ctx.now();
  const audit = (before: IntegrationStates, after: IntegrationStates) =>
    auditRecord(
      ctx.actor,
      {
        activityType: "WorkspaceIntegrations",
        activityAction: "Update",
        targetResourceType: "Workspace",
        targetResourceId: workspace.id,
        targetResourceName: workspace.name,
        metadata: { before, after },
        workspaceId: workspace.id,
        accountId: workspace.accountId,
      },
      outboxScope.workspace(workspace.id),
      now,
    );
  const allOn = Object.fromEntries(integrationNames.map((n) => [n, true])) as IntegrationStates;
  const saved = await commit({
    deadline: ctx.deadline,
    async read() {
      const found = await stores.integrations.get(workspace.id);
      const absent: WorkspaceIntegrationsRecord = { id: "integrations", docType: "integrations", workspaceId: workspace.id, enabled: allOn, updatedAt: now.toISOString() };
      return found ?? { value: absent, etag: null };
    },
    change(draft) {
      const before = { ...allOn, ...draft.enabled };
      draft.enabled = { ...before, ...change };
      draft.updatedAt = now.toISOString();
      return [audit(before, { ...allOn, ...draft.enabled })];
    },
    write: (draft, etag, outbox) => (etag === null ? stores.integrations.create(draft, outbox) : stores.integrations.replace(draft, etag, outbox)),
    outbox: ctx.events.outbox,
  });
  return { ...allOn, ...saved.value.enabled };
}
