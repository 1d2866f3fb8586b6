import { api, call } from "../api/client";
import type { paths } from "../api/openapi";

export type QueueEnvelope = paths["/api/v2/portal/approvals"]["get"]["responses"][200]["content"]["application/json"];
export type ApprovalRequest = QueueEnvelope["data"][number];
export async function readQueue(continuationToken?: string): Promise<QueueEnvelope> {
  return call(api.GET("/api/v2/portal/approvals", { params: { query: { pageSize: 50, continuationToken } } }));
}

export async function readOne(workspaceId: string, runId: string): Promise<ApprovalRequest> {
  return (await call(api.GET("/api/v2/portal/workspaces/{workspaceId}/approvals/{runId}", { params: { path: { workspaceId, runId } } }))).data;
}
