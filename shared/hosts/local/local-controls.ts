import { z } from "zod";
import { publicRoute } from "../../api/route-kinds";
import type { Route } from "../../platform/http/route";
import { addServiceComment } from "../../domain/incidents/service-comments";
import { triggerIncidentCreated } from "../../domain/incidents/manual-trigger";
import { completeInvestigation, DEFAULT_AGENT_NAME } from "../../domain/incidents/agent-investigations";
import { expireApprovals } from "../../domain/gamebooks/approval-expiry";
import { findWorkspace } from "../../domain/incidents/incident-access";
import { serviceActor } from "../../platform/actor";
import { classifications, severities } from "../../model/incidents/incident";
import { sourceSchema } from "../../model/sources";
import type { SimulatedSystems } from "./local-services";
import { itsmControlRoutes } from "./itsm-controls";
import { localControlsIndexRoute } from "./local-controls-index";

const tag = "Local controls";
const incidentPath = z.object({ source: sourceSchema(), workspaceId: z.guid(), incidentId: z.string().min(1).max(256) });

/**
 * Local host only (never registered in Azure): stand-ins for the world outside the service, so that a
 * person or a test can watch incidents be ingested and webhooks fire without Azure. The vendors'
 * consoles (create, close, delete an incident; an agent's or a gamebook's comment; the investigation
 * agent's report), the ITSM's resolvers, and the timers (a reconciler pass, the approval expiry) run
 * now. Served under /_local without authentication, like a vendor's own console on the developer's
 * machine; the local host listens on loopback by default. What operators do (approvals, policies,
 * integrations, the agent configuration) is not here: they sign in and use the portal's routes.
 */
