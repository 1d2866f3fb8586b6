import { createHash } from "node:crypto";
import { z } from "zod";
import { publicStatuses, severities, type VendorIncident } from "../../systems/vendors/port";
import { sources } from "../sources";
import { internalStatuses, type IncidentStateRecord } from "./incident-state-record";
import { slaView } from "./incident-state";

const assigneeView = z.object({
  userId: z.string().nullable(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  isAgent: z.boolean(),
});

const slaSchema = z.object({
  state: z.enum(["Running", "Paused", "Stopped"]),
  elapsedSeconds: z.number().int(),
  startedAt: z.string(),
  pausedSince: z.string().nullable(),
  stoppedAt: z.string().nullable(),
});

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

/** Contract 2.4, plus the service's own state (assignee, service status, SLA clock). */
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

/** Contract 2.5: a comment of an incident, the source's or a linked ticket's. */
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

export function toIncidentSummary(incident: VendorIncident, state: IncidentStateRecord, now: Date): IncidentSummaryView {
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
    sla: slaView(state.sla, now),
    vendorIdentifiers: incident.vendorIdentifiers,
  };
}

export function toIncidentView(
  incident: VendorIncident,
  state: IncidentStateRecord,
  evidence: object,
  now: Date,
): z.output<typeof incidentView> {
  return {
    ...toIncidentSummary(incident, state, now),
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
