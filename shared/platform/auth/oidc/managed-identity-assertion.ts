import type { TokenCredential } from "@azure/identity";
import { ApiError, isApiError } from "../../errors/api-error";

/**
 * The audience Entra ID expects of a managed identity token presented as a federated identity
 * credential, per cloud (https://learn.microsoft.com/entra/workload-id/workload-identity-federation-config-app-trust-managed-identity).
 */
export function tokenExchangeAudience(authority: string): string {
  const host = new URL(authority).hostname.toLowerCase();
  if (host.endsWith(".microsoftonline.us")) return "api://AzureADTokenExchangeUSGov";
  if (host.endsWith(".chinacloudapi.cn")) return "api://AzureADTokenExchangeChina";
  return "api://AzureADTokenExchange";
}

/**
 * A client assertion from the app's user-assigned managed identity (Entra accepts no system-assigned
 * identity as a federated credential). `@azure/identity` is loaded on the first sign-in, not at
 * import, so a cold start that signs nobody in does not pay for it; the credential caches the token.
 */
export function managedIdentityAssertion(managedIdentityClientId: string, audience: string): () => Promise<string> {
  let credential: TokenCredential | undefined;
  return async () => {
    try {
      if (!credential) {
        const { ManagedIdentityCredential } = require("@azure/identity") as typeof import("@azure/identity");
        credential = new ManagedIdentityCredential({ clientId: managedIdentityClientId });
      }
      const token = await credential.getToken(`${audience}/.default`);
      if (!token?.token) throw new Error("the managed identity returned no token");
      return token.token;
    } catch (error) {
      if (isApiError(error)) throw error;
      // The service's own credential is broken: never the person's fault.
      throw new ApiError("UPSTREAM_ERROR", "The service could not obtain its managed identity's assertion for signing in.", { cause: error });
    }
  };
}
