import { createJsonHttpClient, queryString, type JsonCall, type QueryValue } from "../../../platform/upstream/json-http-client";
import type { SourceGateway } from "../port";
import type { VendorIncident } from "../../../model/incidents/incident";
import type { Source } from "../../../model/sources";
import {
  commentListSchema,
  evidenceSchema,
  incidentListSchema,
  incidentPageSchema,
  vendorCommentSchema,
  vendorIncidentSchema,
} from "./vendor-wire";

/**
 * The generic HTTP vendor adapter: a SourceGateway over the JSON contract of docs/vendor-bridge.md,
 * which a bridge in front of a real vendor implements. Transport, deadlines, size bounds and the
 * docs/contract.md §7 error mapping are the shared bridge client's; this file knows the vendor routes.
 */
export interface HttpVendorOptions {
  source: Source;
  /** e.g. "https://bridge.example.com/source-a" (a trailing slash is ignored). */
  baseUrl: string;
  /** Full value of the Authorization header sent to the bridge; never logged, never in errors. */
  authHeader?: string;
  /** Per request, covering the headers and the body. */
  timeoutMs: number;
  /** Injectable for tests; defaults to globalThis.fetch. */
  fetch?: typeof fetch;
}

export function createHttpVendorGateway(options: HttpVendorOptions): SourceGateway {
  const { source } = options;
  const client = createJsonHttpClient({ system: source, ...options });
  const segment = (value: string) => client.segment(value);

  /** An answer about another source, workspace or incident is as wrong as a malformed one. */
  function check(call: JsonCall, items: readonly VendorIncident[], workspaceId: string, incidentId?: string, limit?: number) {
    const wrong = (why: string) => client.invalid(call, why);
    if (limit !== undefined && items.length > limit) throw wrong(`more items than the limit of ${limit}`);
    for (const item of items) {
      if (item.source !== source) throw wrong("source does not match the request");
      if (item.workspaceId !== workspaceId) throw wrong("workspaceId does not match the request");
      if (incidentId !== undefined && item.id !== incidentId) throw wrong("id does not match the request");
    }
  }

  const incidentPath = (workspaceId: string, incidentId: string) =>
    `/workspaces/${segment(workspaceId)}/incidents/${segment(incidentId)}`;
  const about = (workspaceId: string, incidentId: string) => `incident ${incidentId} in workspace ${workspaceId}`;

  async function incidentCall(call: JsonCall, workspaceId: string, incidentId: string, signal?: AbortSignal) {
    const incident = await client.read(call, vendorIncidentSchema, signal);
    check(call, [incident], workspaceId, incidentId);
    return incident;
  }

  // Every method is async so that even a synchronous refusal (segment) arrives as a rejection.
  return {
    source,

    getIncident: async (workspaceId, incidentId, signal) =>
      incidentCall(
        { method: "GET", path: incidentPath(workspaceId, incidentId), what: `reading ${about(workspaceId, incidentId)}` },
        workspaceId,
        incidentId,
        signal,
      ),

    async listIncidents(query, signal) {
      const f = query.filters ?? {};
      const call: JsonCall = {
        method: "GET",
        path:
          `/workspaces/${segment(query.workspaceId)}/incidents` +
          queryString([
            ["field", query.field],
            ["from", query.from],
            ["to", query.to],
            ["limit", query.limit],
            ["cursor", query.cursor],
            ...(f.severities ?? []).map((v): [string, QueryValue] => ["severity", v]),
            ...(f.statuses ?? []).map((v): [string, QueryValue] => ["status", v]),
            ["query", f.query],
            ...(f.assigneeEmails ?? []).map((v): [string, QueryValue] => ["assigneeEmail", v]),
            ["includeUnassigned", f.includeUnassigned],
            ["includeDeleted", query.includeDeleted],
          ]),
        what: `listing the incidents of workspace ${query.workspaceId}`,
      };
      const page = await client.read(call, incidentPageSchema, signal);
      check(call, page.items, query.workspaceId, undefined, query.limit);
      return page.cursor === undefined ? { items: page.items } : { items: page.items, cursor: page.cursor };
    },

    setStatus: async (workspaceId, incidentId, change, signal) =>
      incidentCall(
        {
          method: "PUT",
          path: `${incidentPath(workspaceId, incidentId)}/status`,
          body: change,
          what: `setting the status of ${about(workspaceId, incidentId)}`,
        },
        workspaceId,
        incidentId,
        signal,
      ),

    setOwner: async (workspaceId, incidentId, owner, signal) =>
      incidentCall(
        {
          method: "PUT",
          path: `${incidentPath(workspaceId, incidentId)}/owner`,
          body: { owner },
          what: `setting the owner of ${about(workspaceId, incidentId)}`,
        },
        workspaceId,
        incidentId,
        signal,
      ),

    async listComments(workspaceId, incidentId, signal) {
      const call: JsonCall = {
        method: "GET",
        path: `${incidentPath(workspaceId, incidentId)}/comments`,
        what: `listing the comments of ${about(workspaceId, incidentId)}`,
      };
      return (await client.read(call, commentListSchema, signal)).items;
    },

    addComment: async (workspaceId, incidentId, comment, signal) =>
      client.read(
        {
          method: "POST",
          path: `${incidentPath(workspaceId, incidentId)}/comments`,
          body: comment,
          what: `adding a comment to ${about(workspaceId, incidentId)}`,
        },
        vendorCommentSchema,
        signal,
      ),

    updateComment: async (workspaceId, incidentId, commentId, change, signal) =>
      client.read(
        {
          method: "PUT",
          path: `${incidentPath(workspaceId, incidentId)}/comments/${segment(commentId)}`,
          body: change,
          what: `updating comment ${commentId} of ${about(workspaceId, incidentId)}`,
        },
        vendorCommentSchema,
        signal,
      ),

    async deleteComment(workspaceId, incidentId, commentId, signal) {
      const call: JsonCall = {
        method: "DELETE",
        path: `${incidentPath(workspaceId, incidentId)}/comments/${segment(commentId)}`,
        what: `deleting comment ${commentId} of ${about(workspaceId, incidentId)}`,
      };
      await client.send(call, signal);
    },

    getEvidence: async (workspaceId, incidentId, signal) =>
      client.read(
        {
          method: "GET",
          path: `${incidentPath(workspaceId, incidentId)}/evidence`,
          what: `reading the evidence of ${about(workspaceId, incidentId)}`,
        },
        evidenceSchema,
        signal,
      ),

    async relatedByEntity(query, signal) {
      const call: JsonCall = {
        method: "GET",
        path:
          `/workspaces/${segment(query.workspaceId)}/related-incidents` +
          queryString([
            ["incidentId", query.incidentId],
            ["entityKind", query.entityKind],
            ["entityFilter", query.entityFilter],
            ["entityName", query.entityName],
            ["timeField", query.timeField],
            ["startDate", query.startDate],
            ["endDate", query.endDate],
            ["limit", query.limit],
          ]),
        what: `finding related incidents in workspace ${query.workspaceId}`,
      };
      const { items } = await client.read(call, incidentListSchema, signal);
      check(call, items, query.workspaceId, undefined, query.limit);
      return items;
    },
  };
}
