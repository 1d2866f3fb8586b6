import type { Principal } from "./auth/principal";
import type { Person } from "./auth/person";
import type { ChangeOrigin } from "../model/events/event-types";

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
