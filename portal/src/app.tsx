import { useEffect, useState } from "preact/hooks";
import { BASE, Link, match, navigate, useLocation } from "./router";
import { SessionContext, signOut, useSession, type Me } from "./session";
import { SignedOutPage, RefusedPage } from "./sign-in";
import { SECTIONS } from "./sections";
import { NotFoundPage } from "./not-found";
import { asProblem, ProblemBanner } from "./ui";
import type { Problem } from "./api/client";

export function App() {
  const session = useSession();
  if (session.kind === "loading") return <p class="loading">Loading the portal…</p>;
  if (session.kind === "signedOut") return <SignedOutPage />;
  if (session.kind === "refused") return <RefusedPage problem={session.problem} />;
  return (
    <SessionContext.Provider value={session.me}>
      <Shell me={session.me} />
    </SessionContext.Provider>
  );
}

function Shell({ me }: { me: Me }) {
  const url = useLocation();
  const path = url.pathname.slice(BASE.length) || "/";
  const [menuOpen, setMenuOpen] = useState(false);
  const [signOutProblem, setSignOutProblem] = useState<Problem | undefined>(undefined);
  useEffect(() => {
    if (path === "/") navigate(`${BASE}/approvals`, true);
    setMenuOpen(false);
  }, [path]);
  let content = <NotFoundPage />;
  for (const view of SECTIONS.flatMap((s) => s.views)) {
    const params = match(view.pattern, path);
    if (params) {
      const Page = view.page;
      content = <Page params={params} key={view.pattern} />;
      break;
    }
  }
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <span class="brand">SecOps portal</span>
        <button type="button" class="button button-secondary menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <div class="who">
          <span>
            {me.displayName} <span class="muted">· {me.organizationalRole}</span>
          </span>
          <button
            type="button"
            class="button button-secondary"
            onClick={() => signOut().catch((error: unknown) => setSignOutProblem(asProblem(error)))}
          >
            Sign out
          </button>
        </div>
      </header>
      <nav id="nav" class={`nav${menuOpen ? " nav-open" : ""}`} aria-label="Portal">
        <ul>
          {SECTIONS.filter((s) => s.label).map((s) => (
            <li>
              <Link href={s.href} aria-current={url.pathname.startsWith(s.href) ? "page" : undefined}>
                {s.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="main">
        <ProblemBanner problem={signOutProblem} title="Sign-out failed" />
        {content}
      </main>
    </div>
  );
}