export function localControlRoutes(simulated: SimulatedSystems): Route[] {
  const controls = [
    publicRoute({
      method: "POST",
      path: "/sources/{source}/workspaces/{workspaceId}/incidents",
      summary: "Create an incident in the simulated vendor (not yet ingested)",
      tag,
      params: z.object({ source: sourceSchema(), workspaceId: z.guid() }),
      body: z
        .object({ title: z.string().trim().min(1).max(300), severity: z.enum(severities).default("Medium") })
        .strict()
        .meta({ examples: [{ title: "Ransomware note on FILESRV-02", severity: "High" }] }),
      successStatus: 201,
      async handler({ params, body }) {
        const incident = simulated.vendors.createIncident(params.source, params.workspaceId.toLowerCase(), body);
        return { status: 201, data: { id: incident.id } };
      },
    }),
    publicRoute({
      method: "POST",
      path: "/sources/{source}/workspaces/{workspaceId}/incidents/{incidentId}/close",
      summary: "Close an incident in the simulated vendor's console",
      tag,
      params: incidentPath,
      body: z
        .object({ classification: z.enum(classifications), closingComment: z.string().trim().min(1).max(4000).optional() })
        .strict()
        .meta({ examples: [{ classification: "FalsePositive", closingComment: "VPN egress from the branch office." }] }),
      successStatus: 204,
      async handler({ params, body }) {
        simulated.vendors.close(params.source, params.workspaceId.toLowerCase(), params.incidentId, body.classification, body.closingComment);
        return { status: 204 };
      },
    }),
    publicRoute({
      method: "DELETE",
      path: "/sources/{source}/workspaces/{workspaceId}/incidents/{incidentId}",
      summary: "Delete an incident in the simulated vendor",
      tag,
      params: incidentPath,
      successStatus: 204,
      async handler({ params }) {
        simulated.vendors.deleteIncident(params.source, params.workspaceId.toLowerCase(), params.incidentId);
        return { status: 204 };
      },
    }),
    publicRoute({
      method: "POST",
      path: "/sources/{source}/workspaces/{workspaceId}/incidents/{incidentId}/comments",
      summary: "Add a comment as an agent or a gamebook would, through the service (incident.comment.added.v1)",
      tag,
      params: incidentPath,
      body: z
        .object({
          message: z.string().trim().min(1).max(4000),
          origin: z.enum(["agent", "gamebook"]).default("agent"),
          name: z.string().trim().min(1).max(200).default("Triage agent"),
        })
        .strict()
        .meta({ examples: [{ message: "Sender domain is 3 days old.", origin: "agent", name: "Triage agent" }] }),
      successStatus: 201,
      async handler(input) {
        const { params, body } = input;
        const workspace = await findWorkspace(input, params.workspaceId);
        const ctx = { ...input, actor: serviceActor(body.origin, body.name) };
        const { comment, eventId } = await addServiceComment(ctx, { workspace, source: params.source, incidentId: params.incidentId, message: body.message });
        return { status: 201, data: { commentId: comment.id, eventId } };
      },
    }),
    publicRoute({
      method: "POST",
      path: "/sources/{source}/workspaces/{workspaceId}/incidents/{incidentId}/trigger",
      summary: "Fire incident.created.v1 for this incident, as the portal's Trigger-webhook action does",
      tag,
      params: incidentPath,
      body: z.object({ webhookId: z.guid().optional() }).strict().default({}),
      successStatus: 202,
      async handler(input) {
        const { params, body } = input;
        const workspace = await findWorkspace(input, params.workspaceId);
        const ctx = { ...input, actor: serviceActor("portal", "Trigger webhook") };
        return { status: 202, data: await triggerIncidentCreated(ctx, { workspace, source: params.source, incidentId: params.incidentId, webhookId: body.webhookId }) };
      },
    }),
    publicRoute({
      method: "POST",
      path: "/sources/{source}/workspaces/{workspaceId}/incidents/{incidentId}/investigation",
      summary: "Complete an agent investigation of this incident (agent.investigation.completed.v1 per the agent configuration)",
      tag,
      params: incidentPath,
      body: z
        .object({
          classification: z.enum(classifications),
          maliciousScore: z.int().min(0).max(100).nullable().default(null),
          summary: z.string().trim().min(1).max(4000).nullable().default(null),
          investigationId: z.guid().optional(),
        })
        .strict()
        .meta({ examples: [{ classification: "TruePositive", maliciousScore: 87, summary: "C2 beaconing confirmed." }] }),
      successStatus: 202,
      async handler(input) {
        const { params, body } = input;
        const workspace = await findWorkspace(input, params.workspaceId);
        // Stands for the outside agent, which reports through POST …/agent-investigations with its
        // own service account: the same operation. The agent's name in the event comes from the
        // workspace's agent configuration, read by the operation.
        const ctx = { ...input, actor: serviceActor("agent", DEFAULT_AGENT_NAME) };
        return { status: 202, data: await completeInvestigation(ctx, { ...params, workspace, ...body }) };
      },
    }),
    ...itsmControlRoutes(simulated),
    // The timers' stand-ins: what a timer runs every minute, run now and answered when done, so that a
    // person or a test need not wait for the minute.
    publicRoute({
      method: "POST",
      path: "/reconcile",
      summary: "Run one reconciler pass now, as its timer does every minute, through the reconcile queue, and return its summary once every workspace is done",
      tag,
      async handler(services) {
        return { data: await services.reconciler.runPass() };
      },
    }),
    publicRoute({
      method: "POST",
      path: "/gamebooks/expire-approvals",
      summary: "Run the approval expiry now, as its timer does every minute: deny every request past its expiry, in every workspace",
      tag,
      response: z.object({ expired: z.array(z.object({ workspaceId: z.string(), runId: z.string() })), skipped: z.int(), failed: z.int() }),
      async handler(input) {
        return { data: await expireApprovals(input) };
      },
    }),
  ];
  // GET /_local/ lists the table above, so every control shows up there as soon as it is added.
  return [localControlsIndexRoute(controls, simulated.demo), ...controls];
}
