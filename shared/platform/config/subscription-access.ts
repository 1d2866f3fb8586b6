import { z } from "zod";

/** Account id → the subscription ids that account may see (all lower case). */
export type SubscriptionMap = Readonly<Record<string, readonly string[]>>;

/** Which subscriptions each account may see; an organization sees the union over its accounts. */
export interface SubscriptionAccess {
  visibleTo(accountIds: readonly string[]): ReadonlySet<string>;
}

/**
 * Access from a map. A subscription belongs to one account at most (the schema below refuses a
 * second), so no configuration can show one organization's subscription to another.
 */
export function subscriptionAccess(map: SubscriptionMap): SubscriptionAccess {
  const byAccount = new Map(Object.entries(map).map(([account, ids]) => [account.toLowerCase(), ids.map((id) => id.toLowerCase())]));
  return {
    visibleTo(accountIds) {
      return new Set(accountIds.flatMap((account) => byAccount.get(account.toLowerCase()) ?? []));
    },
  };
}

/**
 * The CLOUD_SUBSCRIPTIONS setting: a JSON object from account id to the subscription ids that
 * account (and whoever manages it) may see, e.g.
 * `{"6f0c…-account":["2b1d…-subscription"]}`. GUIDs are stored in lower case.
 */
export const subscriptionMapSchema = z
  .string()
  .transform((text, ctx): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      ctx.addIssue({ code: "custom", message: 'must be a JSON object such as {"<account id>":["<subscription id>"]}' });
      return z.NEVER;
    }
  })
  .pipe(z.record(z.guid("keys must be account ids (GUIDs)"), z.array(z.guid("values must be subscription ids (GUIDs)")).max(1000)))
  .superRefine((map, ctx) => {
    const accounts = new Set<string>();
    const owner = new Map<string, string>();
    for (const [key, ids] of Object.entries(map)) {
      const account = key.toLowerCase();
      if (accounts.has(account)) ctx.addIssue({ code: "custom", message: `account ${account} is listed twice` });
      accounts.add(account);
      for (const id of ids.map((i) => i.toLowerCase())) {
        const first = owner.get(id);
        if (first !== undefined && first !== account) {
          ctx.addIssue({ code: "custom", message: `subscription ${id} is listed under two accounts (${first}, ${account}); a subscription belongs to one account` });
        }
        owner.set(id, account);
      }
    }
  })
  .transform((map): SubscriptionMap =>
    Object.fromEntries(Object.entries(map).map(([account, ids]) => [account.toLowerCase(), [...new Set(ids.map((id) => id.toLowerCase()))]])),
  );
