import { randomUUID } from "node:crypto";
import type { MessageHandler, QueueSender } from "../../platform/queue/queue";
import type { Services } from "../../platform/services";
import { outgoingReconcile, type PassStart, type PassSummary, type ReconcileMessage, type Reconciler, type WorkspaceResult } from "./reconciler-port";
import { reconcileWorkspace, summarizePass } from "./reconciler";

/** Messages sent to the queue in one call; Service Bus batches them under its size limit. */
const ENQUEUE_CHUNK = 500;

/**
 * A reconciler pass fans out on the `reconcile` queue: `startPass` (the timer) enqueues one message
 * per workspace, and `handler` (a queue worker) reconciles one workspace, so the pass scales out
 * with the queue's length. In Azure the timer returns at once and the Functions host runs the
 * workers; on the local host the queue runs in this process and `runPass` waits for every workspace
 * of its pass and sums them up.
 */
export class ReconcileRunner implements Reconciler {
  private readonly listeners = new Set<(message: ReconcileMessage, result: WorkspaceResult) => void>();

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
    const messages = workspaceIds.map((workspaceId) => outgoingReconcile({ workspaceId, passId, passStartedAt: startedAt.toISOString() }));
    for (let i = 0; i < messages.length; i += ENQUEUE_CHUNK) await this.queue.send(messages.slice(i, i + ENQUEUE_CHUNK));
    return { passId, startedAt, workspaceIds };
  }

  /** The `reconcile` queue's handler: one workspace. A failure is in the result; the message completes. */
  readonly handler: MessageHandler<ReconcileMessage> = async ({ body }) => {
    const services = this.services();
    const result = await reconcileWorkspace(services, body);
    const now = services.now().getTime();
    const passAgeMs = Date.parse(body.passStartedAt) ? now - Date.parse(body.passStartedAt) : 0;
    // How far behind this workspace is: what the alert "reconciler lag above three intervals" reads.
    const lagMs = result.coveredThrough === null ? passAgeMs : Math.max(0, now - Date.parse(result.coveredThrough));
    services.logger.info("reconciled workspace", { passId: body.passId, ...result, passAgeMs, lagMs });
    for (const listener of this.listeners) listener(body, result);
  };

  /**
   * Runs one complete pass through the queue and resolves with its summary once every workspace of
   * it has reported, then sweeps the outbox. Only where the queue's workers run in this process.
   */
  async runPass(): Promise<PassSummary> {
    const services = this.services();
    const began = performance.now();
    const passId = randomUUID();
    const results: WorkspaceResult[] = [];
    let expected: Set<string> | undefined;
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const listener = (message: ReconcileMessage, result: WorkspaceResult) => {
      if (message.passId !== passId) return;
      results.push(result);
      if (expected && results.length >= expected.size) done();
    };
    this.listeners.add(listener);
    try {
      const start = await this.startPass(passId);
      expected = new Set(start.workspaceIds);
      if (results.length >= expected.size) done();
      await finished;
      const summary = summarizePass(passId, results, {
        startedAt: start.startedAt,
        now: services.now(),
        durationMs: performance.now() - began,
        intervalMs: services.config.reconcileIntervalMs || 60_000,
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
