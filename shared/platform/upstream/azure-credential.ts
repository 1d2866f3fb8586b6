import type { TokenCredential } from "@azure/identity";
import { ApiError, isApiError } from "../errors/api-error";

/**
 * `DefaultAzureCredential` (managed identity in Azure, the developer's sign-in locally), built on the
 * first token request: `@azure/identity` is loaded then, not when the module is imported, so a cold
 * start that never calls Microsoft Graph or Azure Monitor does not pay for it.
 *
 * `additionallyAllowedTenants` lists the tenants other than the credential's own that a token may be
 * asked for (a multi-tenant app registration reading customers' directories).
 */
export function lazyDefaultAzureCredential(options: { additionallyAllowedTenants?: readonly string[] } = {}): TokenCredential {
  let credential: TokenCredential | undefined;
  return {
    getToken(scopes, tokenOptions) {
      if (!credential) {
        const { DefaultAzureCredential } = require("@azure/identity") as typeof import("@azure/identity");
        credential = new DefaultAzureCredential({ additionallyAllowedTenants: [...(options.additionallyAllowedTenants ?? [])] });
      }
      return credential.getToken(scopes, tokenOptions);
    },
  };
}

export interface TokenRequest {
  /** Names the upstream in error details: "Microsoft Graph", "Azure Resource Manager". */
  system: string;
  /** e.g. "https://graph.microsoft.com/.default". */
  scope: string;
  /** Ask for a token of this tenant rather than the credential's own. */
  tenantId?: string;
  /** The operation, for error details. */
  what: string;
  signal?: AbortSignal;
}

/**
 * A whole `Authorization` value ("Bearer …") for one request. The credential caches and refreshes
 * tokens itself, so asking per request costs nothing once a token is held. A credential that cannot
 * produce a token is the service's own broken credential: UPSTREAM_ERROR, never the caller's fault;
 * the credential's message (which may name the identity or the tenant) stays in `cause`.
 */
export async function bearerAuthorization(credential: TokenCredential, request: TokenRequest): Promise<string> {
  let token: Awaited<ReturnType<TokenCredential["getToken"]>>;
  try {
    token = await credential.getToken(request.scope, {
      ...(request.tenantId === undefined ? {} : { tenantId: request.tenantId }),
      ...(request.signal === undefined ? {} : { abortSignal: request.signal }),
    });
  } catch (error) {
    if (isApiError(error)) throw error;
    throw new ApiError("UPSTREAM_ERROR", `The service could not obtain a token for ${request.system} while ${request.what}.`, { cause: error });
  }
  if (!token?.token) throw new ApiError("UPSTREAM_ERROR", `The service could not obtain a token for ${request.system} while ${request.what}.`);
  const issuedFor = tenantOf(token.token);
  if (request.tenantId !== undefined && issuedFor !== undefined && issuedFor.toLowerCase() !== request.tenantId.toLowerCase()) {
    // A managed identity ignores the tenant asked for and answers with a token of its own tenant:
    // used as is, another tenant's data would be read from the wrong directory under its name.
    throw new ApiError(
      "UPSTREAM_ERROR",
      `The service's identity can only obtain ${request.system} tokens for its own tenant, not for tenant ${request.tenantId}, while ${request.what}.`,
    );
  }
  return `Bearer ${token.token}`;
}

/** The `tid` claim of a JWT access token; undefined for a token that is not a readable JWT. */
function tenantOf(token: string): string | undefined {
  const payload = token.split(".")[1];
  if (payload === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as unknown;
    return typeof claims === "object" && claims !== null && "tid" in claims && typeof claims.tid === "string" ? claims.tid : undefined;
  } catch {
    return undefined;
  }
}
