import type { paths } from "../api/openapi";
import { BASE } from "../router";
import { Notice } from "../ui";

export type ListEnvelope = paths["/api/v2/portal/service-accounts"]["get"]["responses"][200]["content"]["application/json"];
export type ServiceAccount = ListEnvelope["data"][number];
export type Credential = ServiceAccount["credentials"][number];
export type CreateBody = NonNullable<paths["/api/v2/portal/service-accounts"]["post"]["requestBody"]>["content"]["application/json"];
export type UpdateBody = NonNullable<paths["/api/v2/portal/service-accounts/{id}"]["patch"]["requestBody"]>["content"]["application/json"];
export type Scope = CreateBody["scopes"][number];

/** Who reads the organization's service accounts, and who manages them (the routes' roles; Admin holds them all). */
export const READERS = ["UserAdmin", "WorkspaceAdmin"] as const;
export const MANAGERS = ["UserAdmin"] as const;


/** The contract's scopes, grouped by what they reach. */
export const SCOPE_GROUPS: readonly { label: string; scopes: readonly { scope: Scope; label: string }[] }[] = [
  {
    label: "Incidents and investigation",
    scopes: [
      { scope: "incidents:read", label: "Read incidents" },
      { scope: "incidents:write", label: "Change incidents" },
      { scope: "incidents:comments", label: "Comment on incidents" },
      { scope: "investigation:read", label: "Read investigation data" },
      { scope: "datasources:read", label: "Read data sources" },
    ],
  },
  {
    label: "Gamebooks and tickets",
    scopes: [
      { scope: "gamebooks:read", label: "Read gamebooks" },
      { scope: "gamebooks:execute", label: "Run gamebooks" },
      { scope: "tickets:read", label: "Read tickets" },
      { scope: "tickets:manage", label: "Manage tickets" },
    ],
  },
  {
    label: "Webhooks and audit",
    scopes: [
      { scope: "webhooks:read", label: "Read webhooks" },
      { scope: "webhooks:manage", label: "Manage webhooks" },
      { scope: "audit:read", label: "Export the audit trail" },
    ],
  },
  {
    label: "Organization",
    scopes: [
      { scope: "org:service-accounts:read", label: "Read service accounts" },
      { scope: "org:service-accounts:manage", label: "Manage service accounts" },
      { scope: "org:users:read", label: "Read people" },
      { scope: "org:users:manage", label: "Manage people" },
      { scope: "org:users:roles", label: "Change people's roles" },
      { scope: "org:azure:read", label: "Read Azure onboarding" },
      { scope: "org:azure:manage", label: "Manage Azure onboarding" },
    ],
  },
];

export function accountHref(id: string): string {
  return `${BASE}/service-accounts/${id}`;
}

/** A date input's day as the end of that day, local time, in ISO form; undefined when empty (the server's default). */
export function expirationOf(day: string): string | undefined {
  if (!day) return undefined;
  const at = new Date(`${day}T23:59:59`);
  return Number.isNaN(at.getTime()) ? day : at.toISOString();
}

export function activeCredentials(sa: ServiceAccount): Credential[] {
  return sa.credentials.filter((c) => c.status === "Active");
}

export function credentialTone(status: Credential["status"]): "ok" | "warn" | "bad" {
  return status === "Active" ? "ok" : status === "Expired" ? "warn" : "bad";
}

export function readerNotice(role: string) {
  return <Notice>Service accounts are for UserAdmins, WorkspaceAdmins and Admins. You are {role}.</Notice>;
}
