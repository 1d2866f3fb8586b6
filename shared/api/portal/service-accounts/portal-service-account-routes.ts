import { z } from "zod";
import { pageQueryFields, pageRequest, pagination } from "../../../platform/http/paging";
import { notFound } from "../../../platform/errors/api-error";
import { personRoute, type PersonInput } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import type { Person } from "../../../platform/auth/person";
import type { Grantor } from "../../../domain/organizations/grants";
import type { ServiceAccountRecord } from "../../../model/organizations/service-account";
import {
  addCredential,
  createServiceAccount,
  deleteServiceAccount,
  findServiceAccount,
  revokeCredential,
  updateServiceAccount,
} from "../../../domain/organizations/service-account-writes";
import { EXAMPLE_CREDENTIAL_ID, EXAMPLE_SCANNER_CREDENTIAL_ID, EXAMPLE_SCANNER_SERVICE_ACCOUNT_ID, EXAMPLE_SERVICE_ACCOUNT_ID } from "../../../platform/http/examples";
import {
  createCredentialBody,
  createdCredentialView,
  createdServiceAccountView,
  createServiceAccountBody,
  credentialView,
  serviceAccountView,
  updateServiceAccountBody,
} from "../../schemas/service-account-schemas";
import { serviceAccountExample } from "../../examples/identity-examples";
import { serviceAccountViews, toCredentialView } from "../../../domain/organizations/service-account-view";

const tag = "Portal: service accounts";
/** Who sees the organization's service accounts: those who manage people, and those who run its integrations. */
const readers = ["UserAdmin", "WorkspaceAdmin"] as const;
/** Who creates, changes and deletes them and their credentials: those who manage people and their roles. */
const managers = ["UserAdmin"] as const;
const LISTING = "portal-service-accounts";

const serviceAccountId = z.guid().describe("The service account's id (its `clientId`).");
/** Reads and new credentials name the SOAR connector; the changes that end something, the vulnerability scanner being replaced. */
const soarParams = z.strictObject({ id: serviceAccountId.meta({ examples: [EXAMPLE_SERVICE_ACCOUNT_ID] }) });
const scannerParams = z.strictObject({ id: serviceAccountId.meta({ examples: [EXAMPLE_SCANNER_SERVICE_ACCOUNT_ID] }) });
const credentialId = z.guid().describe("The credential's id, as listed in `credentials`.");
/** A credential to read: the SOAR connector's. */
const soarCredentialParams = z.strictObject({
  id: serviceAccountId.meta({ examples: [EXAMPLE_SERVICE_ACCOUNT_ID] }),
  credentialId: credentialId.meta({ examples: [EXAMPLE_CREDENTIAL_ID] }),
});
const credentialParams = z.strictObject({
  id: serviceAccountId.meta({ examples: [EXAMPLE_SCANNER_SERVICE_ACCOUNT_ID] }),
  credentialId: z.guid().describe("The credential's id, as listed in `credentials`.").meta({ examples: [EXAMPLE_SCANNER_CREDENTIAL_ID] }),
});

/** A person grants as their role allows: any scope, the Admin role only as an Admin; new service accounts are of their own account. */
function grantorOf(person: Person): Grantor {
  return { accountId: person.accountId, organizationalRole: person.organizationalRole, organizationAccountIds: person.organizationAccountIds };
}

async function viewOf(input: PersonInput<unknown, unknown, unknown>, sa: ServiceAccountRecord) {
  return (await serviceAccountViews(input, [sa]))[0]!;
}

/**
 * The organization's service accounts in the portal: the identities its integrations call the
 * contract's API with (HTTP Basic). `UserAdmin`s and `Admin`s manage them, as they manage people;
 * `WorkspaceAdmin`s, who run the integrations, read them. The operations are the contract's
 * (`/service-accounts`), done as the person: a secret is shown once, in the answer that creates it,
 * and only its hash is stored; every change is audited with the person as its actor and applies at
 * once. Only an `Admin` grants the `Admin` role.
 */
