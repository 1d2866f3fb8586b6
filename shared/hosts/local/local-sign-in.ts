import { randomBytes } from "node:crypto";
import { DEMO_PEOPLE } from "./identity-provider/demo-people";
import { LOCAL_PORTAL_CLIENT_ID, startLocalIdentityProvider, type LocalIdentityProvider } from "./identity-provider/local-identity-provider";

export interface LocalSignIn {
  /** The settings that point the service's sign-in at the local identity provider. */
  env: Record<string, string>;
  provider: LocalIdentityProvider;
}

/**
 * People sign in on the local host as they do in Azure, through OpenID Connect, against a real
 * OpenID provider beside it that knows the demo's people (identity-provider/). Unless a deployment's
 * own provider is configured (PORTAL_CLIENT_ID): then that one is used, and none is started.
 */
export async function startLocalSignIn(env: NodeJS.ProcessEnv, port: number): Promise<LocalSignIn | undefined> {
  if (env.PORTAL_CLIENT_ID) return undefined;
  const provider = await startLocalIdentityProvider({ clientId: LOCAL_PORTAL_CLIENT_ID, port });
  return {
    provider,
    env: {
      PORTAL_OIDC_AUTHORITY: provider.issuer,
      PORTAL_CLIENT_ID: LOCAL_PORTAL_CLIENT_ID,
      // Sessions of the local host need not outlive it: a key of its own unless one is set.
      PORTAL_SESSION_KEY: env.PORTAL_SESSION_KEY ?? randomBytes(32).toString("base64"),
    },
  };
}

/** The banner's lines about signing in locally: where, as whom, and from a shell. */
export function signInBannerLines(url: string, signIn: LocalSignIn | undefined): string[] {
  if (!signIn) return [`  Portal: ${url}/portal/ (signs in through your identity provider)`];
  // scripts/sign-in.ts finds the service on port 7071 by itself; elsewhere it is told.
  const where = new URL(url).port === "7071" ? "" : `BASE=${url} `;
  return [
    `  Portal: ${url}/portal/ (open it in a browser). It signs in through the local identity provider at ${signIn.provider.issuer}; no passwords, pick one of:`,
    ...DEMO_PEOPLE.map((p) => `    ${p.key.padEnd(7)}${p.name.padEnd(14)} ${p.description}`),
    `  As one of them in a shell (approvals, policies, integrations, the agent configuration are the portal's): eval "$(${where}npm run -s sign-in -- jonas)"`,
    `    then: curl -b "$PORTAL_COOKIE" -H "X-CSRF-Token: $CSRF" ${url}/api/v2/portal/me`,
  ];
}
