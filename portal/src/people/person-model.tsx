import type { paths } from "../api/openapi";
import { BASE } from "../router";
import { useResource } from "../ui";
import { readOrganizations, readWorkspaces, type Organization, type Workspace } from "../workspaces/workspace-model";

export type PeopleEnvelope = paths["/api/v2/portal/people"]["get"]["responses"][200]["content"]["application/json"];
export type Person = PeopleEnvelope["data"][number];
export type PersonBody = NonNullable<paths["/api/v2/portal/people/{userId}"]["put"]["requestBody"]>["content"]["application/json"];

/** People and their roles are a UserAdmin's (and an Admin's), as the routes say. */
export const USER_ADMIN = ["UserAdmin"] as const;


/** Names of organizations and workspaces for ids, from what the person may read (ids where they may not). */
export function useNames() {
  const organizations = useResource(() => readOrganizations().catch(() => [] as Organization[]), []);
  const workspaces = useResource(() => readWorkspaces().catch(() => [] as Workspace[]), []);
  return {
    organizations: organizations.value ?? [],
    workspaces: workspaces.value ?? [],
    organization: (id: string) => organizations.value?.find((o) => o.id === id)?.name ?? id,
    workspace: (id: string) => workspaces.value?.find((w) => w.id === id)?.name ?? id,
  };
}

export function personHref(p: Pick<Person, "userId" | "accountId">): string {
  return `${BASE}/people/${p.userId}?accountId=${p.accountId}`;
}
