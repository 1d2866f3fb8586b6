import { z } from "zod";
import type { EntityQuery, IncidentWindowQuery, NewVendorComment, SourceGateway, VendorStatusChange } from "../../../shared/systems/vendors/port";
import type { PublicStatus, Severity } from "../../../shared/model/incidents/incident";
import { sources, type Source } from "../../../shared/model/sources";
import type { FakeHttpServer } from "../fake-http-server";
import {
  booleanParam,
  jsonBody,
  methodNotAllowed,
  noRoute,
  numberParam,
  startBridgeServer,
  textParam,
  type BridgeAnswer,
  type BridgeRequest,
} from "./bridge-server";

/**
 * A vendor bridge (docs/vendor-bridge.md) in front of simulated vendors: one base URL per source,
 * `<origin>/source-a` … `<origin>/source-g`, each serving that source's gateway over the nine
 * endpoints. What the gateway refuses is answered with the status of the doc's section 4.
 */
export interface VendorBridge {
  server: FakeHttpServer;
  /** The base URL serving `source`, e.g. `http://127.0.0.1:1234/source-a`. */
  baseUrl(source: Source): string;
  close(): Promise<void>;
}

const statusChangeSchema = z.object({
  // Enum values are left to the vendor to refuse, as it refuses them from any caller.
  status: z.string(),
  classification: z.string().optional(),
  closingComment: z.string().optional(),
});

const ownerBodySchema = z.object({
  owner: z
    .object({
      userId: z.string().nullable(),
      email: z.string().nullable(),
      name: z.string().nullable().optional(),
    })
    .nullable(),
});

const newCommentSchema = z.object({
  message: z.string(),
  authorEmail: z.string(),
  authorName: z.string(),
  isAgentComment: z.boolean(),
  agentName: z.string().nullable(),
  isClosingComment: z.boolean(),
  extensionId: z.string().nullable(),
  idempotencyKey: z.string().optional(),
});

const commentChangeSchema = z.object({ message: z.string() });

const slugOf = (source: Source) => source.replace(/^Source/, "source-").toLowerCase();

export async function startVendorBridge(vendors: { gateway(source: Source): SourceGateway }, options: { authHeader?: string } = {}): Promise<VendorBridge> {
  const bySlug = new Map(sources.map((source) => [slugOf(source), source]));
  /** Idempotency keys of comments added, so that a repeat is answered 200 rather than 201 (section 2.6). */
  const commentKeys = new Set<string>();

  async function route(request: BridgeRequest): Promise<BridgeAnswer> {
    const [slug, workspaces, workspaceId, kind, incidentId, sub, commentId, ...rest] = request.segments;
    const source = slug === undefined ? undefined : bySlug.get(slug);
    if (source === undefined || workspaces !== "workspaces" || workspaceId === undefined || rest.length > 0) noRoute();
    const gateway = vendors.gateway(source);
    const { method, query } = request;

    if (kind === "related-incidents" && incidentId === undefined) {
      if (method !== "GET") methodNotAllowed();
      const entityQuery: EntityQuery = {
        workspaceId,
        incidentId: textParam(query, "incidentId"),
        entityKind: textParam(query, "entityKind") as EntityQuery["entityKind"],
        entityFilter: textParam(query, "entityFilter"),
        entityName: textParam(query, "entityName"),
        timeField: textParam(query, "timeField") as EntityQuery["timeField"],
        startDate: textParam(query, "startDate"),
        endDate: textParam(query, "endDate"),
        limit: numberParam(query, "limit"),
      };
      return { status: 200, body: { items: await gateway.relatedByEntity(entityQuery) } };
    }
    if (kind !== "incidents") noRoute();

    if (incidentId === undefined) {
      if (method !== "GET") methodNotAllowed();
      const windowQuery: IncidentWindowQuery = {
        workspaceId,
        field: textParam(query, "field") as IncidentWindowQuery["field"],
        from: query.get("from") as string,
        to: query.get("to") as string,
        limit: numberParam(query, "limit"),
        cursor: textParam(query, "cursor"),
        filters: {
          severities: query.getAll("severity") as Severity[],
          statuses: query.getAll("status") as PublicStatus[],
          query: textParam(query, "query"),
          assigneeEmails: query.getAll("assigneeEmail"),
          includeUnassigned: booleanParam(query, "includeUnassigned"),
        },
        includeDeleted: booleanParam(query, "includeDeleted"),
      };
      const page = await gateway.listIncidents(windowQuery);
      return { status: 200, body: page.cursor === undefined ? { items: page.items } : { items: page.items, cursor: page.cursor } };
    }

    if (commentId !== undefined && sub !== "comments") noRoute();
    switch (sub) {
      case undefined:
        if (method !== "GET") methodNotAllowed();
        return { status: 200, body: await gateway.getIncident(workspaceId, incidentId) };
      case "status": {
        if (method !== "PUT") methodNotAllowed();
        const change = jsonBody(request.body, statusChangeSchema) as VendorStatusChange;
        return { status: 200, body: await gateway.setStatus(workspaceId, incidentId, change) };
      }
      case "owner": {
        if (method !== "PUT") methodNotAllowed();
        const { owner } = jsonBody(request.body, ownerBodySchema);
        return { status: 200, body: await gateway.setOwner(workspaceId, incidentId, owner) };
      }
      case "evidence":
        if (method !== "GET") methodNotAllowed();
        return { status: 200, body: await gateway.getEvidence(workspaceId, incidentId) };
      case "comments":
        if (commentId !== undefined) {
          if (method === "PUT") {
            const { message } = jsonBody(request.body, commentChangeSchema);
            return { status: 200, body: await gateway.updateComment(workspaceId, incidentId, commentId, { message }) };
          }
          if (method !== "DELETE") methodNotAllowed();
          await gateway.deleteComment(workspaceId, incidentId, commentId);
          return { status: 204 };
        }
        if (method === "GET") return { status: 200, body: { items: await gateway.listComments(workspaceId, incidentId) } };
        if (method === "POST") {
          const comment: NewVendorComment = jsonBody(request.body, newCommentSchema);
          const added = await gateway.addComment(workspaceId, incidentId, comment);
          if (comment.idempotencyKey === undefined) return { status: 201, body: added };
          const key = JSON.stringify([source, workspaceId, incidentId, comment.idempotencyKey]);
          const repeat = commentKeys.has(key);
          commentKeys.add(key);
          return { status: repeat ? 200 : 201, body: added };
        }
        return methodNotAllowed();
      default:
        return noRoute();
    }
  }

  const server = await startBridgeServer(route, options);
  return {
    server,
    baseUrl: (source) => `${server.origin}/${slugOf(source)}`,
    close: () => server.close(),
  };
}
