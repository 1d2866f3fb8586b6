import type { OutboxScope } from "../events/outbox-record";

/** The scope of each kind of write: its partition, where its outbox records commit with it. */
export const outboxScope = {
  workspace: (workspaceId: string): OutboxScope => `workspace:${workspaceId}`,
  serviceAccount: (serviceAccountId: string): OutboxScope => `service-account:${serviceAccountId}`,
  users: (accountId: string): OutboxScope => `users:${accountId}`,
  webhook: (webhookId: string): OutboxScope => `webhook:${webhookId}`,
  /** An account's record (the accounts container, partition the account id). */
  account: (accountId: string): OutboxScope => `account:${accountId}`,
  /** A workspace's own record (the workspaces container, partition the workspace id), not its items. */
  workspaceRecord: (workspaceId: string): OutboxScope => `workspace-record:${workspaceId}`,
};

export type OutboxScopeKind = "workspace" | "service-account" | "users" | "webhook" | "account" | "workspace-record";

/** `workspace:abc` → `{kind: "workspace", key: "abc"}`: which container and partition hold the scope. */
export function parseOutboxScope(scope: OutboxScope): { kind: OutboxScopeKind; key: string } {
  const colon = scope.indexOf(":");
  return { kind: scope.slice(0, colon) as OutboxScopeKind, key: scope.slice(colon + 1) };
}

/** A write and its outbox records are one transaction only within one scope: refuse anything else. */
export function assertScope(outbox: readonly { scope: OutboxScope }[], scope: OutboxScope): void {
  const stray = outbox.find((r) => r.scope !== scope);
  if (stray) throw new Error(`An outbox record of scope ${stray.scope} cannot commit with a write in ${scope}.`);
}
