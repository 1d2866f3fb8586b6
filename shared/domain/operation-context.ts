import type { Actor } from "../platform/actor";
import type { Deadline } from "../platform/concurrency/deadline";
import type { Services } from "./services";

/**
 * What every operation runs with, whoever started it: the services, who it acts as, the caller's
 * abort signal and, for a request, its deadline. An API handler's input is one (it adds the request's
 * parameters), and so is what a queue worker or a local control builds for itself
 * (`{ ...services, actor }`).
 */
export interface OperationContext extends Services {
  actor: Actor;
  /** Aborted when the caller goes away; absent for work nobody waits on. */
  signal?: AbortSignal;
  /**
   * The request's time budget, which its writes go through (`commit`'s `deadline`, `commitWithin`);
   * absent for work no request waits on (queue workers, timers).
   */
  deadline?: Deadline;
}

/**
 * What an operation takes: the parts of the context it uses, by name (services, `actor`), and the
 * caller's abort signal and deadline. Any fuller context (a handler's input, a worker's context) can
 * be passed.
 *
 * @example
 * export async function addComment(ctx: Uses<"stores" | "sources" | "now" | "actor">, …)
 */
export type Uses<K extends keyof OperationContext> = Pick<OperationContext, K | "signal" | "deadline">;
