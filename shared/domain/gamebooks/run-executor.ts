import { z } from "zod";
import { ApiError, isApiError, type ErrorCode } from "../../platform/errors/api-error";
import { changeStatus } from "../incidents/incident-writes";
import { addServiceComment } from "../incidents/service-comments";
import type { Actor } from "../../platform/actor";
import type { Uses } from "../operation-context";
import { automationEntityTypes, type AutomationEntityType } from "../../model/gamebooks/playbook-catalogue-record";
import type { MessageHandler } from "../../platform/queue/queue";
import { MAX_DELIVERY_COUNT } from "../../platform/queue/queue-names";
import type { Services } from "../services";
import { classifications, type Classification } from "../../model/incidents/incident";
import { parseRetryAfter } from "../../platform/upstream/retry-after";
import type { AutoRunMessage, GamebookRunMessage, GamebookRunRecord, GamebookRunsMessage, PlaybookEntryRecord } from "../../model/gamebooks/gamebook-run";
import { commit } from "../../platform/store/commit";
import type { Versioned } from "../../platform/store/ports";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { withSummary } from "./run-record";
import { notEnabled, playbookAutomationSwitchedOn } from "../organizations/integration-switches";
import { executorMessage } from "./run-records";
import { advance, beginStep, nextStep, type StepResult } from "./run-state";
import { submitAutoRun } from "./auto-run";
import { sources } from "../../model/sources";

export interface RunExecutorOptions {
  services: Services;
  /**
   * Pauses before the retries of a playbook whose system could not be reached (a timeout, a 5xx,
   * throttling); their number is the number of retries. Default 10 s, 30 s, 1, 2 and 5 minutes.
   */
  retryDelaysMs?: readonly number[];
}

export interface RunExecutor {
  /**
   * The `gamebook-runs` queue's handler: resolve completes the message, throw abandons it. A
   * playbook's message is carried out here; an automation rule's (`kind: "autoRun"`) submits its run.
   */
  handle: MessageHandler<GamebookRunsMessage>;
}

const DEFAULT_RETRY_DELAYS_MS = [10_000, 30_000, 60_000, 120_000, 300_000];

/** Codes that say the outcome is unknown (the system was not reached, or did not answer): try again later. */
const TRANSIENT: readonly ErrorCode[] = ["TIMEOUT", "UPSTREAM_ERROR", "RATE_LIMITED", "INTERNAL_ERROR"];

const messageSchema = z.strictObject({
  workspaceId: z.string().min(1),
  runId: z.string().min(1),
  sequence: z.int().min(1),
  attempt: z.int().min(1),
});

const autoRunMessageSchema = z.strictObject({
  kind: z.literal("autoRun"),
  workspaceId: z.string().min(1),
  source: z.enum(sources),
  incidentId: z.string().min(1),
});

/**
 * The gamebook executor (DESIGN §9). Each message carries out one playbook of a run: the playbook is
 * recorded `Running` before it runs and its outcome after, and the record of the outcome commits the
 * message for the next playbook, so no invocation outlives one playbook and a crash loses nothing.
 *
 * At least once, never twice: a worker that dies after the `Running` record leaves the playbook
 * `Running`; the redelivered message runs it again under the same step id, which the automation
 * backend (and the incident actions, keyed on the same id) answer with the first execution. A message
 * for a playbook that is no longer the next one (a duplicate) does nothing.
 *
 * A playbook whose system cannot be reached is retried later with the same step id; after the last
 * retry it is recorded `Failed`. A playbook that ran and failed ends the run (run-state.ts).
 */
