import { z } from "zod";
import { pageRequest, pagination } from "../../platform/http/paging";
import { notFound } from "../../platform/errors/api-error";
import { organizationRoute, type RequestContext } from "../route-kinds";
import type { RouteGroup } from "../../platform/http/route";
import type { ServiceAccountRecord } from "../../model/organizations/service-account";
import {
  addCredential,
  createServiceAccount,
  deleteServiceAccount,
  findServiceAccount,
  revokeCredential,
  updateServiceAccount,
} from "../../domain/organizations/service-account-writes";
import {
  createCredentialBody,
  createdCredentialView,
  createdServiceAccountView,
  createServiceAccountBody,
  credentialParams,
  credentialView,
  deleteServiceAccountParams,
  listServiceAccountsQuery,
  serviceAccountIdParams,
  serviceAccountView,
  updateServiceAccountBody,
} from "../schemas/service-account-schemas";
import { serviceAccountExample } from "../examples/identity-examples";
import { serviceAccountViews, toCredentialView } from "../../domain/organizations/service-account-view";

const tag = "Service accounts";
const LIST_BINDING = "service-accounts";

export const serviceAccountRoutes: RouteGroup = {
  name: "service-accounts",
  routes: [
    organizationRoute({
      method: "GET",
      path: "/service-accounts",
      summary: "List the service accounts of your organization",
      tag,
      auth: "org:service-accounts:read",
      query: listServiceAccountsQuery,
      response: z.array(serviceAccountView).meta({ examples: [[serviceAccountExample]] }),
      paginated: true,
      async handler(input) {
        const page = await input.stores.serviceAccounts.list(input.principal.organizationAccountIds, pageRequest(input, input.query, LIST_BINDING));
        return { data: await serviceAccountViews(input, page.items), pagination: pagination(input, page, LIST_BINDING) };
      },
    }),
    organizationRoute({
      method: "GET",
      path: "/service-accounts/{id}",
      summary: "Get one service account",
      tag,
      auth: "org:service-accounts:read",
      params: serviceAccountIdParams,
      response: serviceAccountView,
      responseHeaders: ["ETag"],
      async handler(input) {
        const found = await findServiceAccount(input, input.principal, input.params.id);
        return { data: await view(input, found.value), headers: { ETag: found.etag } };
      },
    }),
    organizationRoute({
      method: "POST",
      path: "/service-accounts",
      idempotencyKey: true,
      summary: "Create a service account and its first credential",
      tag,
      auth: "org:service-accounts:manage",
      problems: ["FORBIDDEN"],
      body: createServiceAccountBody,
      response: createdServiceAccountView,
      successStatus: 201,
      responseHeaders: ["Location", "ETag"],
      async handler(input) {
        const { created, secret } = await createServiceAccount(input, input.principal, input.body);
        const id = created.value.id;
        return {
          status: 201,
          data: { ...(await view(input, created.value)), clientId: id, clientSecret: secret },
          headers: { Location: `${input.origin}/api/v2/service-accounts/${id}`, ETag: created.etag },
        };
      },
    }),
    organizationRoute({
      method: "PUT",
      path: "/service-accounts/{id}",
      summary: "Update a service account (omitted fields keep their values)",
      tag,
      auth: "org:service-accounts:manage",
      problems: ["FORBIDDEN", "CONFLICT"],
      params: serviceAccountIdParams,
      body: updateServiceAccountBody,
      response: serviceAccountView,
      responseHeaders: ["ETag"],
      ifMatch: true,
      async handler(input) {
        const updated = await updateServiceAccount(input, input.principal, input.params.id, input.body, input.header("if-match"));
        return { data: await view(input, updated.value), headers: { ETag: updated.etag } };
      },
    }),
    organizationRoute({
      method: "DELETE",
      path: "/service-accounts/{id}",
      summary: "Delete a service account; its credentials stop working at once",
      tag,
      auth: "org:service-accounts:manage",
      problems: ["FORBIDDEN", "CONFLICT"],
      params: deleteServiceAccountParams,
      successStatus: 204,
      ifMatch: true,
      async handler(input) {
        await deleteServiceAccount(input, input.principal, input.params.id, input.header("if-match"));
        return { status: 204 };
      },
    }),
    organizationRoute({
      method: "POST",
      path: "/service-accounts/{id}/credentials",
      idempotencyKey: true,
      summary: "Add a credential (its secret is shown once)",
      tag,
      auth: "org:service-accounts:manage",
      problems: ["FORBIDDEN", "CONFLICT"],
      params: serviceAccountIdParams,
      body: createCredentialBody,
      response: createdCredentialView,
      successStatus: 201,
      responseHeaders: ["Location"],
      ifMatch: true,
      async handler(input) {
        const { saved, credential, secret } = await addCredential(input, input.principal, input.params.id, input.body, input.header("if-match"));
        return {
          status: 201,
          data: { clientId: saved.value.id, clientSecret: secret, ...toCredentialView(credential, input.now()) },
          headers: { Location: `${input.origin}/api/v2/service-accounts/${saved.value.id}/credentials/${credential.id}` },
        };
      },
    }),
    organizationRoute({
      method: "GET",
      path: "/service-accounts/{id}/credentials/{credentialId}",
      summary: "Get one credential of a service account (never its secret)",
      tag,
      auth: "org:service-accounts:read",
      params: credentialParams,
      response: credentialView.meta({ examples: [serviceAccountExample.credentials[0]] }),
      async handler(input) {
        const found = await findServiceAccount(input, input.principal, input.params.id);
        const credential = found.value.credentials.find((c) => c.id === input.params.credentialId.toLowerCase());
        if (!credential) throw notFound("The credential", "credentialId");
        return { data: toCredentialView(credential, input.now()) };
      },
    }),
    organizationRoute({
      method: "DELETE",
      path: "/service-accounts/{id}/credentials/{credentialId}",
      summary: "Revoke a credential; it stops working at once",
      tag,
      auth: "org:service-accounts:manage",
      problems: ["CONFLICT"],
      params: credentialParams,
      successStatus: 204,
      ifMatch: true,
      async handler(input) {
        await revokeCredential(input, input.principal, input.params.id, input.params.credentialId, input.header("if-match"));
        return { status: 204 };
      },
    }),
  ],
};

async function view(input: RequestContext, sa: ServiceAccountRecord) {
  return (await serviceAccountViews(input, [sa]))[0]!;
}
