import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoPerson } from "../../shared/hosts/local/identity-provider/demo-people";
import { apiBaseOf, runSignIn } from "../../scripts/sign-in";
import { startTestHost, type TestHost } from "../support/test-host";

/** `npm run sign-in -- <person>` against a host whose sign-in goes through the local identity provider. */
let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ signIn: true });
});
afterAll(() => host?.close());

async function run(args: string[], env: NodeJS.ProcessEnv = { BASE: new URL(host.base).origin }) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runSignIn(args, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

/** What `eval` makes of the export line: the shell's own single-quote rules. */
function exported(line: string): Record<string, string> {
  expect(line).toMatch(/^export PORTAL_COOKIE='[^']+' CSRF='[^']+'$/);
  return Object.fromEntries([...line.matchAll(/(\w+)='([^']*)'/g)].map((m) => [m[1]!, m[2]!]));
}

describe("npm run sign-in", () => {
  it("signs a person in through the identity provider and prints their session cookie and CSRF token for a shell", async () => {
    const { code, out, err } = await run(["jonas"]);
    expect(code, err.join("\n")).toBe(0);
    expect(out).toHaveLength(1);
    const { PORTAL_COOKIE, CSRF } = exported(out[0]!);
    expect(PORTAL_COOKIE).toMatch(/^__Host-secops-session=\S+$/);
    expect(err.join("\n")).toContain("Jonas Becker");

    const me = await host.portal({ userId: "", tenantId: "", name: "", headers: { cookie: PORTAL_COOKIE!, "x-csrf-token": CSRF! } }, "GET", "/portal/me");
    expect(me.status).toBe(200);
    expect(((await me.json()) as { data: { userId: string } }).data.userId).toBe(demoPerson("jonas").oid);
    // The token is the session's: a change goes through with it.
    const signOut = await host.portal({ userId: "", tenantId: "", name: "", headers: { cookie: PORTAL_COOKIE!, "x-csrf-token": CSRF! } }, "POST", "/portal/auth/sign-out", {
      headers: { accept: "application/json" },
    });
    expect(signOut.status).toBe(200);
  });

  it("prints nothing for eval, and says why, when the service refuses the person", async () => {
    const sam = await run(["sam"]);
    expect([sam.code, sam.out]).toEqual([1, []]);
    expect(sam.err.join("\n")).toContain("MFA_REQUIRED");
    const oliver = await run(["oliver"]);
    expect([oliver.code, oliver.out]).toEqual([1, []]);
    expect(oliver.err.join("\n")).toContain("USER_NOT_REGISTERED");
  });

  it("answers its usage for no person or an unknown one, and finds the service from BASE or PORT", async () => {
    expect((await run([])).code).toBe(2);
    const unknown = await run(["nobody"]);
    expect(unknown.code).toBe(2);
    expect(unknown.err.join("\n")).toContain("jonas");
    expect(apiBaseOf({})).toBe("http://localhost:7071/api/v2");
    expect(apiBaseOf({ PORT: "8080" })).toBe("http://localhost:8080/api/v2");
    expect(apiBaseOf({ BASE: "http://127.0.0.1:9000/" })).toBe("http://127.0.0.1:9000/api/v2");
    expect(apiBaseOf({ BASE: "http://127.0.0.1:9000/api/v2", PORT: "1" })).toBe("http://127.0.0.1:9000/api/v2");
  });
});
