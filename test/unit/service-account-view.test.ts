import { describe, expect, it } from "vitest";
import { toServiceAccountView } from "../../shared/domain/organizations/service-account-view";
import type { CredentialRecord, ServiceAccountRecord } from "../../shared/model/organizations/service-account";
import type { WorkspaceRecord } from "../../shared/model/organizations/workspace";

/*
 * A service account as a caller sees it: the secret prefix and expiry shown on the account are the
 * newest active credential's, whatever order the credentials are stored in; a revoked or expired
 * credential, however new, is never the one shown.
 */

const NOW = new Date("2026-11-30T12:00:00.000Z");

function credential(id: string, createdAt: string, status: CredentialRecord["status"] = "Active", expirationDate = "2027-06-01T00:00:00.000Z"): CredentialRecord {
  return { id, secretHash: "0".repeat(64), clientSecretPrefix: `soms_${id}`, status, expirationDate, lastUsedAt: null, createdAt, revokedAt: status === "Revoked" ? createdAt : null, scopes: ["incidents:read"] };
}

function account(credentials: CredentialRecord[]): ServiceAccountRecord {
  // Frozen, as the memory store hands its records out.
  return Object.freeze({
    id: "sa-1",
    accountId: "acct-1",
    name: "SIEM export",
    description: "",
    isActive: true,
    isPlatformManaged: false,
    organizationalRole: "Member",
    workspaceAssignments: Object.freeze([{ workspaceId: "ws-1", role: "Analyst" as const }]) as ServiceAccountRecord["workspaceAssignments"],
    credentials: Object.freeze(credentials.map((c) => Object.freeze(c))) as CredentialRecord[],
    lastUsedAt: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    lastModifiedAt: "2026-01-01T00:00:00.000Z",
  });
}

const workspaces = new Map([["ws-1", { id: "ws-1", name: "fabrikam-sentinel-prod" } as WorkspaceRecord]]);

describe("toServiceAccountView", () => {
  it("shows the newest active credential's prefix and expiry, in whatever order they are stored", () => {
    const older = credential("a", "2026-03-01T00:00:00.000Z", "Active", "2027-03-01T00:00:00.000Z");
    const newer = credential("b", "2026-09-01T00:00:00.000Z", "Active", "2027-09-01T00:00:00.000Z");
    for (const stored of [[older, newer], [newer, older]]) {
      const view = toServiceAccountView(account(stored), workspaces, NOW);
      expect([view.clientSecretPrefix, view.credentialExpirationDate]).toEqual(["soms_b", "2027-09-01T00:00:00.000Z"]);
      expect(view.credentials.map((c) => c.id)).toEqual(stored.map((c) => c.id));
    }
  });

  it("passes over a newer credential that is revoked or expired", () => {
    const active = credential("a", "2026-03-01T00:00:00.000Z");
    const revoked = credential("b", "2026-09-01T00:00:00.000Z", "Revoked");
    const expired = credential("c", "2026-10-01T00:00:00.000Z", "Active", "2026-11-01T00:00:00.000Z");
    const view = toServiceAccountView(account([revoked, active, expired]), workspaces, NOW);
    expect(view.clientSecretPrefix).toBe("soms_a");
    expect(view.credentials.map((c) => c.status)).toEqual(["Revoked", "Active", "Expired"]);
  });

  it("shows none when no credential is active, and names the workspaces", () => {
    const view = toServiceAccountView(account([credential("b", "2026-09-01T00:00:00.000Z", "Revoked")]), workspaces, NOW);
    expect([view.clientSecretPrefix, view.credentialExpirationDate]).toEqual([null, null]);
    expect(view.workspaceAssignments).toEqual([{ workspaceId: "ws-1", workspaceName: "fabrikam-sentinel-prod", role: "Analyst" }]);
  });
});
