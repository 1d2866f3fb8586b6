import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoPerson } from "../../shared/hosts/local/identity-provider/demo-people";
import { signInHeadless, type CookieJar } from "../support/oidc-sign-in";
import { startTestHost, type TestHost, type TestPerson } from "../support/test-host";

/**
 * People sign in through the local identity provider, a real OpenID provider beside the host: the
 * redirect, the code, the token and the session run end to end, as in a browser.
 */
let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ signIn: true });
});
afterAll(() => host?.close());

async function signIn(key: string, returnTo?: string): Promise<{ jar: CookieJar; location: string | null; status: number }> {
  const start = `${host.base}/portal/auth/sign-in${returnTo ? `?returnTo=${encodeURIComponent(returnTo)}` : ""}`;
  const { cookies, response } = await signInHeadless({ startUrl: start, personId: demoPerson(key).oid });
  return { jar: cookies, location: response.headers.get("location"), status: response.status };
}

/** The person behind a jar, as `host.portal` takes one: their session cookie and its CSRF token. */
async function personOf(jar: CookieJar): Promise<{ person: TestPerson; me: Response }> {
  const cookie = jar.header(`${host.base}/portal/me`)!;
  const me = await host.portal({ userId: "", tenantId: "", name: "", headers: { cookie, "x-csrf-token": "" } }, "GET", "/portal/me");
  const token = me.status === 200 ? ((await me.clone().json()) as { data: { csrfToken: string } }).data.csrfToken : "";
  return { person: { userId: "", tenantId: "", name: "", headers: { cookie, "x-csrf-token": token } }, me };
}

describe("signing in to the portal", () => {
  it("a registered person with MFA signs in, lands where the sign-in began, and is who the directory says", async () => {
    const { jar, location, status } = await signIn("jonas", "/portal/approvals");
    expect(status).toBe(303);
    expect(location).toBe("/portal/approvals");
    const cookie = jar.get("__Host-secops-session");
    expect(cookie).toBeTruthy();
    const { me } = await personOf(jar);
    expect(me.status).toBe(200);
    const body = (await me.json()) as { data: Record<string, unknown> };
    expect(body.data).toMatchObject({ userId: demoPerson("jonas").oid, tenantId: demoPerson("jonas").tid, displayName: "Jonas Becker", organizationalRole: "WorkspaceAdmin" });
    expect((body.data.workspaceRoles as unknown[]).length).toBe(host.demo.workspaces.length);
  });

  it("the session cookie is HttpOnly, Secure, SameSite=Lax and host-only", async () => {
    const res = await fetch(`${host.base}/portal/auth/sign-in`, { redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(new RegExp(`^${host.identityProvider!.issuer}/`));
    const signInCookie = res.headers.getSetCookie().find((c) => c.startsWith("__Host-secops-sign-in="))!;
    expect(signInCookie).toMatch(/; Path=\/; Max-Age=600; HttpOnly; Secure; SameSite=Lax$/);
    expect(signInCookie).not.toMatch(/Domain=/i);
  });

  it("a person who signed in without MFA gets 403 MFA_REQUIRED, and an unregistered one 403 USER_NOT_REGISTERED", async () => {
    const sam = await personOf((await signIn("sam")).jar);
    expect(sam.me.status).toBe(403);
    expect(((await sam.me.json()) as { code: string }).code).toBe("MFA_REQUIRED");
    const oliver = await personOf((await signIn("oliver")).jar);
    expect(oliver.me.status).toBe(403);
    const refused = (await oliver.me.json()) as { code: string; detail: string };
    expect(refused.code).toBe("USER_NOT_REGISTERED");
    // What an administrator registers him by, which he can read nowhere else.
    const directory = demoPerson("oliver");
    expect(refused.detail).toContain(`tenant id ${directory.tid}, object id ${directory.oid}`);
  });

  it("sign-out ends the session, in this browser and every other, and goes through the provider's sign-out", async () => {
    const first = await personOf((await signIn("li")).jar);
    const second = await personOf((await signIn("li")).jar);
    expect(first.me.status).toBe(200);
    const out = await fetch(`${host.base}/portal/auth/sign-out`, { method: "POST", headers: { cookie: first.person.headers.cookie }, redirect: "manual" });
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toMatch(new RegExp(`^${host.identityProvider!.issuer}/`));
    expect(out.headers.getSetCookie()).toContain("__Host-secops-session=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax");
    for (const session of [first, second]) {
      const again = await host.portal(session.person, "GET", "/portal/me");
      expect(again.status).toBe(401);
    }
    // Signing in again starts a new session that works.
    expect((await personOf((await signIn("li")).jar)).me.status).toBe(200);
  });

  it("refuses a returnTo that would leave the service", async () => {
    for (const returnTo of ["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)"]) {
      const res = await host.portal(null, "GET", `/portal/auth/sign-in?returnTo=${encodeURIComponent(returnTo)}`);
      expect(res.status, returnTo).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe("VALIDATION_ERROR");
    }
  });

  it("a callback without its sign-in (another browser, too late, forged) is 401 and starts no session", async () => {
    const res = await host.portal(null, "GET", "/portal/auth/callback?code=abc&state=def");
    expect(res.status).toBe(401);
    expect(res.headers.getSetCookie().some((c) => c.startsWith("__Host-secops-session=") && !c.includes("Max-Age=0"))).toBe(false);
  });

  it("a sign-out from another site is refused", async () => {
    const res = await host.portal(null, "POST", "/portal/auth/sign-out", { headers: { "sec-fetch-site": "cross-site" } });
    expect(res.status).toBe(403);
  });
});
