import { type Problem } from "../api/client";
import type { paths } from "../api/openapi";

export type CataloguePath = paths["/api/v2/portal/workspaces/{workspaceId}/playbooks"];
export type Catalogue = CataloguePath["get"]["responses"][200]["content"]["application/json"]["data"];
export type Playbook = Catalogue["playbooks"][number];
export type PlaybookBody = NonNullable<paths["/api/v2/portal/workspaces/{workspaceId}/playbooks/{playbookId}"]["put"]["requestBody"]>["content"]["application/json"];
export type ImportReport = paths["/api/v2/portal/workspaces/{workspaceId}/playbooks/import"]["post"]["responses"][200]["content"]["application/json"]["data"];
export type Rules = paths["/api/v2/portal/workspaces/{workspaceId}/gamebook-rules"]["get"]["responses"][200]["content"]["application/json"]["data"];
export type RuleInput = NonNullable<paths["/api/v2/portal/workspaces/{workspaceId}/gamebook-rules"]["put"]["requestBody"]>["content"]["application/json"]["rules"][number];
export type Preview = paths["/api/v2/portal/workspaces/{workspaceId}/gamebook-rules/preview"]["post"]["responses"][200]["content"]["application/json"]["data"];
export type EntityType = Playbook["entityType"];
export type ActionKind = Playbook["action"];

export const ENTITY_TYPES = ["User", "Host", "Ip", "Domain", "Url", "Mailbox", "File", "Process", "Incident"] as const satisfies readonly EntityType[];
export const ACTIONS: { value: ActionKind; label: string }[] = [
  { value: "automation", label: "Automation backend" },
  { value: "incident.comment", label: "Comment on the incident" },
  { value: "incident.close", label: "Close the incident" },
];
export const READERS = ["OrgContentOperator", "OrgContentAdmin"] as const;
export const EDITORS = ["OrgContentAdmin"] as const;
/** How long the title preview waits for typing to pause before asking. */
export const PREVIEW_DEBOUNCE_MS = 300;

/** The messages of every field of a problem under `prefix` (`parameters[0].name`, …), as one message for that prefix. */
export function errorsUnder(problem: Problem | undefined, prefix: string): Problem | undefined {
  if (!problem?.errors) return problem;
  const lines = Object.entries(problem.errors)
    .filter(([key]) => key === prefix || key.startsWith(`${prefix}[`) || key.startsWith(`${prefix}.`))
    .map(([key, messages]) => (key === prefix ? messages.join(" ") : `${key.slice(prefix.length)}: ${messages.join(" ")}`));
  return lines.length ? { ...problem, errors: { ...problem.errors, [prefix]: lines } } : problem;
}
