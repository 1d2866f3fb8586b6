import { beforeAll, describe, expect, it } from "vitest";
import { measureOperations, type OperationCount, type OperationCounts } from "../../scripts/operation-counts";

/*
 * What a request costs the stores and the queues (scripts/operation-counts.ts, also printed by
 * `npm run bench`): on Cosmos DB serverless and Service Bus these counts are the bill, so a change
 * that adds a round trip must fail here. Each expectation is the least the design allows; the
 * reasons are in docs/decisions.md (Performance).
 */
let counts: OperationCounts;
beforeAll(async () => {
  counts = await measureOperations();
}, 120_000);

describe("operations per request", () => {
  it("an authenticated GET on a warm instance reads the service account and its workspaces' names: two store reads, no message", () => {
    expect(counts.authenticatedGet).toEqual({
      storeOperations: 2,
      queueMessages: 0,
      detail: { "serviceAccounts.get": 1, "workspaces.getMany": 1 },
    });
  });

  it("the first authenticated GET on a cold instance loads the caller (its account, its organization's accounts, its owner) and records its credential's use without reading the account again", () => {
    expect(counts.coldAuthenticatedGet).toEqual({
      storeOperations: 6,
      queueMessages: 0,
      detail: {
        // Authentication: the service account, then its organization and its owner account, in parallel.
        "serviceAccounts.get": 2,
        "accounts.listManagedBy": 1,
        "accounts.get": 1,
        // The handler: the account as it is now (the second read above) and its workspaces' names.
        "workspaces.getMany": 1,
        // lastUsedAt, written on the version authentication just read: no read of its own.
        "serviceAccounts.replace": 1,
      },
    });
  });

  it("one status change delivered to one webhook: eleven store operations and two messages, from the request to the delivery log", () => {
    expect(counts.statusChangeDelivered).toEqual({
      storeOperations: 11,
      queueMessages: 2,
      detail: {
        // The request: the workspace, the incident's state, the state with its outbox records in one commit.
        "workspaces.get": 1,
        "incidents.get": 1,
        "incidents.commit": 1,
        // The relay: the audit event to its trail, then the trail sequenced (no work left in memory; on
        // Cosmos the sequencer's own reads and writes, off the appends' path), both records marked
        // carried out, the event on the queue.
        "audit.append": 1,
        "audit.sequence": 1,
        "outbox.markPublished": 2,
        "queue:events": 1,
        // The fan-out: the account's provider and the webhooks that may get the event; one delivery message.
        "accounts.get": 1,
        "webhooks.listByAccounts": 1,
        "queue:deliveries": 1,
        // The delivery: the webhook as it is now, and the attempt's log entry.
        "webhooks.get": 1,
        "deliveryLogs.put": 1,
      },
    });
  });

  it("the first cross-workspace page of 200 over 50 workspaces reads the caller's workspaces once and the states once per workspace on the page", () => {
    const page = counts.crossWorkspacePage;
    expect(page.incidents).toBe(200);
    expect(page.detail).toEqual({ "workspaces.getMany": 1, "incidents.getMany": page.workspaces });
    expect(page.queueMessages).toBe(0);
  });

  it("a reconciler pass in which nothing changed sends one message per batch of 50 workspaces and only reads: the workspace and its reconciler document", () => {
    const pass = counts.reconcilerPassUnchanged;
    expect(pass.workspaces).toBe(50);
    // After the pass, the outbox sweep: its query, and the audit trails left waiting for their sequences.
    expect(pass).toEqual({
      workspaces: 50,
      storeOperations: 3 + 2 * 50,
      queueMessages: 1,
      detail: { "workspaces.listAll": 1, "workspaces.get": 50, "reconciler.get": 50, "outbox.listUnpublished": 1, "audit.sequenceWaiting": 1, "queue:reconcile": 1 },
    });
  });

  it("one gamebook run of 5 playbooks, from the request until its last playbook is recorded: one read and two writes of the run per playbook", () => {
    // Per playbook: one message, the workspace, one read of the run, `Running` written before the
    // playbook runs and its outcome after (the next playbook's message commits with the outcome).
    // The write before the run is what makes a crash visible and a redelivery resume, not repeat.
    // Each automation step (4 of the 5) reads the workspace's playbook automation switch as it runs,
    // so that switching automation off stops runs already under way. The comment step's audit event
    // goes to the outbox with its event, in the same append: the relay stores it and marks it.
    expect(counts.gamebookRun).toEqual({
      playbooks: 5,
      storeOperations: 47,
      queueMessages: 7,
      detail: {
        "accounts.get": 4,
        "audit.append": 2,
        "audit.sequence": 2,
        "gamebookRuns.create": 1,
        "gamebookRuns.get": 5,
        "gamebookRuns.replace": 10,
        "integrations.get": 4,
        "outbox.append": 1,
        "outbox.markPublished": 9,
        "playbookCatalogues.get": 1,
        "queue:events": 2,
        "queue:gamebook-runs": 5,
        "webhooks.listByAccounts": 2,
        "workspaces.get": 6,
      },
    });
  });

  it("a bulk assignment of 10 incidents reads the workspaces once, then costs each incident what its single write costs: its state read, the assignee's name, one commit", () => {
    const bulk = counts.bulkAssign;
    expect([bulk.incidents, bulk.workspaces]).toEqual([10, 6]);
    expect(bulk).toMatchObject({ storeOperations: 99, queueMessages: 10 });
    expect(bulk.detail).toEqual({
      // The request: every workspace named, in one read; no person read (the lead's session was read before).
      "workspaces.getMany": 1,
      // Per incident: its state, the assignee's name (in the workspace's account, then in the lead's
      // own: two reads for the 8 in customers' workspaces, one for the 2 in the provider's), the state
      // with its event and audit record in one commit.
      "incidents.get": 10,
      "users.findByEmail": 18,
      "incidents.commit": 10,
      // The relay, per incident: the audit record to its trail, the trail sequenced, both records marked, the event queued.
      "audit.append": 10,
      "audit.sequence": 10,
      "outbox.markPublished": 20,
      "queue:events": 10,
      // The fan-out, per event: the account's provider and the webhooks that may get it (none subscribes).
      "accounts.get": 10,
      "webhooks.listByAccounts": 10,
    });
  });

  it("a bulk assignment and close of 10 incidents costs each incident its two single writes, one after the other: the assignment's read and commit, then the close's read, claim and commit", () => {
    const bulk = counts.bulkAssignAndClose;
    expect([bulk.incidents, bulk.workspaces]).toEqual([10, 6]);
    expect(bulk).toMatchObject({ storeOperations: 239, queueMessages: 40 });
    expect(bulk.detail).toEqual({
      // The request: every workspace named, in one read.
      "workspaces.getMany": 1,
      // Per incident, the assignment as above: its state, the assignee's name (two reads for the 8 in
      // customers' workspaces, one for the 2 in the provider's), one commit; then the close as its single
      // write: its state again (the assignment moved it), the claim that refuses a close over another's, one commit.
      "incidents.get": 20,
      "users.findByEmail": 18,
      "incidents.commit": 30,
      // The relay, per incident: two audit records to the trail, sequenced; five records marked (the
      // assignee event, incident.status.changed.v1, incident.closed.v1, two audit records), three events queued.
      "audit.append": 20,
      "audit.sequence": 20,
      "outbox.markPublished": 50,
      "queue:events": 30,
      // The fan-out, per event: the account's provider and the webhooks that may get it; the webhook of
      // the status-change probe subscribes to incident.status.changed.v1, so each close's is delivered to it once.
      "accounts.get": 30,
      "webhooks.listByAccounts": 30,
      "webhooks.get": 10,
      "deliveryLogs.put": 10,
      "queue:deliveries": 10,
    });
  });

  it("an Idempotency-Key costs a webhook creation two writes of its own (the key claimed, the answer kept), and a repeat only the refused claim and one read: nothing of the creation", () => {
    const extra = (count: OperationCount, base: OperationCount) =>
      Object.fromEntries(Object.entries(count.detail).flatMap(([k, n]) => (n === (base.detail[k] ?? 0) ? [] : [[k, n - (base.detail[k] ?? 0)]])));
    expect(counts.webhookCreate.detail["idempotencyKeys.create"]).toBeUndefined();
    expect(extra(counts.webhookCreateWithKey, counts.webhookCreate)).toEqual({ "idempotencyKeys.create": 1, "idempotencyKeys.replace": 1 });
    expect(counts.webhookCreateWithKey.queueMessages).toBe(counts.webhookCreate.queueMessages);
    expect(counts.webhookCreateReplayed).toEqual({ storeOperations: 2, queueMessages: 0, detail: { "idempotencyKeys.create": 1, "idempotencyKeys.get": 1 } });
  });
});
