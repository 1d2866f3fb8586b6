import type { paths } from "../api/openapi";

export type ConfigurationPath = paths["/api/v2/portal/workspaces/{workspaceId}/agent-configuration"];
export type Configuration = ConfigurationPath["get"]["responses"][200]["content"]["application/json"]["data"];
export type Card = Configuration["cards"][number];
export type Classification = Card["classification"];
export type BoundWebhook = Card["webhooks"][number];

export const CLASSIFICATIONS: { value: Classification; label: string; meaning: string }[] = [
  { value: "TruePositive", label: "True positive", meaning: "A real threat." },
  { value: "BenignPositive", label: "Benign positive", meaning: "Real activity, but allowed or expected." },
  { value: "FalsePositive", label: "False positive", meaning: "The detection was wrong." },
  { value: "Undetermined", label: "Undetermined", meaning: "The agent could not decide." },
];
export const EVENT_TYPE = "agent.investigation.completed.v1";
export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A webhook of the organization, as `GET /portal/webhooks` lists it (only what this page uses). */
export interface OrganizationWebhook {
  id: string;
  name: string;
  status: string;
  eventTypes: string[];
  targetAccountName: string;
}

/**
 * The organization's webhooks, to offer by name on the cards. Read with a plain request: the list is
 * optional here, and a deployment without it leaves the cards to name webhooks by id.
 */
export async function readOrganizationWebhooks(): Promise<OrganizationWebhook[] | undefined> {
  const response = await fetch("/api/v2/portal/webhooks", { credentials: "same-origin", headers: { Accept: "application/json" } });
  if (!response.ok) return undefined;
  const body = (await response.json()) as { data?: { webhook?: OrganizationWebhook }[] };
  return body.data?.flatMap((entry) => (entry.webhook ? [entry.webhook] : []));
}
