import { api, call } from "../api/client";
import type { paths } from "../api/openapi";

type OrganizationList = paths["/api/v2/portal/organizations"]["get"]["responses"][200]["content"]["application/json"];
export type Organization = OrganizationList["data"][number];
type WorkspaceList = paths["/api/v2/portal/workspaces"]["get"]["responses"][200]["content"]["application/json"];
export type Workspace = WorkspaceList["data"][number];
export type SourceName = keyof Workspace["sources"];
export type OnboardBody = NonNullable<paths["/api/v2/portal/workspaces"]["post"]["requestBody"]>["content"]["application/json"];

/** The sources in the contract's order, as the API names them. */
export const SOURCE_NAMES: readonly SourceName[] = ["SourceA", "SourceB", "SourceC", "SourceD", "SourceE", "SourceF", "SourceG"];

/** The roles that change organizations and workspaces (the routes' `roles`; Admin holds them all). */
export const WORKSPACE_ADMIN = ["WorkspaceAdmin"] as const;

export async function readOrganizations(): Promise<Organization[]> {
  return (await call(api.GET("/api/v2/portal/organizations"))).data;
}

export async function readWorkspaces(): Promise<Workspace[]> {
  return (await call(api.GET("/api/v2/portal/workspaces"))).data;
}

export function sourcesOn(w: Workspace): number {
  return SOURCE_NAMES.filter((s) => w.sources[s].enabled).length;
}

/** A workspace's approval modes, as the onboarding form and the workspace's page offer them. */
export const APPROVAL_MODE_OPTIONS: readonly { value: NonNullable<OnboardBody["approvalMode"]>; label: string }[] = [
  { value: "NoApproval", label: "No approval: runs are dispatched at once" },
  { value: "AdminRequiredPlaybooks", label: "Runs with a playbook that needs an administrator" },
  { value: "AllRuns", label: "Every run" },
];
