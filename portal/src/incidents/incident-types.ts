import type { paths } from "../api/openapi";

export const DETAIL = "/api/v2/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}";
export type Detail = paths[typeof DETAIL]["get"]["responses"][200]["content"]["application/json"]["data"];
export type Incident = Detail["incident"];
export type Sla = Incident["sla"];
export type IncidentPath = paths[typeof DETAIL]["get"]["parameters"]["path"];
export type StatusBody = NonNullable<paths[`${typeof DETAIL}/status`]["put"]["requestBody"]>["content"]["application/json"];
export type Status = StatusBody["status"];
export type Classification = NonNullable<StatusBody["classification"]>;
export type Assignee = paths[`${typeof DETAIL}/assignees`]["get"]["responses"][200]["content"]["application/json"]["data"][number];
export type TicketLink = paths[`${typeof DETAIL}/tickets`]["get"]["responses"][200]["content"]["application/json"]["data"][number];

export const OPEN_STATUSES: readonly { value: Exclude<Status, "Closed">; label: string }[] = [
  { value: "New", label: "New" },
  { value: "Active", label: "Active" },
  { value: "OnHold", label: "On hold (pauses the SLA clock)" },
  { value: "WaitingOnCustomer", label: "Waiting on customer (pauses the SLA clock)" },
];

export const CLASSIFICATIONS: readonly { value: Classification; label: string }[] = [
  { value: "TruePositive", label: "True positive" },
  { value: "BenignPositive", label: "Benign positive" },
  { value: "FalsePositive", label: "False positive" },
  { value: "Undetermined", label: "Undetermined" },
];

/** Sources whose comments go through the service (the comment paths' sources). */
export const COMMENT_SOURCES = ["SourceA", "SourceB", "SourceC", "SourceD", "SourceE", "SourceF"];
