export const organizationalRoles = [
  "Admin",
  "UserAdmin",
  "WorkspaceAdmin",
  "AgentAdmin",
  "Member",
  "OrgContentOperator",
  "OrgContentAdmin",
] as const;

export type OrganizationalRole = (typeof organizationalRoles)[number];

export const workspaceRoles = ["Owner", "Analyst"] as const;

export type WorkspaceRole = (typeof workspaceRoles)[number];

/** Whether a workspace role held is enough for one needed: `Owner` includes everything an `Analyst` may do. */
export function satisfiesWorkspaceRole(held: WorkspaceRole | undefined, needed: WorkspaceRole): boolean {
  return held === "Owner" || held === needed;
}
