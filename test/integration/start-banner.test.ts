import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { buildDemoData } from "../../shared/hosts/local/demo-data";
import { startBanner } from "../../shared/hosts/local/start-banner";
import { signInBannerLines } from "../../shared/hosts/local/local-sign-in";

const data = buildDemoData("secops-demo", new Date("2026-01-05T10:00:00Z"));
const admin = { clientId: "f5c65c65-7ebe-82fa-918e-b46fbf7a02d7", clientSecret: "soms_PwXOQpstZYJa2GgLhbedWNWj0TuVfSpRMwTnyhwokb8" };
const banner = (over: Partial<Parameters<typeof startBanner>[0]> = {}) =>
  startBanner({ url: "http://127.0.0.1:7071", store: "memory", data, admin, adminSecretFromEnv: false, ...over });

describe("the start banner", () => {
  it("prints the admin credential as an export line that sets ID and SECRET when pasted into a shell", () => {
    const line = banner().find((l) => l.trim().startsWith("export "))!;
    expect(line.trim()).toBe(`export ID=${admin.clientId} SECRET=${admin.clientSecret}`);
    const pasted = execFileSync("sh", ["-c", `${line}\nprintf '%s:%s' "$ID" "$SECRET"`], { encoding: "utf8" });
    expect(pasted).toBe(`${admin.clientId}:${admin.clientSecret}`);
    expect(banner()).toContain('  Try: curl -u "$ID:$SECRET" http://127.0.0.1:7071/api/v2/service-accounts/$ID');
  });

  it("does not echo a secret that came from LOCAL_ADMIN_CLIENT_SECRET", () => {
    const lines = banner({ adminSecretFromEnv: true }).join("\n");
    expect(lines).not.toContain(admin.clientSecret);
    expect(lines).toContain(`export ID=${admin.clientId} SECRET=<the LOCAL_ADMIN_CLIENT_SECRET you set>`);
  });

  it("says what a restart keeps, and how to keep the admin credential", () => {
    const memory = banner().join("\n");
    expect(memory).toContain("Nothing is kept across a restart");
    expect(memory).toMatch(/webhooks, service accounts/);
    expect(memory).toContain("set LOCAL_ADMIN_CLIENT_ID and LOCAL_ADMIN_CLIENT_SECRET to keep one");
    expect(banner({ store: "cosmos" }).join("\n")).toContain("Cosmos DB keeps webhooks, service accounts and audit across restarts");
  });

  it("points at the local controls' index and the reference", () => {
    const lines = banner().join("\n");
    expect(lines).toContain("http://127.0.0.1:7071/_local/ lists them all");
    expect(lines).toContain("listening on http://127.0.0.1:7071/api/v2 (store: memory)");
    expect(lines).toContain("Reference: http://127.0.0.1:7071/api/v2/docs");
  });

  it("tells how people sign in to the portal, in a browser and from a shell, and the operators' tasks are there", () => {
    const provider = { issuer: "http://127.0.0.1:7072", clientId: "secops-portal-local", close: async () => {} };
    const lines = signInBannerLines("http://127.0.0.1:7071", { env: {}, provider }).join("\n");
    expect(lines).toContain("Portal: http://127.0.0.1:7071/portal/ (open it in a browser). It signs in through the local identity provider at http://127.0.0.1:7072");
    expect(lines).toMatch(/jonas\s+Jonas Becker/);
    // The one who is refused for want of MFA is named as such.
    expect(lines).toMatch(/sam\s+Sam Okafor\s+.*no MFA/);
    expect(lines).toContain(`eval "$(npm run -s sign-in -- jonas)"`);
    expect(lines).toContain(`curl -b "$PORTAL_COOKIE" -H "X-CSRF-Token: $CSRF" http://127.0.0.1:7071/api/v2/portal/me`);
    // Another port is named for the script, which otherwise looks on 7071.
    expect(signInBannerLines("http://127.0.0.1:8080", { env: {}, provider }).join("\n")).toContain(`eval "$(BASE=http://127.0.0.1:8080 npm run -s sign-in -- jonas)"`);
    expect(signInBannerLines("http://127.0.0.1:7071", undefined)).toEqual(["  Portal: http://127.0.0.1:7071/portal/ (signs in through your identity provider)"]);
  });
});
