import {
  EXAMPLE_CREDENTIAL_ID,
  EXAMPLE_LEAVING_USER,
  EXAMPLE_PROVIDER_ACCOUNT_ID,
  EXAMPLE_PROVIDER_TENANT_ID,
  EXAMPLE_SERVICE_ACCOUNT_ID,
  EXAMPLE_USER,
  EXAMPLE_WORKSPACE_ID,
  EXAMPLE_WORKSPACE_NAME,
} from "../../platform/http/examples";

// Examples of the OpenAPI document for service accounts and users: the demo organization's SOAR
// connector and its people (see platform/http/examples.ts).

const credential = {
  id: EXAMPLE_CREDENTIAL_ID,
  clientSecretPrefix: "soms_Hq3vR8",
  status: "Active",
  expirationDate: "2027-03-02T09:12:44.318Z",
  lastUsedAt: "2026-03-02T09:14:20.870Z",
  createdAt: "2026-03-02T09:12:44.318Z",
  scopes: ["incidents:read", "incidents:write", "incidents:comments", "gamebooks:read", "gamebooks:execute"],
};

export const serviceAccountExample = {
  id: EXAMPLE_SERVICE_ACCOUNT_ID,
  accountId: EXAMPLE_PROVIDER_ACCOUNT_ID,
  name: "SOAR connector",
  description: "Runs containment gamebooks from the SOAR platform.",
  isActive: true,
  isPlatformManaged: false,
  organizationalRole: "Member",
  clientSecretPrefix: credential.clientSecretPrefix,
  credentialExpirationDate: credential.expirationDate,
  workspaceAssignments: [{ workspaceId: EXAMPLE_WORKSPACE_ID, workspaceName: EXAMPLE_WORKSPACE_NAME, role: "Analyst" }],
  credentials: [credential],
  lastUsedAt: "2026-03-02T09:14:20.870Z",
  createdAt: "2026-03-02T09:12:44.318Z",
  lastModifiedAt: "2026-03-02T09:12:44.318Z",
};

/** A new service account for a ticketing bridge, reading incidents of one workspace. */
export const createServiceAccountExample = {
  name: "ITSM bridge",
  description: "Links incidents to ServiceNow tickets and keeps their priorities in step.",
  organizationalRole: "Member",
  workspaceAssignments: [{ workspaceId: EXAMPLE_WORKSPACE_ID, role: "Analyst" }],
  scopes: ["incidents:read", "tickets:read", "tickets:manage"],
};

const SECRET_EXAMPLE = "soms_Tz9wK2fX7Lq4bN8cV1mR5sD3hJ6gY0aE2uI9oP4kW7e";

export const createdServiceAccountExample = {
  ...serviceAccountExample,
  id: "5c0e9a7d-3b1f-4e2a-8d6c-9f4b2a1e7c30",
  name: createServiceAccountExample.name,
  description: createServiceAccountExample.description,
  clientSecretPrefix: "soms_Tz9wK2",
  credentials: [{ ...credential, id: "a8d2f6e4-1c3b-4a5d-9e7f-0b2c4d6e8f1a", clientSecretPrefix: "soms_Tz9wK2", lastUsedAt: null, scopes: createServiceAccountExample.scopes }],
  lastUsedAt: null,
  clientId: "5c0e9a7d-3b1f-4e2a-8d6c-9f4b2a1e7c30",
  clientSecret: SECRET_EXAMPLE,
};

export const updateServiceAccountExample = {
  description: "Runs containment gamebooks from the SOAR platform, for Fabrikam's production workspace.",
};

/** A second credential for a rotation: the old one is revoked once the SOAR platform uses the new one. */
export const createCredentialExample = { scopes: credential.scopes };

export const createdCredentialExample = {
  clientId: EXAMPLE_SERVICE_ACCOUNT_ID,
  clientSecret: SECRET_EXAMPLE,
  ...credential,
  id: "a8d2f6e4-1c3b-4a5d-9e7f-0b2c4d6e8f1a",
  clientSecretPrefix: "soms_Tz9wK2",
  lastUsedAt: null,
};

export const userExample = { id: EXAMPLE_USER.id, displayName: EXAMPLE_USER.displayName, email: EXAMPLE_USER.email, organizationalRole: "Admin", isActive: true };

/** The analyst who is leaving, as the directory has them. */
export const upsertUserExample = {
  userId: EXAMPLE_LEAVING_USER.id,
  displayName: EXAMPLE_LEAVING_USER.displayName,
  email: EXAMPLE_LEAVING_USER.email,
  tenantId: EXAMPLE_PROVIDER_TENANT_ID,
  isOwner: false,
};
