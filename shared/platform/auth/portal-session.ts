import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { SealedValues } from "./sealed-value";

/**
 * The browser session of a person signed in to the portal: a sealed, HttpOnly, Secure, SameSite=Lax
 * cookie (docs/decisions.md, "People and the portal"). `__Host-` pins it to this host and path `/`,
 * so no sibling domain can set or shadow it.
 */
export const SESSION_COOKIE = "__Host-secops-session";
/** The sign-in in progress (state, nonce, PKCE verifier), from the redirect to the provider until its callback. */
export const SIGN_IN_COOKIE = "__Host-secops-sign-in";
/** The header a state-changing portal request carries its CSRF token in. */
export const CSRF_HEADER = "x-csrf-token";

/** Who signed in, as the identity provider vouched for them. */
export interface SignedInIdentity {
  tenantId: string;
  objectId: string;
  name: string;
  email: string | null;
  /** The sign-in satisfied multi-factor authentication. */
  mfa: boolean;
}

export interface PortalSession extends SignedInIdentity {
  /** This session's own id: what its CSRF token is bound to. */
  id: string;
  /** When the person signed in (ms since the epoch); sessions older than the user's `sessionsValidFrom` are over. */
  issuedAt: number;
  expiresAt: number;
}

const sessionSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  objectId: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  mfa: z.boolean(),
  issuedAt: z.number(),
  exp: z.number(),
});

export interface SessionSettings {
  /** The secret sessions are sealed with; every instance of a deployment must share it. */
  key: Buffer;
  /** How long a session lasts from sign-in, whatever the activity. */
  lifetimeMs: number;
}

/** Sign-in transactions are short: a person who takes longer at the provider starts again. */
const SIGN_IN_LIFETIME_MS = 10 * 60_000;

/**
 * Issues and reads the portal's cookies. Sessions are not kept server-side: the cookie is the
 * session, and ending one early is the user record's `sessionsValidFrom` (sign-out, deactivation).
 */
export class PortalSessions {
  private readonly sealed: SealedValues;
  private readonly csrfKey: Buffer;

  constructor(private readonly settings: SessionSettings) {
    this.sealed = new SealedValues(settings.key);
    this.csrfKey = createHmac("sha256", settings.key).update("portal csrf v1").digest();
  }

  /** A new session for an identity, and the Set-Cookie header that hands it to the browser. */
  start(identity: SignedInIdentity, now: Date): { session: PortalSession; setCookie: string } {
    const issuedAt = now.getTime();
    const expiresAt = issuedAt + this.settings.lifetimeMs;
    const id = randomUUID();
    const value = this.sealed.seal(SESSION_COOKIE, { id, ...identity, issuedAt }, new Date(expiresAt));
    return {
      session: { id, ...identity, issuedAt, expiresAt },
      setCookie: cookie(SESSION_COOKIE, value, Math.floor(this.settings.lifetimeMs / 1000)),
    };
  }

  /** The session the request's cookies carry, or undefined (none, not ours, tampered with, expired). */
  read(cookieHeader: string | undefined, now: Date): PortalSession | undefined {
    const opened = this.sealed.open(SESSION_COOKIE, cookieValue(cookieHeader, SESSION_COOKIE), sessionSchema, now);
    if (!opened) return undefined;
    const { exp, ...session } = opened;
    return { ...session, expiresAt: exp };
  }

  /** The CSRF token of a session: what the portal page sends back in `X-CSRF-Token` on every change. */
  csrfToken(session: Pick<PortalSession, "id">): string {
    return createHmac("sha256", this.csrfKey).update(session.id).digest("base64url");
  }

  csrfTokenMatches(session: Pick<PortalSession, "id">, presented: string | undefined): boolean {
    if (!presented) return false;
    const expected = Buffer.from(this.csrfToken(session));
    const given = Buffer.from(presented);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** The cookie of a sign-in in progress. */
  startSignIn(transaction: object, now: Date): string {
    const value = this.sealed.seal(SIGN_IN_COOKIE, transaction, new Date(now.getTime() + SIGN_IN_LIFETIME_MS));
    return cookie(SIGN_IN_COOKIE, value, SIGN_IN_LIFETIME_MS / 1000);
  }

  readSignIn<S extends z.ZodType>(cookieHeader: string | undefined, schema: S, now: Date): z.output<S> | undefined {
    return this.sealed.open(SIGN_IN_COOKIE, cookieValue(cookieHeader, SIGN_IN_COOKIE), schema, now);
  }
}

/** Set-Cookie that removes a cookie. */
export function clearCookie(name: string): string {
  return `${name}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`;
}

/**
 * Lax, not Strict: the browser must send the session on the top-level navigation back from the
 * identity provider and from links into the portal; cross-site requests that change state are
 * refused by the CSRF token and Fetch Metadata checks instead.
 */
function cookie(name: string, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Lax`;
}

/** One cookie's value from a Cookie header (RFC 6265 section 5.4: `name=value` pairs separated by `; `). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(";")) {
    const at = pair.indexOf("=");
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}
