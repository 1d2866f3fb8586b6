import { createHash } from "node:crypto";
import { z } from "zod";
import { publicStatuses, severities, type VendorIncident } from "../../model/incidents/incident";
import { sources } from "../../model/sources";
import { internalStatuses, type IncidentStateRecord } from "../../model/incidents/incident-state-record";
import { slaView } from "./incident-state";
import { slaTargetSeconds } from "./sla-policy";
import type { SlaPolicy } from "../../model/incidents/sla-policy-record";

const assigneeView = z.object({
  userId: z.string().nullable(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  isAgent: z.boolean(),
});

const slaSchema = z
  .object({
    state: z.enum(["Running", "Paused", "Stopped"]).describe("Running; Paused while OnHold or WaitingOnCustomer; Stopped while closed (a reopen resumes it)."),
    elapsedSeconds: z.number().int().describe("Time counted against the SLA since creation, paused and closed time left out."),
    startedAt: z.string(),
    pausedSince: z.string().nullable(),
    stoppedAt: z.string().nullable(),
    targetSeconds: z
      .number()
      .int()
      .nullable()
      .describe("The workspace's time-to-resolve target for the incident's severity (`/portal/workspaces/{workspaceId}/sla-policy`); null: none."),
    remainingSeconds: z.number().int().nullable().describe("The target less the time counted; negative once breached; null without a target."),
    dueAt: z.string().nullable().describe("While the clock runs, when it reaches the target (in the past once breached); null while paused or stopped, and without a target."),
    breached: z.boolean().describe("The time counted has passed the target (a stopped clock: resolved late); false without a target."),
  })
  .describe("The service's time-to-resolve clock (an extension of the contract): paused by OnHold and WaitingOnCustomer, stopped by Closed.");

const incidentCore = {
  source: z.enum(sources),
  incident: z.object({
    id: z.string(),
    number: z.number().int(),
    title: z.string(),
    severity: z.enum(severities),
    status: z.enum(publicStatuses),
    workspaceId: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
  lastModificationTime: z.string().describe("Vendor last-modified time; compare with your stored copy to detect change."),
  lastActivityTime: z.string().describe("Time of the latest alert; analyst edits do not move it."),
  classification: z.string().nullable(),
  assignee: assigneeView.nullable(),
  serviceStatus: z.enum([...publicStatuses, ...internalStatuses]).describe("The service's status: an internal status (OnHold, WaitingOnCustomer) when set, otherwise the public one."),
  sla: slaSchema,
  vendorIdentifiers: z.record(z.string(), z.record(z.string(), z.string())),
};

/** A row of the cross-workspace listing: the incident as it is now, without its investigation detail. */
export const incidentSummaryView = z.object(incidentCore);

/** docs/contract.md §2.4, plus the service's own state (assignee, service status, SLA clock). */
export const incidentView = z.object({
  ...incidentCore,
  investigationDetails: z.object({ entities: z.array(z.record(z.string(), z.unknown())), alerts: z.array(z.record(z.string(), z.unknown())) }),
  evidence: z.record(z.string(), z.unknown()),
  gamebookCatalog: z
    .record(z.string(), z.unknown())
    .describe(
      "The playbooks the source recommends, as this workspace runs them: each `recommended[]` entry's `id` is a playbook of the workspace's catalogue " +
        "(the source's own name for the action is its `referenceId`) and `entityId` the entity it acts on, so it goes into `POST …/gamebooks/run` as it is. " +
        "`unavailable` lists what the workspace cannot run (`NotInCatalogue`, `SwitchedOff`, `NoEntity`).",
    ),
});

/** docs/contract.md §2.5: a comment of an incident, the source's or a linked ticket's. */
export const commentView = z.object({
  id: z.string(),
  message: z.string(),
  createdTime: z.string(),
  authorEmail: z.string(),
  authorName: z.string(),
  isActivityComment: z.boolean(),
  isAgentComment: z.boolean(),
  agentName: z.string().nullable(),
  isClosingComment: z.boolean(),
  ticketNoteId: z.string().nullable(),
  ticketId: z.string().nullable(),
});

export type IncidentSummaryView = z.output<typeof incidentSummaryView>;

/** The incident as listings show it; `workspace` gives the SLA target (its record is in hand: no read). */
export function toIncidentSummary(incident: VendorIncident, state: IncidentStateRecord, workspace: { slaPolicy?: SlaPolicy }, now: Date): IncidentSummaryView {
  return {
    source: incident.source,
    incident: {
      id: incident.id,
      number: incident.number,
      title: incident.title,
      severity: incident.severity,
      status: incident.status,
      workspaceId: incident.workspaceId,
      createdAt: incident.createdAt,
      updatedAt: incident.lastModificationTime,
    },
    lastModificationTime: incident.lastModificationTime,
    lastActivityTime: incident.lastActivityTime,
    classification: incident.status === "Closed" ? incident.classification : null,
    assignee: state.assignee,
    // The public status is the vendor's, read live; the service only adds its internal statuses.
    serviceStatus: state.internalStatus ?? incident.status,
    sla: slaView(state.sla, now, slaTargetSeconds(workspace, incident.severity)),
    vendorIdentifiers: incident.vendorIdentifiers,
  };
}

export function toIncidentView(
  incident: VendorIncident,
  state: IncidentStateRecord,
  workspace: { slaPolicy?: SlaPolicy },
  evidence: object,
  now: Date,
): z.output<typeof incidentView> {
  return {
    ...toIncidentSummary(incident, state, workspace, now),
    investigationDetails: { entities: incident.entities as never, alerts: incident.alerts as never },
    evidence: evidence as Record<string, unknown>,
    gamebookCatalog: incident.gamebookCatalog,
  };
}

/**
 * The incident's version for `If-Match`: it changes when the vendor's record changes or when the
 * service's own state does (`stateEtag` null while the service holds none).
 */
export function incidentEtag(incident: Pick<VendorIncident, "lastModificationTime">, stateEtag: string | null): string {
  const h = createHash("sha256").update(`${incident.lastModificationTime}\n${stateEtag ?? ""}`).digest("base64url");
  return `"${h.slice(0, 22)}"`;
}
