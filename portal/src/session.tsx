import { createContext } from "preact";
import { useContext, useEffect, useState } from "preact/hooks";
import { api, call, onSessionEnded, ProblemError, useCsrfToken, type Problem } from "./api/client";
import type { paths } from "./api/openapi";

type MeEnvelope = paths["/api/v2/portal/me"]["get"]["responses"][200]["content"]["application/json"];
export type Me = MeEnvelope["data"];
export type OrganizationalRole = Me["organizationalRole"];

/** Where the person stands: the portal shows the app only when signed in with MFA and registered. */
export type SessionState =
  | { kind: "loading" }
  | { kind: "signedIn"; me: Me }
  | { kind: "signedOut" }
  | { kind: "refused"; problem: Problem };

export const SessionContext = createContext<Me | undefined>(undefined);

/** The person signed in; only inside the signed-in app. */
export function useMe(): Me {
  const me = useContext(SessionContext);
  if (!me) throw new Error("useMe outside a session");
  return me;
}

/** The name the deployment shows for a source (its path value, `SourceA`…, stays in links and requests). */
export function useSourceName(): (source: string) => string {
  const me = useMe();
  return (source) => (me.sourceDisplayNames as Record<string, string>)[source] ?? source;
}

/**
 * Whether the person's organization manages customer accounts (a service provider with customers):
 * known from the session, so a page lays out what depends on it (the Customer filter, the shared
 * indicators) with its first render rather than after another answer.
 */
export function managesCustomers(me: Me): boolean {
  return me.organizationAccountIds.length > 1;
}

/** Whether the person holds one of the roles (Admin holds them all). */
export function hasRole(me: Me, roles: readonly OrganizationalRole[]): boolean {
  return me.organizationalRole === "Admin" || roles.includes(me.organizationalRole);
}

export function useSession(): SessionState {
  const [state, setState] = useState<SessionState>({ kind: "loading" });
  useEffect(() => {
    call(api.GET("/api/v2/portal/me"))
      .then((envelope) => {
        useCsrfToken(envelope.data.csrfToken);
        setState({ kind: "signedIn", me: envelope.data });
      })
      .catch((error: unknown) => {
        const problem = error instanceof ProblemError ? error.problem : { status: 0, code: "UNEXPECTED", detail: String(error) };
        setState(problem.status === 401 ? { kind: "signedOut" } : { kind: "refused", problem });
      });
    return onSessionEnded(() => setState({ kind: "signedOut" }));
  }, []);
  return state;
}

/** The sign-in's address: back to where the person was. */
export function signInUrl(returnTo = location.pathname + location.search): string {
  return `/api/v2/portal/auth/sign-in?returnTo=${encodeURIComponent(returnTo)}`;
}

/** Signs out of this service and of the identity provider. */
export async function signOut(): Promise<void> {
  const result = await call(api.POST("/api/v2/portal/auth/sign-out"));
  location.assign(result.data.signOutUrl);
}

