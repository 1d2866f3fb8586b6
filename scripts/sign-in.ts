/**
 * `npm run sign-in -- <person>`: signs a person in on the running local host, through its local
 * identity provider, as a browser would, and prints the session as shell lines:
 *
 *   eval "$(npm run -s sign-in -- jonas)"
 *   curl -b "$PORTAL_COOKIE" -H "X-CSRF-Token: $CSRF" http://localhost:7071/api/v2/portal/me
 *
 * `<person>` is one of the local identity provider's people (amira, jonas, li, sam, oliver; the start
 * banner lists them) or a directory object id. The service is at `BASE` (its origin, or its
 * `…/api/v2`), else at http://localhost:`PORT` (as `npm start` reads it; default 7071). Who signed in
 * goes to stderr, so that `eval` sees only the export line.
 */
import { DEMO_PEOPLE, demoPerson } from "../shared/hosts/local/identity-provider/demo-people";
import { signInToPortal } from "../shared/hosts/local/identity-provider/headless-sign-in";
import { SESSION_COOKIE } from "../shared/platform/auth/portal-session";
import { exitWhenWritten } from "./exit-when-written";

const USAGE = `usage: eval "$(npm run -s sign-in -- <person>)"   people: ${DEMO_PEOPLE.map((p) => p.key).join(", ")} (or a directory object id)
then:  curl -b "$PORTAL_COOKIE" -H "X-CSRF-Token: $CSRF" http://localhost:7071/api/v2/portal/...
the service: BASE (e.g. http://localhost:7071), else http://localhost:$PORT (default 7071)`;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The service's `…/api/v2` from the environment. */
export function apiBaseOf(env: NodeJS.ProcessEnv): string {
  const base = (env.BASE ?? `http://localhost:${env.PORT ?? "7071"}`).replace(/\/+$/, "");
  return base.endsWith("/api/v2") ? base : `${base}/api/v2`;
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export interface SignInIo {
  out: (line: string) => void;
  err: (line: string) => void;
  fetch?: typeof fetch;
}

/** Runs the command; returns the process exit code (0 signed in, 1 refused or unreachable, 2 usage). */
export async function runSignIn(argv: string[], env: NodeJS.ProcessEnv, io: SignInIo): Promise<number> {
  const [who, ...rest] = argv;
  if (!who || rest.length > 0 || who === "--help" || who === "-h") {
    io.err(USAGE);
    return 2;
  }
  let personId: string;
  try {
    personId = GUID.test(who) ? who.toLowerCase() : demoPerson(who.toLowerCase()).oid;
  } catch (error) {
    io.err(error instanceof Error ? error.message : String(error));
    return 2;
  }
  const apiBase = apiBaseOf(env);
  try {
    const session = await signInToPortal(apiBase, personId, io.fetch);
    const { displayName, email, organizationalRole, sessionExpiresAt } = session.me as Record<string, string>;
    io.out(`export PORTAL_COOKIE=${shellQuote(session.cookie)} CSRF=${shellQuote(session.csrfToken)}`);
    io.err(`# signed in as ${displayName} <${email}>, ${organizationalRole}, until ${sessionExpiresAt}: $PORTAL_COOKIE holds the ${SESSION_COOKIE} cookie, $CSRF its X-CSRF-Token`);
    return 0;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    io.err(`sign-in at ${apiBase} failed: ${reason}`);
    if (/fetch failed|ECONNREFUSED/.test(reason + String((error as { cause?: unknown })?.cause ?? ""))) io.err("Is the local host running (npm start)? Set PORT or BASE if it is not on port 7071.");
    return 1;
  }
}

if (require.main === module) {
  runSignIn(process.argv.slice(2), process.env, { out: (line) => process.stdout.write(line + "\n"), err: (line) => process.stderr.write(line + "\n") }).then(
    (code) => exitWhenWritten(code),
    (error: unknown) => {
      process.stderr.write(`sign-in failed: ${error instanceof Error ? error.message : String(error)}\n`);
      exitWhenWritten(1);
    },
  );
}
