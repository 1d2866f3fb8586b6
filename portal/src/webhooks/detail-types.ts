import type { paths } from "../api/openapi";

export type HealthEnvelope = paths["/api/v2/portal/webhooks/{webhookId}"]["get"]["responses"][200]["content"]["application/json"];
export type Figures = HealthEnvelope["data"]["last24h"];
export type LogQuery = NonNullable<paths["/api/v2/portal/webhooks/{webhookId}/delivery-logs"]["get"]["parameters"]["query"]>;
export type LogEnvelope = paths["/api/v2/portal/webhooks/{webhookId}/delivery-logs"]["get"]["responses"][200]["content"]["application/json"];
export type LogEntry = LogEnvelope["data"][number];
export type RedeliveredFailed = paths["/api/v2/portal/webhooks/{webhookId}/redeliver-failed"]["post"]["responses"][202]["content"]["application/json"]["data"];

export const OUTCOMES = [
  { value: "", label: "Any outcome" },
  { value: "Succeeded", label: "Succeeded" },
  { value: "Failed", label: "Failed" },
  { value: "Pending", label: "Pending" },
];
export const STATUS_CLASSES = [
  { value: "", label: "Any status" },
  { value: "2xx", label: "2xx" },
  { value: "3xx", label: "3xx" },
  { value: "4xx", label: "4xx" },
  { value: "5xx", label: "5xx" },
  { value: "none", label: "No HTTP answer" },
];
