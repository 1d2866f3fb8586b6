import type { Uses } from "../operation-context";
import type { OutboxRecord } from "../../platform/events/outbox-record";
import { commit } from "../../platform/store/commit";
import type { UserRecord } from "../../model/organizations/user";

/**
 * Ends every portal session of a person: sessions live in the browser (sealed cookies), so ending
 * them is recording, on each of the person's registrations (a person signs in as a directory
 * identity, whichever registration the sign-in then picks), that sessions which began before now are
 * over. Sign-out does it unaudited; a UserAdmin's "sign out everywhere" passes the audit event to
 * commit with each registration.
 */
export async function endSessions(
  ctx: Uses<"stores" | "now" | "people" | "events">,
  tenantId: string,
  objectId: string,
  audit?: (user: UserRecord, at: string) => OutboxRecord[],
  /**
   * Only the registrations of these organizations: an administrator ends the sessions their
   * organizations' registrations allow, never another organization's (nor learns that one exists).
   * Absent: every registration (the person signing themselves out).
   */
  accountIds?: readonly string[],
): Promise<{ at: string; registrations: number }> {
  const all = await ctx.stores.users.findByDirectoryIdentity(tenantId, objectId.toLowerCase());
  const registrations = accountIds ? all.filter((r) => accountIds.includes(r.accountId)) : all;
  const at = ctx.now().toISOString();
  for (const registration of registrations) {
    await commit({
      deadline: ctx.deadline,
      read: async () => (await ctx.stores.users.find([registration.accountId], registration.id)) ?? null,
      change(draft) {
        draft.sessionsValidFrom = at;
        return audit ? audit(draft, at) : [];
      },
      write: (draft, etag, outbox) => ctx.stores.users.replace(draft, etag!, outbox),
      outbox: ctx.events.outbox,
      maxAttempts: 3,
    });
  }
  ctx.people.evict(tenantId, objectId);
  return { at, registrations: registrations.length };
}
