import type { PostInvocationContext } from "@azure/functions";
import type { Logger, LogLevel } from "../../platform/logger";

/**
 * One log record per invocation of a timer or queue function, with its outcome: what the operations
 * workbook counts per function and the reconciler alert reads for invocations that threw. The
 * service's own record, not the Functions host's request telemetry, whose shape in OpenTelemetry
 * mode depends on the host's version. HTTP functions are left out: each request already writes its
 * `request` line (status, duration), and a thrown handler there is a 500 answer, counted by it.
 *
 * Registered as a `postInvocation` hook (`functions/telemetry.ts`), so it sees what the handler
 * threw before the host does; it never throws itself and changes nothing of the invocation.
 */
export function logInvocation(logger: Logger, context: PostInvocationContext): void {
  const { functionName, options } = context.invocationContext;
  const trigger = options.trigger.type;
  if (trigger === "httpTrigger") return;
  const failed = context.error !== undefined && context.error !== null;
  const outcome: InvocationOutcome = failed ? "failed" : "succeeded";
  if (!failed) {
    logger.info("function invocation", { functionName, trigger, outcome });
  } else {
    const error = context.error instanceof Error ? context.error.message : String(context.error);
    logger.warn("function invocation", { functionName, trigger, outcome, error });
  }
}

/** Whether the handler returned or threw. */
export type InvocationOutcome = "succeeded" | "failed";

const levels: readonly LogLevel[] = ["debug", "info", "warn", "error"];

/** `LOG_LEVEL` as the configuration reads it, `info` when unset or unknown (the configuration refuses those at start). */
export function invocationLogLevel(env: NodeJS.ProcessEnv): LogLevel {
  return levels.find((level) => level === env.LOG_LEVEL) ?? "info";
}