export const portalServiceAccountRoutes: RouteGroup = {
  name: "portal-service-accounts",
  routes: [
    personRoute({
      method: "GET",
      path: "/portal/service-accounts",
      summary: "The service accounts of your organization, with their credentials (never a secret)",
      description: "Every account of your organization's accounts, by id. Each credential shows its `clientSecretPrefix`, status and expiry. Paged with `continuationToken`.",
      tag,
      roles: readers,
      query: z.strictObject(pageQueryFields),
      response: z.array(serviceAccountView).meta({ examples: [[serviceAccountExample]] }),
      paginated: true,
      async handler(input) {
        const page = await input.stores.serviceAccounts.list(input.person.organizationAccountIds, pageRequest(input, input.query, LISTING));
        return { data: await serviceAccountViews(input, page.items), pagination: pagination(input, page, LISTING) };
      },
    }),
    personRoute({
      method: "GET",
      path: "/portal/service-accounts/{id}",
      responseHeaders: ["ETag"],
      summary: "One service account of your organization",
      tag,
      roles: readers,
      params: soarParams,
      response: serviceAccountView,
      async handler(input) {
        const found = await findServiceAccount(input, input.person, input.params.id);
        return { data: await viewOf(input, found.value), headers: { ETag: found.etag } };
      },
    }),
    personRoute({
      method: "POST",
      path: "/portal/service-accounts",
      idempotencyKey: true,
      responseHeaders: ["Location", "ETag"],
      summary: "Create a service account and its first credential: the secret is in this answer only",
      description:
        "The account belongs to your own account; workspace assignments name workspaces of your organization. The answer carries `clientId` and " +
        "`clientSecret`, the HTTP Basic user name and password of the contract's API: store the secret now, it is never shown again. Only an " +
        "`Admin` grants the `Admin` role (403).",
      tag,
      roles: managers,
      problems: ["FORBIDDEN"],
      body: createServiceAccountBody,
      response: createdServiceAccountView,
      successStatus: 201,
      async handler(input) {
        const { created, secret } = await createServiceAccount(input, grantorOf(input.person), input.body);
        const id = created.value.id;
        return {
          status: 201,
          data: { ...(await viewOf(input, created.value)), clientId: id, clientSecret: secret },
          headers: { Location: `${input.origin}/api/v2/portal/service-accounts/${id}`, ETag: created.etag },
        };
      },
    }),
    personRoute({
      method: "PATCH",
      path: "/portal/service-accounts/{id}",
      responseHeaders: ["ETag"],
      ifMatch: true,
      summary: "Change a service account: name, description, roles, or deactivate it (`isActive` false)",
      description:
        "Omitted fields keep their values. A deactivated account's credentials are refused at once (401) until it is activated again. Platform-" +
        "managed accounts cannot be changed (403); only an `Admin` grants the `Admin` role (403). Optional `If-Match` with the `ETag` of a read; a " +
        "mismatch is 409.",
      tag,
      roles: managers,
      problems: ["FORBIDDEN", "CONFLICT"],
      params: scannerParams,
      body: updateServiceAccountBody.meta({ examples: [{ isActive: false }] }),
      response: serviceAccountView,
      async handler(input) {
        const updated = await updateServiceAccount(input, grantorOf(input.person), input.params.id, input.body, input.header("if-match"));
        return { data: await viewOf(input, updated.value), headers: { ETag: updated.etag } };
      },
    }),
    personRoute({
      method: "DELETE",
      path: "/portal/service-accounts/{id}",
      ifMatch: true,
      summary: "Delete a service account: its credentials stop working at once",
      description: "Platform-managed accounts cannot be deleted (403). Optional `If-Match`; a mismatch is 409.",
      tag,
      roles: managers,
      problems: ["FORBIDDEN", "CONFLICT"],
      params: scannerParams,
      successStatus: 204,
      async handler(input) {
        await deleteServiceAccount(input, grantorOf(input.person), input.params.id, input.header("if-match"));
        return { status: 204 };
      },
    }),
    personRoute({
      method: "POST",
      path: "/portal/service-accounts/{id}/credentials",
      idempotencyKey: true,
      ifMatch: true,
      summary: "Add a credential to a service account: its secret is in this answer only",
      description:
        "For a rotation: add one, move the integration to it, then revoke the old one. At most five active credentials at once (409). The answer " +
        "carries `clientId` and `clientSecret`; the secret is never shown again.",
      tag,
      roles: managers,
      problems: ["CONFLICT"],
      params: soarParams,
      body: createCredentialBody,
      response: createdCredentialView,
      successStatus: 201,
      responseHeaders: ["Location"],
      async handler(input) {
        const { saved, credential, secret } = await addCredential(input, grantorOf(input.person), input.params.id, input.body, input.header("if-match"));
        return {
          status: 201,
          data: { clientId: saved.value.id, clientSecret: secret, ...toCredentialView(credential, input.now()) },
          headers: { Location: `${input.origin}/api/v2/portal/service-accounts/${saved.value.id}/credentials/${credential.id}` },
        };
      },
    }),
    personRoute({
      method: "GET",
      path: "/portal/service-accounts/{id}/credentials/{credentialId}",
      summary: "One credential of a service account (never its secret)",
      tag,
      roles: readers,
      params: soarCredentialParams,
      response: credentialView.meta({ examples: [serviceAccountExample.credentials[0]] }),
      async handler(input) {
        const found = await findServiceAccount(input, grantorOf(input.person), input.params.id);
        const credential = found.value.credentials.find((c) => c.id === input.params.credentialId.toLowerCase());
        if (!credential) throw notFound("The credential", "credentialId");
        return { data: toCredentialView(credential, input.now()) };
      },
    }),
    personRoute({
      method: "POST",
      path: "/portal/service-accounts/{id}/credentials/{credentialId}/revoke",
      responseHeaders: ["ETag"],
      ifMatch: true,
      summary: "Revoke a credential: it stops working at once and stays listed as Revoked",
      description: "Answers the service account as it now stands. 409 when the credential is revoked already.",
      tag,
      roles: managers,
      problems: ["CONFLICT"],
      params: credentialParams,
      response: serviceAccountView,
      async handler(input) {
        const saved = await revokeCredential(input, grantorOf(input.person), input.params.id, input.params.credentialId, input.header("if-match"));
        return { data: await viewOf(input, saved.value), headers: { ETag: saved.etag } };
      },
    }),
  ],
};
