import { z } from "zod";
import { scopeSchema } from "../auth/scopes";
import { pageQueryFields } from "../http/paging";
import { organizationalRoles, workspaceRoles } from "../store/records";

export const organizationalRoleSchema = z.enum(organizationalRoles);
export const workspaceRoleSchema = z.enum(workspaceRoles);
const timestamp = z.iso.datetime({ offset: true });

export const serviceAccountIdParams = z.object({ id: z.guid() });
export const credentialParams = z.object({ id: z.guid(), credentialId: z.guid() });
export const listServiceAccountsQuery = z.object(pageQueryFields).strict();

const workspaceAssignmentInput = z
  .object({ workspaceId: z.guid(), role: workspaceRoleSchema })
  .strict();

const assignments = z
  .array(workspaceAssignmentInput)
  .max(1000)
  .refine((list) => new Set(list.map((a) => a.workspaceId.toLowerCase())).size === list.length, {
    message: "Each workspace may be assigned once.",
  });

const grantedScopes = z.array(scopeSchema).min(1, "Grant at least one scope.").describe("Scopes of the credential.");

const expirationDate = timestamp.optional().describe("When the credential expires; default one year from now, at most two.");

export const createServiceAccountBody = z
  .object({
    name: z.string().trim().min(1).max(128),
    description: z.string().max(1024).default(""),
    organizationalRole: organizationalRoleSchema,
    workspaceAssignments: assignments.default([]),
    scopes: grantedScopes,
    expirationDate,
  })
  .strict();

export const createCredentialBody = z.object({ expirationDate, scopes: grantedScopes }).strict();

export const updateServiceAccountBody = z
  .object({
    name: z.string().trim().min(1).max(128).optional(),
    description: z.string().max(1024).optional(),
    organizationalRole: organizationalRoleSchema.optional(),
    workspaceAssignments: assignments.optional(),
    isActive: z.boolean().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: "Send at least one field to change." })
  .describe("Fields to change; omitted fields keep their values.");

// ---- responses (documentation of what the handlers return) ----

export const credentialView = z.object({
  id: z.guid(),
  clientSecretPrefix: z.string(),
  status: z.enum(["Active", "Revoked", "Expired"]),
  expirationDate: timestamp,
  lastUsedAt: timestamp.nullable(),
  createdAt: timestamp,
  scopes: z.array(z.string()),
});

export const serviceAccountView = z.object({
  id: z.guid(),
  accountId: z.guid(),
  name: z.string(),
  description: z.string(),
  isActive: z.boolean(),
  isPlatformManaged: z.boolean(),
  organizationalRole: organizationalRoleSchema,
  clientSecretPrefix: z.string().nullable().describe("Prefix of the newest active credential's secret."),
  credentialExpirationDate: timestamp.nullable().describe("Expiry of the newest active credential."),
  workspaceAssignments: z.array(z.object({ workspaceId: z.guid(), workspaceName: z.string(), role: workspaceRoleSchema })),
  credentials: z.array(credentialView),
  lastUsedAt: timestamp.nullable(),
  createdAt: timestamp,
  lastModifiedAt: timestamp,
});

const oneTimeSecret = {
  clientId: z.guid().describe("The service account id, the user name of HTTP Basic."),
  clientSecret: z.string().describe("Shown only in this response; store it now."),
};

export const createdServiceAccountView = serviceAccountView.extend(oneTimeSecret);
export const createdCredentialView = credentialView.extend(oneTimeSecret);
