import { z } from "zod";
import type { ClientAuthentication, OidcSettings } from "../auth/sign-in";

/** The settings of people's sign-in to the portal (OpenID Connect), part of the one configuration schema (`config.ts`). */
export const portalSignInEnv = {
  /** The Entra tenant of the app registration: a tenant id, a verified domain, or `organizations`/`common` for a multi-tenant app. */
  PORTAL_TENANT_ID: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$/, "must be a tenant id, a verified domain, organizations or common").optional(),
  /** The OpenID provider's issuer URL; default: Entra ID's v2.0 endpoint of PORTAL_TENANT_ID. */
  PORTAL_OIDC_AUTHORITY: z.url({ protocol: /^https?$/ }).optional(),
  /** The app registration's client id; unset, nobody can sign in to the portal. */
  PORTAL_CLIENT_ID: z.string().min(1).optional(),
  PORTAL_CLIENT_SECRET: z.string().min(1).optional(),
  /** `managed-identity`: the app's user-assigned managed identity (AZURE_CLIENT_ID) is the client's credential. */
  PORTAL_CLIENT_ASSERTION: z.enum(["managed-identity"]).optional(),
  /**
   * The callback URL registered with the provider. Required with a provider elsewhere: derived from a
   * request's Host header, the URL would be whatever a client claims. Unset with the local identity
   * provider (on this machine), it is derived from the request's origin.
   */
  PORTAL_REDIRECT_URI: z.url({ protocol: /^https?$/ }).optional(),
  /** A Conditional Access authentication context id whose policy requires MFA (Entra: c1 … c25). */
  PORTAL_MFA_AUTH_CONTEXT: z.string().regex(/^c([1-9]|1[0-9]|2[0-5])$/, "must be an authentication context id, c1 to c25").optional(),
  /** The user-assigned managed identity's client id (also read by the Azure SDKs). */
  AZURE_CLIENT_ID: z.string().min(1).optional(),
};

type PortalSignInEnv = z.output<z.ZodObject<typeof portalSignInEnv>>;

export function checkPortalSignInEnv(env: PortalSignInEnv, ctx: z.RefinementCtx): void {
  if (!env.PORTAL_CLIENT_ID) return;
  if (!env.PORTAL_OIDC_AUTHORITY && !env.PORTAL_TENANT_ID) {
    ctx.addIssue({ code: "custom", path: ["PORTAL_TENANT_ID"], message: "required (or PORTAL_OIDC_AUTHORITY) when PORTAL_CLIENT_ID is set" });
  }
  if (env.PORTAL_OIDC_AUTHORITY && !secureOrLoopback(env.PORTAL_OIDC_AUTHORITY)) {
    // Codes and tokens travel to the provider: plain HTTP only to this machine (the local identity provider).
    ctx.addIssue({ code: "custom", path: ["PORTAL_OIDC_AUTHORITY"], message: "must use https (http only for localhost or 127.0.0.1)" });
  }
  const authority = env.PORTAL_OIDC_AUTHORITY;
  if (!env.PORTAL_REDIRECT_URI && !(authority && isLoopback(authority))) {
    ctx.addIssue({
      code: "custom",
      path: ["PORTAL_REDIRECT_URI"],
      message: "required when PORTAL_CLIENT_ID is set: the callback URL registered with the provider (https://<host>/api/v2/portal/auth/callback)",
    });
  }
  if (env.PORTAL_CLIENT_SECRET && env.PORTAL_CLIENT_ASSERTION) {
    // Two credentials for one client: which one the registration trusts is a guess.
    ctx.addIssue({ code: "custom", path: ["PORTAL_CLIENT_ASSERTION"], message: "set either PORTAL_CLIENT_SECRET or PORTAL_CLIENT_ASSERTION, not both" });
  }
  if (env.PORTAL_CLIENT_ASSERTION === "managed-identity" && !env.AZURE_CLIENT_ID) {
    // Entra accepts only a user-assigned managed identity as a federated identity credential.
    ctx.addIssue({ code: "custom", path: ["AZURE_CLIENT_ID"], message: "required when PORTAL_CLIENT_ASSERTION=managed-identity: the user-assigned managed identity's client id" });
  }
}

/** The portal's sign-in settings; undefined when no client id is configured (nobody signs in). */
export function portalSignInOf(env: PortalSignInEnv): OidcSettings | undefined {
  if (!env.PORTAL_CLIENT_ID) return undefined;
  const clientAuthentication: ClientAuthentication = env.PORTAL_CLIENT_SECRET
    ? { method: "client_secret_post", clientSecret: env.PORTAL_CLIENT_SECRET }
    : env.PORTAL_CLIENT_ASSERTION === "managed-identity"
      ? { method: "managed_identity", managedIdentityClientId: env.AZURE_CLIENT_ID! }
      : { method: "none" };
  return {
    authority: (env.PORTAL_OIDC_AUTHORITY ?? `https://login.microsoftonline.com/${env.PORTAL_TENANT_ID}/v2.0`).replace(/\/+$/, ""),
    clientId: env.PORTAL_CLIENT_ID,
    clientAuthentication,
    ...(env.PORTAL_REDIRECT_URI === undefined ? {} : { redirectUri: env.PORTAL_REDIRECT_URI }),
    ...(env.PORTAL_MFA_AUTH_CONTEXT === undefined ? {} : { mfaAuthContext: env.PORTAL_MFA_AUTH_CONTEXT }),
  };
}

function secureOrLoopback(url: string): boolean {
  return new URL(url).protocol === "https:" || isLoopback(url);
}

function isLoopback(url: string): boolean {
  return ["localhost", "127.0.0.1", "[::1]"].includes(new URL(url).hostname);
}
