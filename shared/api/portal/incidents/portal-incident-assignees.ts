import { z } from "zod";
import type { Person } from "../../../platform/auth/person";
import type { Uses } from "../../../domain/operation-context";
import { workspaceRoles } from "../../../model/organizations/roles";
import type { UserRecord } from "../../../model/organizations/user";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";
import { EXAMPLE_ANALYST, EXAMPLE_PROVIDER_ACCOUNT_ID } from "../../../platform/http/examples";

/** Jonas Becker, the provider's workspace administrator, Owner of every demo workspace. */
const EXAMPLE_OWNER = { id: "d58bcce7-2e4a-8a4a-95e4-42bca0a0bc6b", displayName: "Jonas Becker", email: "jonas.becker@contoso-mssp.example" };

/** People a page lists at most; an organization with more on one workspace is assigned by e-mail beyond them. */
export const ASSIGNEES_LIMIT = 500;
const PAGE = 100;

export const assigneeList = z
  .array(
    z.object({
      userId: z.guid(),
      displayName: z.string(),
      email: z.string(),
      accountId: z.guid().describe("The organization the person is registered in: the workspace's, or the provider's that manages it."),
      workspaceRole: z.enum(workspaceRoles),
      isYou: z.boolean().describe("The person asking: the page's \"Assign to me\"."),
    }),
  )
  .describe(`By name, at most ${ASSIGNEES_LIMIT}.`)
  .meta({
    examples: [
      [
        { userId: EXAMPLE_OWNER.id, displayName: EXAMPLE_OWNER.displayName, email: EXAMPLE_OWNER.email, accountId: EXAMPLE_PROVIDER_ACCOUNT_ID, workspaceRole: "Owner", isYou: false },
        { userId: EXAMPLE_ANALYST.id, displayName: EXAMPLE_ANALYST.displayName, email: EXAMPLE_ANALYST.email, accountId: EXAMPLE_PROVIDER_ACCOUNT_ID, workspaceRole: "Analyst", isYou: true },
      ],
    ],
  });

/**
 * The people who work the workspace: active registrations, in its own organization or in the provider
 * that manages it (a provider's analysts work its customers' incidents), holding a role on it. People
 * who only read it (an organization-wide role without a workspace role) cannot act on the incident, so
 * they are not offered.
 */
export async function assignableUsers(ctx: Uses<"stores">, workspace: WorkspaceRecord, person: Person): Promise<z.infer<typeof assigneeList>> {
  const account = await ctx.stores.accounts.get(workspace.accountId);
  const accounts = [workspace.accountId, ...(account?.managedByAccountId ? [account.managedByAccountId] : [])];
  const found: UserRecord[] = [];
  let after: string | undefined;
  do {
    const page = await ctx.stores.users.list(accounts, { workspaceId: workspace.id }, { limit: PAGE, after });
    found.push(...page.items.filter((u) => u.isActive));
    after = page.nextAfter;
  } while (after !== undefined && found.length < ASSIGNEES_LIMIT);
  return found
    .slice(0, ASSIGNEES_LIMIT)
    .map((u) => ({
      userId: u.id,
      displayName: u.displayName,
      email: u.email,
      accountId: u.accountId,
      workspaceRole: u.workspaceAssignments!.find((a) => a.workspaceId === workspace.id)!.role,
      isYou: u.id === person.userId && u.accountId === person.accountId,
    }))
    .sort((a, b) => a.displayName.localeCompare(b.displayName) || a.email.localeCompare(b.email));
}