export function createRunExecutor(options: RunExecutorOptions): RunExecutor {
  const { services } = options;
  const retryDelaysMs = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const runs = () => services.stores.gamebookRuns;

  const handle: MessageHandler<GamebookRunsMessage> = async (received) => {
    if ((received.body as Partial<AutoRunMessage>).kind === "autoRun") return submitAutomationRun(received.messageId, received.body);
    const parsed = messageSchema.safeParse(received.body);
    // Not one of ours: failing sends it, in the end, to the dead-letter queue where someone can look.
    if (!parsed.success) throw new Error(`Malformed gamebook-runs message ${received.messageId}.`);
    const message = parsed.data;
    const workspace = await services.stores.workspaces.get(message.workspaceId);
    const found = await runs().get(message.workspaceId, message.runId);
    if (!workspace || !found) {
      services.logger.warn("gamebook run message for a run that is not there", { ...message });
      return;
    }
    const step = nextStep(found.value);
    // Waiting for approval, finished, or a duplicate message for a playbook already done.
    if (step.kind !== "execute" || step.sequence !== message.sequence) return;

    const running = step.resumed ? found : await begin(message, found);
    if (!running) return;
    // Cancelled while this playbook waited to try again after its system could not be reached: the
    // earlier attempts may never have arrived, so trying again could carry it out now, after the
    // person stopped the run. Recorded Failed instead, saying what is known.
    if (running.value.status === "Cancelled" && message.attempt > 1) {
      const reason = `The run was cancelled while this playbook waited to be tried again (its system could not be reached on ${message.attempt - 1} attempt(s)): it was not tried again, and whether an earlier attempt took effect is unknown.`;
      await record(message, { status: "Failed", errorMessage: reason, durationMs: 0 }, running);
      return;
    }
    const entry = running.value.playbooks.find((p) => p.sequence === message.sequence)!;
    const outcome = await carryOut(workspace, running.value, entry, message.attempt, received.deliveryCount);
    if (outcome.kind === "retry") {
      const next = executorMessage(running.value, message.sequence, message.attempt + 1, services.now().toISOString());
      await services.events.gamebookRuns.schedule([next.message], new Date(services.now().getTime() + outcome.delayMs));
      services.logger.warn("gamebook playbook will be retried", { ...message, delayMs: outcome.delayMs, error: outcome.reason });
      return;
    }
    const result = outcome.kind === "done" ? outcome.result : { status: "Failed" as const, errorMessage: outcome.reason, durationMs: outcome.durationMs };
    await record(message, result, running);
  };

  async function submitAutomationRun(messageId: string, body: unknown): Promise<void> {
    const parsed = autoRunMessageSchema.safeParse(body);
    if (!parsed.success) throw new Error(`Malformed gamebook-runs message ${messageId}.`);
    const outcome = await submitAutoRun(services, parsed.data);
    services.logger.info("automation rule run", { ...parsed.data, outcome });
  }

  /**
   * The run as read for an attempt: the version the caller already holds on the first attempt (one
   * read of the run per playbook, not one per write), a fresh read after a lost race.
   */
  const readFor = (message: GamebookRunMessage, held: Versioned<GamebookRunRecord>) => async (attempt: number) =>
    attempt === 1 ? held : ((await runs().get(message.workspaceId, message.runId)) ?? null);

  /** Marks the playbook (and the run, on its first) `Running`; undefined when another worker got there first. */
  async function begin(message: GamebookRunMessage, found: Versioned<GamebookRunRecord>): Promise<Versioned<GamebookRunRecord> | undefined> {
    const read = readFor(message, found);
    let resumed: Versioned<GamebookRunRecord> | undefined;
    const saved = await commit({
      deadline: undefined,
      async read(attempt) {
        const current = await read(attempt);
        const step = current && nextStep(current.value);
        if (!step || step.kind !== "execute" || step.sequence !== message.sequence) return null;
        if (step.resumed) resumed = current!;
        return step.resumed ? null : current;
      },
      next: (run) => ({ value: withSummary(beginStep(run, message.sequence, services.now().toISOString())) }),
      write: (started, etag) => runs().replace(started, etag!),
    });
    return saved ?? resumed;
  }

  /**
   * Records the outcome on the run as this worker left it (re-read if someone wrote since); the next
   * playbook's message commits with it. A second outcome changes nothing.
   */
  async function record(message: GamebookRunMessage, result: StepResult, running: Versioned<GamebookRunRecord>): Promise<void> {
    await commit({
      deadline: undefined,
      read: readFor(message, running),
      next(run) {
        const at = services.now().toISOString();
        const advanced = advance(run, message.sequence, result, at);
        if (advanced === run) return null;
        const after = withSummary(advanced);
        const next = nextStep(after);
        return { value: after, outbox: next.kind === "execute" && !next.resumed ? [executorMessage(after, next.sequence, 1, at)] : [] };
      },
      write: (after, etag, outbox) => runs().replace(after, etag!, outbox),
      outbox: services.events.outbox,
    });
  }

  type Outcome =
    | { kind: "done"; result: StepResult }
    | { kind: "failed"; reason: string; durationMs: number }
    | { kind: "retry"; reason: string; delayMs: number };

  async function carryOut(workspace: WorkspaceRecord, run: GamebookRunRecord, entry: PlaybookEntryRecord, attempt: number, deliveryCount: number): Promise<Outcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      return { kind: "done", result: await executeStep({ ...services, actor: gamebookActor(run) }, workspace, run, entry, elapsed) };
    } catch (error) {
      if (!isApiError(error)) {
        // A defect, not an outcome: abandoned and redelivered. On the last delivery the playbook is
        // recorded Failed instead, so that the run ends rather than stay Running behind a
        // dead-lettered message; what went wrong goes to the log, not to the run's readers.
        if (deliveryCount < MAX_DELIVERY_COUNT) throw error;
        services.logger.error("gamebook playbook failed on every delivery; recorded Failed", {
          workspaceId: run.workspaceId,
          runId: run.id,
          sequence: entry.sequence,
          deliveryCount,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
        return { kind: "failed", reason: `The service failed internally on each of ${deliveryCount} attempts to run this playbook.`, durationMs: elapsed() };
      }
      if (!TRANSIENT.includes(error.code)) return { kind: "failed", reason: error.message, durationMs: elapsed() };
      if (attempt > retryDelaysMs.length) {
        return { kind: "failed", reason: `Gave up after ${attempt} attempts: ${error.message}`, durationMs: elapsed() };
      }
      const asked = parseRetryAfter(error.headers["Retry-After"], services.now()) ?? 0;
      return { kind: "retry", reason: error.message, delayMs: Math.max(retryDelaysMs[attempt - 1]!, asked) };
    }
  }

  return { handle };
}

