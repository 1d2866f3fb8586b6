import { randomUUID } from "node:crypto";
import type { MessageHandler, QueueSender, ReceivedMessage } from "../../platform/queue/queue";
import type { Services } from "../services";
import {
  outgoingReconcile,
  reconcileBatches,
  workspacesOf,
  type PassStart,
  type PassSummary,
  type ReconcileMessage,
  type Reconciler,
  type WorkspaceResult,
} from "./reconciler-port";
import { reconcileWorkspace, summarizePass } from "./reconciler";
import { mergeRetry } from "./retry-merge";

/** Messages sent to the queue in one call; Service Bus batches them under its size limit. */
const ENQUEUE_CHUNK = 500;

/** What a worker tells the pass it belongs to about one workspace of its batch. */
type Listener = (message: ReceivedMessage<ReconcileMessage>, result: WorkspaceResult, resent: boolean) => void;

/**
 * A reconciler pass fans out on the `reconcile` queue: `startPass` (the timer) enqueues one message
 * per batch of workspaces, and `handler` (a queue worker) reconciles a batch's workspaces
 * concurrently, so the pass scales out with the queue's length while the queue's operations and the
 * workers' executions follow the batches, not the workspaces. The vendor calls of a batch wait their
 * turn in their source's limiter (the routing gateway holds every call to it), so a large batch does
 * not raise what a vendor sees. In Azure the timer returns at once and the Functions host runs the
 * workers; on the local host the queue runs in this process and `runPass` waits for every workspace
 * of its pass and sums them up.
 *
 * A workspace whose share fails is re-sent on its own (a batch of one, once, a few seconds later);
 * the rest of its batch completes. A retry that fails too, and a workspace a source asked to wait
 * (`heldBack`), are left to the next pass, whose window starts at the workspace's unmoved
 * watermark: nothing is lost either way.
 */
export class ReconcileRunner implements Reconciler {
  private readonly listeners = new Set<Listener>();

  constructor(
    private readonly services: () => Services,
    /** The `reconcile` queue (public for probes that count its messages). */
    readonly queue: QueueSender<ReconcileMessage>,
  ) {}

  /** Enqueues the pass; `passId` defaults to a fresh one (the Azure timer passes its minute). */
  async startPass(passId: string = randomUUID()): Promise<PassStart> {
    const services = this.services();
    const startedAt = services.now();
    const workspaceIds = (await services.stores.workspaces.listAll()).map((w) => w.id);
    const batches = reconcileBatches(workspaceIds, services.config.reconcileBatchSize);
    const messages = batches.map((ids) => outgoingReconcile({ workspaceIds: ids, passId, passStartedAt: startedAt.toISOString() }));
    for (let i = 0; i < messages.length; i += ENQUEUE_CHUNK) await this.queue.send(messages.slice(i, i + ENQUEUE_CHUNK));
    return { passId, startedAt, workspaceIds, messages: messages.length };
  }

  /**
   * The `reconcile` queue's handler: a batch, its workspaces concurrently. A workspace's failure is in
   * its result and the message completes; the failed ones are re-sent first, so that if that send
   * fails the batch is delivered again rather than a workspace dropped (repeating the others is safe).
   */
  readonly handler: MessageHandler<ReconcileMessage> = async (message) => {
    const { body } = message;
    const services = this.services();
    const results = await Promise.all(
      workspacesOf(body).map((workspaceId) => reconcileWorkspace(services, { workspaceId, passId: body.passId, passStartedAt: body.passStartedAt })),
    );
    // A workspace a source asked to wait (Retry-After) would be refused again: the next pass retries it.
    const resend = body.retry ? [] : results.filter((r) => r.outcome === "failed" && !r.heldBack).map((r) => r.workspaceId);
    if (resend.length > 0) {
      const retries = resend.map((workspaceId) => outgoingReconcile({ workspaceIds: [workspaceId], passId: body.passId, passStartedAt: body.passStartedAt, retry: true }));
      await this.queue.schedule(retries, new Date(services.now().getTime() + services.config.reconcileRetryDelayMs));
    }
    const now = services.now().getTime();
    const passAgeMs = Date.parse(body.passStartedAt) ? now - Date.parse(body.passStartedAt) : 0;
    for (const result of results) {
      // How far behind this workspace is: what the alert "reconciler lag above three intervals" reads.
      const lagMs = result.coveredThrough === null ? passAgeMs : Math.max(0, now - Date.parse(result.coveredThrough));
      const resent = resend.includes(result.workspaceId);
      services.logger.info("reconciled workspace", { passId: body.passId, ...result, passAgeMs, lagMs, ...(resent ? { resent } : {}) });
      for (const listener of this.listeners) listener(message, result, resent);
    }
  };

  /**
   * Runs one complete pass through the queue and resolves with its summary once every workspace of
   * it has reported, then sweeps the outbox. Only where the queue's workers run in this process.
   */
  async runPass(): Promise<PassSummary> {
    const services = this.services();
    const began = performance.now();
    const passId = randomUUID();
    // Per workspace: its final result, and a first attempt's while its retry is under way.
    const results = new Map<string, WorkspaceResult>();
    const firstAttempts = new Map<string, WorkspaceResult>();
    const messageIds = new Set<string>();
    let expected: Set<string> | undefined;
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const listener: Listener = (message, result, resent) => {
      if (message.body.passId !== passId) return;
      messageIds.add(message.messageId);
      const id = result.workspaceId;
      if (resent) {
        firstAttempts.set(id, result);
        return;
      }
      const first = firstAttempts.get(id);
      results.set(id, first ? mergeRetry(first, result) : result);
      if (expected && results.size >= expected.size) done();
    };
    this.listeners.add(listener);
    try {
      const start = await this.startPass(passId);
      expected = new Set(start.workspaceIds);
      if (results.size >= expected.size) done();
      await finished;
      const summary = summarizePass(passId, [...results.values()], {
        startedAt: start.startedAt,
        now: services.now(),
        durationMs: performance.now() - began,
        intervalMs: services.config.reconcileIntervalMs || 60_000,
        messages: messageIds.size,
      });
      const swept = await services.events.outbox.sweep();
      summary.eventsPublished += swept;
      services.logger.info("reconciler pass", { ...summary });
      return summary;
    } finally {
      this.listeners.delete(listener);
    }
  }
}
