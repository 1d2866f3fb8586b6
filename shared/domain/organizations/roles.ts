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