/** Who a run's playbooks act as: the gamebook, on behalf of whoever submitted it. */
export function gamebookActor(run: GamebookRunRecord): Actor {
  return { origin: "gamebook", serviceAccountId: run.submitter.serviceAccountId, name: `Gamebook: ${run.title}`, accountId: run.submitter.accountId ?? run.accountId };
}

/**
 * Runs one playbook. Entity actions go to the automation port under the step id; the incident's own
 * actions go through the service's incident paths, keyed on the same id, so that a resumed step
 * comments once and closes once.
 */
async function executeStep(
  ctx: Uses<"actor" | "events" | "logger" | "now" | "playbookActions" | "sources" | "stores">,
  workspace: WorkspaceRecord,
  run: GamebookRunRecord,
  entry: PlaybookEntryRecord,
  elapsed: () => number,
): Promise<StepResult> {
  const target = { workspace, source: run.source, incidentId: run.incidentId };
  switch (entry.action) {
    case "automation": {
      if (!(automationEntityTypes as readonly string[]).includes(entry.entityType)) {
        throw new ApiError("VALIDATION_ERROR", `${entry.name} is an automation playbook on ${entry.entityType}, which the automation cannot act on.`);
      }
      // Read when the step runs, not when the run was submitted: switching automation off stops the
      // automation steps of runs already under way (the step fails with the refusal's message).
      if (!(await playbookAutomationSwitchedOn(ctx, workspace.id))) throw notEnabled("playbookAutomation", workspace.id);
      const result = await ctx.playbookActions.execute({
        workspaceId: workspace.id,
        incident: { source: run.source, id: run.incidentId, number: run.incidentNumber, title: run.incidentTitle },
        playbook: { id: entry.referenceId, referenceId: entry.actionName, name: entry.name },
        entity: { id: entry.entityId, type: entry.entityType as AutomationEntityType, name: entry.affectedEntity },
        parameters: entry.parameters,
        runId: run.id,
        stepId: entry.id,
      });
      return { status: result.status, errorMessage: result.errorMessage, durationMs: result.durationMs };
    }
    case "incident.comment": {
      await addServiceComment(ctx, { ...target, message: String(entry.parameters.message ?? ""), idempotencyKey: entry.id });
      return { status: "Succeeded", errorMessage: null, durationMs: elapsed() };
    }
    case "incident.close": {
      const incident = await ctx.sources.gateway(run.source).getIncident(workspace.id, run.incidentId);
      // Already closed (by this step before a crash, or by someone else): closing again would change nothing.
      if (incident.status !== "Closed") {
        const classification = entry.parameters.classification;
        if (typeof classification !== "string" || !(classifications as readonly string[]).includes(classification)) {
          throw new ApiError("VALIDATION_ERROR", `Closing needs a classification: ${classifications.join(", ")}.`);
        }
        const closingComment = typeof entry.parameters.closingComment === "string" && entry.parameters.closingComment !== "" ? entry.parameters.closingComment : undefined;
        await changeStatus(ctx, target, { status: "Closed", classification: classification as Classification, closingComment });
      }
      return { status: "Succeeded", errorMessage: null, durationMs: elapsed() };
    }
  }
}
