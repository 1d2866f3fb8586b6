import type { paths } from "../api/openapi";

export type IncidentPath = paths["/api/v2/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}"]["get"]["parameters"]["path"];
export type Run = paths["/api/v2/portal/workspaces/{workspaceId}/gamebook-runs/{runId}"]["get"]["responses"][200]["content"]["application/json"]["data"];
export type Offer = paths["/api/v2/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}/playbooks"]["get"]["responses"][200]["content"]["application/json"]["data"];
export type OfferedPlaybook = Offer["playbooks"][number];
export type Parameter = OfferedPlaybook["parameters"][number];
export type RunBody = NonNullable<paths["/api/v2/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}/runs"]["post"]["requestBody"]>["content"]["application/json"];
export type Preview = paths["/api/v2/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}/runs/preview"]["post"]["responses"][200]["content"]["application/json"]["data"];
