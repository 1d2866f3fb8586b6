import { ApiError } from "../errors/api-error";
import type { Stores } from "../store/ports";
import { organizationAccountIds } from "./organization-scope";
import { isActiveAccount } from "../../model/organizations/account";
import type { UserRecord } from "../../model/organizations/user";
import type { Person } from "./person";
import { CSRF_HEADER, SESSION_COOKIE, type PortalSession, type PortalSessions } from "./portal-session";

export interface PeopleOptions {
  stores: Stores;
  sessions: PortalSessions;
  /** How long a loaded registration is reused before it is read again. 0 disables the cache. */
  cacheTtlMs: number;
  now: () => Date;
}

interface Loaded {
  user: UserRecord;
  organizationAccountIds: string[];
  /** False when the account the person is registered in is deactivated: they are refused as a deactivated user is. */
  organizationActive: boolean;
}

/** Where a browser starts signing in; named in the 401's challenge. */
export const SIGN_IN_PATH = "/api/v2/portal/auth/sign-in";

/** What a request to a portal route carries: its headers, read by name. */
export interface PersonRequest {
  method: string;
  header(name: string): string | undefined;
}

/**
 * The people side of authentication: a portal route's caller is a person with a browser session,
 * never a service account. Checked in this order, each with its own problem: service-account
 * credentials (403 FORBIDDEN), a session (401), MFA (403 MFA_REQUIRED), a registered, active user
 * matched by tenant and object id (403 USER_NOT_REGISTERED), and on a change the CSRF token (403
 * FORBIDDEN). Registrations are cached briefly per instance, as service accounts are.
 */
export class People {
  /** Registrations by tenant and object id; null: not registered (also cached, so a stranger cannot make every request a read). */
  private readonly cache = new Map<string, { loaded: Loaded | null; at: number }>();

  constructor(private readonly options: PeopleOptions) {}

  async authenticate(request: PersonRequest): Promise<Person> {
    if (request.header("authorization") !== undefined) {
      throw new ApiError("FORBIDDEN", "Portal routes are for people signed in with a browser session; service account credentials are refused here.", {
        target: "Authorization",
      });
    }
    const now = this.options.now();
    const session = this.options.sessions.read(request.header("cookie"), now);
    if (!session) throw signInRequired();
    if (!session.mfa) {
      throw new ApiError("MFA_REQUIRED", "This sign-in did not use multi-factor authentication. Sign out, and sign in again with MFA.");
    }
    const loaded = await this.registration(session.tenantId, session.objectId);
    if (!loaded || !loaded.user.isActive || !loaded.organizationActive) {
      throw new ApiError(
        "USER_NOT_REGISTERED",
        !loaded
          ? // The ids an administrator registers a person by: the person can read them nowhere else.
            `You are signed in, but not registered as a user of this service. Ask a UserAdmin of your organization to add you: ` +
            `tenant id ${session.tenantId}, object id ${session.objectId}.`
          : !loaded.organizationActive
            ? "Your organization is deactivated in this service. Ask its service provider."
            : "Your user is deactivated in this service. Ask a UserAdmin of your organization.",
      );
    }
    const validFrom = loaded.user.sessionsValidFrom ? Date.parse(loaded.user.sessionsValidFrom) : 0;
    if (session.issuedAt < validFrom) throw signInRequired("This session has ended; sign in again.");
    if (isChange(request.method)) this.checkCsrf(request, session);
    return toPerson(loaded, session);
  }

  /** Drops the cached registration of a person after a change, so it takes effect at once on this instance. */
  evict(tenantId: string, objectId: string): void {
    this.cache.delete(key(tenantId, objectId));
  }

  /**
   * Drops every cached registration whose organization includes the account, after the account
   * changed (created under a provider, deactivated, reactivated), so it takes effect at once here.
   */
  evictOrganization(accountId: string): void {
    for (const [k, cached] of this.cache) if (cached.loaded?.organizationAccountIds.includes(accountId)) this.cache.delete(k);
  }

  private checkCsrf(request: PersonRequest, session: PortalSession): void {
    // Fetch Metadata first: a browser says when a request comes from another site.
    if (request.header("sec-fetch-site") === "cross-site") {
      throw new ApiError("FORBIDDEN", "A cross-site request cannot change anything here.", { target: "Sec-Fetch-Site" });
    }
    if (!this.options.sessions.csrfTokenMatches(session, request.header(CSRF_HEADER))) {
      throw new ApiError("FORBIDDEN", "Send the session's CSRF token (GET /portal/me, csrfToken) in the X-CSRF-Token header with every change.", {
        target: "X-CSRF-Token",
      });
    }
  }

  private async registration(tenantId: string, objectId: string): Promise<Loaded | null> {
    const k = key(tenantId, objectId);
    const cached = this.cache.get(k);
    if (cached && Date.now() - cached.at < this.options.cacheTtlMs) return cached.loaded;
    const at = Date.now();
    const loaded = await this.load(tenantId, objectId);
    if (this.options.cacheTtlMs > 0) this.cache.set(k, { loaded, at });
    return loaded;
  }

  /**
   * A person registered in more than one account (a provider's analyst also added by a customer)
   * acts through the active registration whose organization is largest: the provider's covers its
   * customers. Ties go to the first account id, so the choice is stable. A registration in a
   * deactivated organization is not an active one.
   */
  private async load(tenantId: string, objectId: string): Promise<Loaded | null> {
    const users = await this.options.stores.users.findByDirectoryIdentity(tenantId, objectId.toLowerCase());
    if (users.length === 0) return null;
    const accounts = this.options.stores.accounts;
    const activeOrganization = new Map<string, boolean>();
    for (const accountId of new Set(users.map((u) => u.accountId))) {
      const account = await accounts.get(accountId);
      activeOrganization.set(accountId, !account || isActiveAccount(account));
    }
    const active = users.filter((u) => u.isActive && activeOrganization.get(u.accountId));
    let best: Loaded | null = null;
    for (const user of active.length > 0 ? active : users.slice(0, 1)) {
      const organization = await organizationAccountIds(accounts, user.accountId);
      if (!best || organization.length > best.organizationAccountIds.length) {
        best = { user, organizationAccountIds: organization, organizationActive: activeOrganization.get(user.accountId)! };
      }
    }
    return best;
  }
}

function toPerson(loaded: Loaded, session: PortalSession): Person {
  const user = loaded.user;
  return {
    userId: user.id,
    tenantId: user.tenantId,
    name: user.displayName,
    email: user.email,
    accountId: user.accountId,
    organizationalRole: user.organizationalRole,
    workspaceRoles: new Map((user.workspaceAssignments ?? []).map((a) => [a.workspaceId, a.role])),
    organizationAccountIds: loaded.organizationAccountIds,
    sessionId: session.id,
    sessionExpiresAt: session.expiresAt,
    rateLimitKey: `user:${user.accountId}/${user.id}`,
  };
}

const key = (tenantId: string, objectId: string) => `${tenantId.toLowerCase()}/${objectId.toLowerCase()}`;

const isChange = (method: string) => method !== "GET" && method !== "HEAD" && method !== "OPTIONS";

function signInRequired(detail = "Sign in to the portal first."): ApiError {
  return new ApiError("UNAUTHORIZED", detail, {
    // The expired cookie-authentication draft's scheme: it names where a browser signs in.
    headers: { "WWW-Authenticate": `Cookie realm="portal", form-action="${SIGN_IN_PATH}", cookie-name="${SESSION_COOKIE}"` },
  });
}
