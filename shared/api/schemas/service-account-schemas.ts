import { z } from "zod";
import { scopeSchema } from "../../platform/auth/scopes";
import { pageQueryFields } from "../../platform/http/paging";
import { EXAMPLE_CREDENTIAL_ID, EXAMPLE_RETIRED_SERVICE_ACCOUNT_ID, EXAMPLE_SERVICE_ACCOUNT_ID } from "../../platform/http/examples";
import { organizationalRoles, workspaceRoles } from "../../model/organizations/roles";
import {
  createCredentialExample,
  createdCredentialExample,
  createdServiceAccountExample,
  createServiceAccountExample,
  serviceAccountExample,
  updateServiceAccountExample,
} from "../examples/identity-examples";

export const organizationalRoleSchema = z.enum(organizationalRoles);
export const workspaceRoleSchema = z.enum(workspaceRoles);
const timestamp = z.iso.datetime({ offset: true });

const serviceAccountId = z.guid().describe("The service account id (its `clientId`).");
export const serviceAccountIdParams = z.object({ id: serviceAccountId.meta({ examples: [EXAMPLE_SERVICE_ACCOUNT_ID] }) });
/** The delete example has a target of its own: the SOAR connector stays for the other examples. */
export const deleteServiceAccountParams = z.object({ id: serviceAccountId.meta({ examples: [EXAMPLE_RETIRED_SERVICE_ACCOUNT_ID] }) });
export const credentialParams = z.object({
  id: serviceAccountId.meta({ examples: [EXAMPLE_SERVICE_ACCOUNT_ID] }),
  credentialId: z.guid().describe("The credential's id, as listed in `credentials`.").meta({ examples: [EXAMPLE_CREDENTIAL_ID] }),
});
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
  .strict()
  .meta({ examples: [createServiceAccountExample] });

export const createCredentialBody = z.object({ expirationDate, scopes: grantedScopes }).strict().meta({ examples: [createCredentialExample] });

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
  .describe("Fields to change; omitted fields keep their values.")
  .meta({ examples: [updateServiceAccountExample] });

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
}).meta({ examples: [serviceAccountExample] });

const oneTimeSecret = {
  clientId: z.guid().describe("The service account id, the user name of HTTP Basic."),
  clientSecret: z.string().describe("Shown only in this response; store it now."),
};

export const createdServiceAccountView = serviceAccountView.extend(oneTimeSecret).meta({ examples: [createdServiceAccountExample] });
export const createdCredentialView = credentialView.extend(oneTimeSecret).meta({ examples: [createdCredentialExample] });
