import { z } from "zod";
import { personRoute } from "../../route-kinds";
import { organizationalRoles } from "../../../model/organizations/roles";
import { sourceDisplayNames, sources, type Source } from "../../../model/sources";
import { workspaceRoles } from "../../../model/organizations/roles";
import { EXAMPLE_USER, EXAMPLE_PROVIDER_ACCOUNT_ID, EXAMPLE_PROVIDER_TENANT_ID, EXAMPLE_WORKSPACE_ID } from "../../../platform/http/examples";

export const meView = z
  .object({
    userId: z.guid(),
    tenantId: z.guid(),
    displayName: z.string(),
    email: z.string(),
    accountId: z.guid().describe("The account the person is registered in."),
    organizationalRole: z.enum(organizationalRoles),
    workspaceRoles: z.array(z.object({ workspaceId: z.guid(), role: z.enum(workspaceRoles) })),
    organizationAccountIds: z.array(z.guid()).describe("The person's organization: their account and the customer accounts it manages."),
    sessionExpiresAt: z.iso.datetime(),
    csrfToken: z.string().describe("Send it in the X-CSRF-Token header with every change (POST, PUT, PATCH, DELETE) of this session."),
    sourceDisplayNames: z
      .object(Object.fromEntries(sources.map((source) => [source, z.string()])) as Record<Source, z.ZodString>)
      .describe("The name this deployment shows for each source (`SOURCE_<X>_DISPLAY_NAME`), by its path value; a source the deployment names not is shown as its path value."),
  })
  .meta({
    examples: [
      {
        userId: EXAMPLE_USER.id,
        tenantId: EXAMPLE_PROVIDER_TENANT_ID,
        displayName: EXAMPLE_USER.displayName,
        email: EXAMPLE_USER.email,
        accountId: EXAMPLE_PROVIDER_ACCOUNT_ID,
        organizationalRole: "Admin",
        workspaceRoles: [{ workspaceId: EXAMPLE_WORKSPACE_ID, role: "Owner" }],
        organizationAccountIds: [EXAMPLE_PROVIDER_ACCOUNT_ID],
        sessionExpiresAt: "2026-11-25T18:00:00.000Z",
        csrfToken: "q7Vq3m0bq9l5o3e7VZ0y3yqWJm0P1yq4bW0uQ2m9W1c",
        sourceDisplayNames: { SourceA: "Northwatch SIEM", SourceB: "Falconridge XDR", SourceC: "SourceC", SourceD: "SourceD", SourceE: "SourceE", SourceF: "SourceF", SourceG: "SourceG" },
      },
    ],
  });

/** `GET /portal/me`: who is signed in, their roles, and the session's CSRF token: the portal page's first call. */
export const meRoute = personRoute({
  method: "GET",
  path: "/portal/me",
  summary: "The person signed in: their roles, and the session's CSRF token",
  tag: "Portal: sign-in",
  roles: "any",
  response: meView,
  async handler({ person, sessions }) {
    return {
      data: {
        userId: person.userId,
        tenantId: person.tenantId,
        displayName: person.name,
        email: person.email,
        accountId: person.accountId,
        organizationalRole: person.organizationalRole,
        workspaceRoles: [...person.workspaceRoles].map(([workspaceId, role]) => ({ workspaceId, role })),
        organizationAccountIds: [...person.organizationAccountIds],
        sessionExpiresAt: new Date(person.sessionExpiresAt).toISOString(),
        csrfToken: sessions.csrfToken({ id: person.sessionId }),
        sourceDisplayNames: sourceDisplayNames(),
      },
    };
  },
});
