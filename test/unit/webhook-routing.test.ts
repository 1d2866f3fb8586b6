import { describe, expect, it } from "vitest";
import { routeEvent } from "../../shared/platform/events/fan-out";
import type { EventMessage } from "../../shared/platform/events/event-message";
import type { WebhookRecord } from "../../shared/model/webhooks/webhook";

/*
 * The routing table of webhook events (docs/contract.md §6.2.1): which webhook gets an event of which
 * account. A provider (P) manages two customers (C1, C2); a stranger (S) manages nothing of theirs.
 */

const P = "00000000-0000-4000-8000-00000000000a";
const C1 = "00000000-0000-4000-8000-0000000000c1";
const C2 = "00000000-0000-4000-8000-0000000000c2";
const S = "00000000-0000-4000-8000-0000000000ff";
/** Who manages each account. */
const providerOf: Record<string, string | null> = { [P]: null, [C1]: P, [C2]: P, [S]: null };

function webhook(targetAccountId: string, monitoredAccountIds: string[] = [], over: Partial<WebhookRecord> = {}): WebhookRecord {
  return { id: `wh-${targetAccountId.slice(-2)}-${monitoredAccountIds.length}`, targetAccountId, monitoredAccountIds, status: "Active", eventTypes: ["incident.created.v1"], ...over } as WebhookRecord;
}

function event(accountId: string, over: Partial<EventMessage> = {}): EventMessage {
  return { envelope: { type: "incident.created.v1" }, accountId, incident: null, ...over } as EventMessage;
}

const gets = (w: WebhookRecord, accountId: string, over: Partial<EventMessage> = {}) => routeEvent(event(accountId, over), providerOf[accountId]!, w);

describe("routing an event to webhooks (docs/contract.md §6.2)", () => {
  it("an account's own webhook gets its own events, and no one else's", () => {
    expect(gets(webhook(C1), C1)).toBe(true);
    expect(gets(webhook(C1), C2)).toBe(false);
    expect(gets(webhook(C1), P)).toBe(false);
    expect(gets(webhook(S), C1)).toBe(false);
  });

  it("a provider's webhook with no monitoredAccountIds gets its own events and every managed account's", () => {
    for (const account of [P, C1, C2]) expect(gets(webhook(P), account), account).toBe(true);
    expect(gets(webhook(P), S)).toBe(false);
  });

  it("a provider's webhook with monitoredAccountIds gets the listed accounts' events only: not the provider's own unless listed", () => {
    const narrowed = webhook(P, [C1]);
    expect(gets(narrowed, C1)).toBe(true);
    expect(gets(narrowed, C2)).toBe(false);
    expect(gets(narrowed, P)).toBe(false);
    const withItself = webhook(P, [P, C2]);
    expect(gets(withItself, P)).toBe(true);
    expect(gets(withItself, C2)).toBe(true);
    expect(gets(withItself, C1)).toBe(false);
  });

  it("a type not subscribed is not sent, unless the manual trigger bypasses subscriptions; monitoredAccountIds still apply to it", () => {
    const other = webhook(P, [], { eventTypes: ["incident.closed.v1"] });
    expect(gets(other, C1)).toBe(false);
    expect(gets(other, C1, { bypassSubscription: true })).toBe(true);
    expect(gets(webhook(P, [C1], { eventTypes: ["incident.closed.v1"] }), C2, { bypassSubscription: true })).toBe(false);
  });

  it("a disabled webhook gets nothing; a paused one gets the message (held as Pending); one aimed at, only it", () => {
    expect(gets(webhook(C1, [], { status: "Disabled" }), C1)).toBe(false);
    expect(gets(webhook(C1, [], { status: "Paused" }), C1)).toBe(true);
    const aimed = webhook(C1);
    expect(gets(aimed, C1, { onlyWebhookIds: [aimed.id] })).toBe(true);
    expect(gets(aimed, C1, { onlyWebhookIds: ["another"] })).toBe(false);
  });
});
