import type { OrganizationalRole } from "../session";

/** The organizational roles, as the forms of people and of service accounts offer them: each with what it reaches. */
export const ORGANIZATIONAL_ROLES: readonly { value: OrganizationalRole; label: string }[] = [
  { value: "Member", label: "Member: the workspaces it holds a role on" },
  { value: "WorkspaceAdmin", label: "WorkspaceAdmin: every workspace, onboarding and settings" },
  { value: "UserAdmin", label: "UserAdmin: people, service accounts and their roles" },
  { value: "AgentAdmin", label: "AgentAdmin: agents" },
  { value: "OrgContentOperator", label: "OrgContentOperator: the organization's content" },
  { value: "OrgContentAdmin", label: "OrgContentAdmin: the organization's content, and who changes it" },
  { value: "Admin", label: "Admin: everything" },
];
