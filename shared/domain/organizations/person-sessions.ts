import type { Uses } from "../../platform/operation-context";
import { commit } from "../../platform/store/commit";

/**
 * Ends every portal session of a person: sessions live in the browser (sealed cookies), so ending
 * them is recording, on each of the person's registrations, that sessions which began before now are
 * over. Used by sign-out and by a UserAdmin's "sign out everywhere".
 */
export async function endSessions(ctx: Uses<"stores" | "now" | "people">, tenantId: string, objectId: string): Promise<number> {
  const registrations = await ctx.stores.users.findByDirectoryIdentity(tenantId, objectId.toLowerCase());
  const at = ctx.now().toISOString();
  for (const registration of registrations) {
    await commit({
      read: () => ctx.stores.users.find([registration.accountId], registration.id).then((found) => found ?? null),
      change(draft) {
        draft.sessionsValidFrom = at;
      },
      write: (draft, etag) => ctx.stores.users.replace(draft, etag!),
      maxAttempts: 3,
    });
  }
  ctx.people.evict(tenantId, objectId);
  return registrations.length;
}
