import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../shared/platform/config/config";

const TENANT = "2a8cc883-0968-8486-8b92-4569ed8ff8c8";
const CLIENT = "0e2b7c64-8f2c-4a3e-9d55-6a1f3c2b9e01";
const CALLBACK = "https://secops.contoso-mssp.example/api/v2/portal/auth/callback";

const configError = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("the configuration was accepted");
};

describe("portal sign-in settings", () => {
  it("are absent without a client id: nobody signs in", () => {
    expect(loadConfig({}).portalSignIn).toBeUndefined();
    expect(loadConfig({ PORTAL_TENANT_ID: TENANT }).portalSignIn).toBeUndefined();
  });

  it("default the authority to Entra ID's v2.0 endpoint of the tenant, a public client", () => {
    expect(loadConfig({ PORTAL_TENANT_ID: TENANT, PORTAL_CLIENT_ID: CLIENT, PORTAL_REDIRECT_URI: CALLBACK }).portalSignIn).toEqual({
      authority: `https://login.microsoftonline.com/${TENANT}/v2.0`,
      clientId: CLIENT,
      clientAuthentication: { method: "none" },
      redirectUri: CALLBACK,
    });
    expect(loadConfig({ PORTAL_TENANT_ID: "organizations", PORTAL_CLIENT_ID: CLIENT, PORTAL_REDIRECT_URI: CALLBACK }).portalSignIn?.authority).toBe(
      "https://login.microsoftonline.com/organizations/v2.0",
    );
  });

  it("take an authority of its own (the local identity provider), a redirect URI and an MFA authentication context", () => {
    expect(
      loadConfig({
        PORTAL_OIDC_AUTHORITY: "http://127.0.0.1:7072/",
        PORTAL_CLIENT_ID: "secops-portal-local",
        PORTAL_REDIRECT_URI: "http://localhost:7071/api/v2/portal/auth/callback",
        PORTAL_MFA_AUTH_CONTEXT: "c1",
      }).portalSignIn,
    ).toEqual({
      authority: "http://127.0.0.1:7072",
      clientId: "secops-portal-local",
      clientAuthentication: { method: "none" },
      redirectUri: "http://localhost:7071/api/v2/portal/auth/callback",
      mfaAuthContext: "c1",
    });
  });

  it("authenticate the client by secret, or by the user-assigned managed identity (AZURE_CLIENT_ID)", () => {
    const base = { PORTAL_TENANT_ID: TENANT, PORTAL_CLIENT_ID: CLIENT, PORTAL_REDIRECT_URI: CALLBACK };
    expect(loadConfig({ ...base, PORTAL_CLIENT_SECRET: "s3cret" }).portalSignIn?.clientAuthentication).toEqual({ method: "client_secret_post", clientSecret: "s3cret" });
    expect(loadConfig({ ...base, PORTAL_CLIENT_ASSERTION: "managed-identity", AZURE_CLIENT_ID: "5d3c1b2a-0000-4000-8000-000000000001" }).portalSignIn?.clientAuthentication).toEqual({
      method: "managed_identity",
      managedIdentityClientId: "5d3c1b2a-0000-4000-8000-000000000001",
    });
  });

  it("refuse what cannot work, naming the setting", () => {
    expect(configError({ PORTAL_CLIENT_ID: CLIENT })).toMatch(/PORTAL_TENANT_ID: required \(or PORTAL_OIDC_AUTHORITY\)/);
    // A provider elsewhere needs the registered callback: one derived from a request's Host header is what the client claims.
    expect(configError({ PORTAL_CLIENT_ID: CLIENT, PORTAL_TENANT_ID: TENANT })).toMatch(/PORTAL_REDIRECT_URI: required when PORTAL_CLIENT_ID is set/);
    expect(configError({ PORTAL_CLIENT_ID: CLIENT, PORTAL_OIDC_AUTHORITY: "https://idp.example" })).toMatch(/PORTAL_REDIRECT_URI: required/);
    expect(loadConfig({ PORTAL_CLIENT_ID: CLIENT, PORTAL_OIDC_AUTHORITY: "http://127.0.0.1:7072" }).portalSignIn?.redirectUri).toBeUndefined();
    expect(configError({ PORTAL_CLIENT_ID: CLIENT, PORTAL_OIDC_AUTHORITY: "http://idp.example" })).toMatch(/PORTAL_OIDC_AUTHORITY: must use https/);
    expect(configError({ PORTAL_CLIENT_ID: CLIENT, PORTAL_TENANT_ID: TENANT, PORTAL_CLIENT_SECRET: "s", PORTAL_CLIENT_ASSERTION: "managed-identity", AZURE_CLIENT_ID: "x" })).toMatch(
      /PORTAL_CLIENT_ASSERTION: set either/,
    );
    expect(configError({ PORTAL_CLIENT_ID: CLIENT, PORTAL_TENANT_ID: TENANT, PORTAL_CLIENT_ASSERTION: "managed-identity" })).toMatch(/AZURE_CLIENT_ID: required/);
    expect(configError({ PORTAL_CLIENT_ID: CLIENT, PORTAL_TENANT_ID: TENANT, PORTAL_MFA_AUTH_CONTEXT: "mfa" })).toMatch(/PORTAL_MFA_AUTH_CONTEXT: must be an authentication context id/);
    expect(configError({ PORTAL_CLIENT_ID: CLIENT, PORTAL_TENANT_ID: "https://login.microsoftonline.com/x" })).toMatch(/PORTAL_TENANT_ID/);
    expect(configError({ PORTAL_CLIENT_ASSERTION: "secret" })).toMatch(/PORTAL_CLIENT_ASSERTION/);
  });
});
