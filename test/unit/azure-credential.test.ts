import type { TokenCredential } from "@azure/identity";
import { describe, expect, it } from "vitest";
import { bearerAuthorization } from "../../shared/platform/upstream/azure-credential";
import { apiErrorOf } from "../support/api-error-of";

const OWN = "0b6c1f3e-2d4a-4e8b-9c7d-5a1f3e2d4c6b";
const CUSTOMER = "7e2d9a41-5c3b-4f6e-8a1d-2b9c4e7f6a30";

/** A JWT-shaped access token whose payload names `tid` (unsigned: only the claim is read). */
const jwt = (claims: object) => ["eyJhbGciOiJub25lIn0", Buffer.from(JSON.stringify(claims)).toString("base64url"), "sig"].join(".");
const credentialAnswering = (token: string): TokenCredential => ({ getToken: async () => ({ token, expiresOnTimestamp: Date.now() + 3_600_000 }) });
const request = { system: "Microsoft Graph", scope: "https://graph.microsoft.com/.default", what: "reading the sign-ins of a tenant" };

describe("bearerAuthorization", () => {
  it("hands out the token of the tenant asked for", async () => {
    const token = jwt({ tid: CUSTOMER.toUpperCase(), aud: "https://graph.microsoft.com" });
    expect(await bearerAuthorization(credentialAnswering(token), { ...request, tenantId: CUSTOMER })).toBe(`Bearer ${token}`);
  });

  it("refuses a token issued for another tenant than the one asked for, as a managed identity answers", async () => {
    const error = await apiErrorOf(bearerAuthorization(credentialAnswering(jwt({ tid: OWN })), { ...request, tenantId: CUSTOMER }));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).toBe(
      `The service's identity can only obtain Microsoft Graph tokens for its own tenant, not for tenant ${CUSTOMER}, while reading the sign-ins of a tenant.`,
    );
  });

  it("does not judge a token it cannot read, nor one asked for without a tenant", async () => {
    expect(await bearerAuthorization(credentialAnswering("opaque-token"), { ...request, tenantId: CUSTOMER })).toBe("Bearer opaque-token");
    expect(await bearerAuthorization(credentialAnswering(jwt({ tid: OWN })), request)).toBe(`Bearer ${jwt({ tid: OWN })}`);
  });

  it("reports a credential that fails as UPSTREAM_ERROR, its message only in the cause", async () => {
    const failing: TokenCredential = { getToken: async () => Promise.reject(new Error("ManagedIdentityCredential: no identity for client id 123")) };
    const error = await apiErrorOf(bearerAuthorization(failing, request));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).not.toContain("client id");
    expect(error.cause).toBeInstanceOf(Error);
  });
});
