import { z } from "zod";

/**
 * Every scope the contract names (section 5.3), and `audit:read` for the audit export, whose scope the
 * contract leaves unnamed (docs/decisions.md, Audit). A credential holds a subset.
 */
export const scopes = [
  "incidents:read",
  "incidents:write",
  "incidents:comments",
  "gamebooks:read",
  "gamebooks:execute",
  "datasources:read",
  "tickets:read",
  "tickets:manage",
  "investigation:read",
  "audit:read",
  "webhooks:read",
  "webhooks:manage",
  "org:service-accounts:read",
  "org:service-accounts:manage",
  "org:users:read",
  "org:users:manage",
  "org:users:roles",
  "org:azure:read",
  "org:azure:manage",
] as const;

export type Scope = (typeof scopes)[number];

export const scopeSchema = z.enum(scopes);
