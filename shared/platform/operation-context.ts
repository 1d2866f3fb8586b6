import type { Principal } from "./auth/principal";
import type { Person } from "./auth/person";
import type { ChangeOrigin } from "../model/events/event-types";
import type { Services } from "./services";
import type { Deadline } from "./concurrency/deadline";

/**
 * Who an operation acts as. A service account calling the API, or the service itself acting for a
 * gamebook, an agent, the portal or a reconciled vendor change. Events carry it as `changedBy`,
 * audit events as their actor.
 */
export interface Actor {
  origin: ChangeOrigin["origin"];
  /** The service account acting, or on whose behalf (a gamebook's submitter); null when none. */
  serviceAccountId: string | null;
  /** Display name: the service account's, the agent's, the gamebook's. */
  name: string;
  /** The account the actor belongs to, when it belongs to one. */
  accountId: string | null;
  /** A person acting in the portal: their user id and e-mail address (the audit event's actor). */
  person?: { userId: string; email: string };
}

/**
 * What every operation runs with, whoever started it: the services, who it acts as, the caller's
 * abort signal and, for a request, its deadline. An API handler's input is one (it adds the request's parameters), and so is what a
 * queue worker or a local control builds for itself (`{ ...services, actor }`).
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
 * caller's abort signal and deadline. Any fuller context (a handler's input, a worker's context) can be passed.
 *
 * @example
 * export async function addComment(ctx: Uses<"stores" | "sources" | "now" | "actor">, …)
 */
export type Uses<K extends keyof OperationContext> = Pick<OperationContext, K | "signal" | "deadline">;

/** The actor of an API call: the calling service account. */
export function actorOf(principal: Principal): Actor {
  return { origin: "api", serviceAccountId: principal.serviceAccountId, name: principal.name, accountId: principal.accountId };
}

/** The actor of a portal call: the person signed in. */
export function personActor(person: Person): Actor {
  return { origin: "portal", serviceAccountId: null, name: person.name, accountId: person.accountId, person: { userId: person.userId, email: person.email } };
}

/** The service acting on its own account (reconciliation, agents, the portal stand-in). */
export function serviceActor(origin: Exclude<Actor["origin"], "api">, name: string): Actor {
  return { origin, serviceAccountId: null, name, accountId: null };
}

/** `changedBy` / `closedBy` / `addedBy` of an event. */
export function changeOriginOf(actor: Actor): ChangeOrigin {
  return { origin: actor.origin, serviceAccountId: actor.serviceAccountId, name: actor.origin === "upstream" ? null : actor.name };
}
