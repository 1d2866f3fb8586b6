import type { DemoPerson } from "./demo-people";

/** The local identity provider's pages: small, self-contained HTML (no fonts or scripts from elsewhere). */

const STYLE = `body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:40rem;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}.note{background:#fff4ce;border-left:4px solid #c19c00;padding:.6rem .8rem}
form.people button{display:block;width:100%;text-align:left;margin:.5rem 0;padding:.7rem .9rem;border:1px solid #c8c8c8;border-radius:6px;background:#fafafa;cursor:pointer;font:inherit}
form.people button:hover,form.people button:focus{border-color:#0f6cbd;background:#f0f6fd}
.email{color:#555}.description{display:block;font-size:.9rem;margin-top:.2rem}
.mfa{float:right;font-size:.8rem;padding:.1rem .4rem;border-radius:4px;background:#dff6dd}.mfa.none{background:#fde7e9}
.cancel{background:none;border:none;color:#0f6cbd;text-decoration:underline;cursor:pointer;font:inherit;padding:0}`;

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>`;
}

/** Who signs in: one button per person, posting `person=<oid>` to `action`. */
export function signInPage(options: { clientId: string; action: string; cancelAction: string; people: readonly DemoPerson[] }): string {
  const buttons = options.people
    .map(
      (p) =>
        `<button type="submit" name="person" value="${escapeHtml(p.oid)}">` +
        `<span class="mfa${p.mfa ? "" : " none"}">${p.mfa ? "MFA" : "no MFA"}</span>` +
        `<strong>${escapeHtml(p.name)}</strong> <span class="email">${escapeHtml(p.email)}</span>` +
        `<span class="description">${escapeHtml(p.description)}</span></button>`,
    )
    .join("\n");
  return page(
    "Sign in – local identity provider",
    `<h1>Local identity provider</h1>
<p class="note">A stand-in for Microsoft Entra ID on this machine, for the local host and tests. Nobody types a
password here: choose who signs in. It asks on every sign-in, so that you can switch people.</p>
<p>Signing in to <strong>${escapeHtml(options.clientId)}</strong> as:</p>
<form class="people" method="post" action="${escapeHtml(options.action)}">
${buttons}
</form>
<form method="post" action="${escapeHtml(options.cancelAction)}"><button class="cancel" type="submit">Cancel the sign-in</button></form>`,
  );
}

/**
 * The provider's own sign-out confirmation, answered at once: the form (with its anti-forgery token)
 * is sent by the page itself, ending the session at the provider too. Without scripts, one click.
 */
export function signOutPage(form: string): string {
  const withLogout = form.replace("</form>", `<input type="hidden" name="logout" value="yes"><noscript><button type="submit">Sign out</button></noscript></form>`);
  return page(
    "Signing out – local identity provider",
    `<h1>Signing out of the local identity provider…</h1>
${withLogout}
<script>document.forms[0].submit()</script>`,
  );
}

export function signedOutPage(): string {
  return page("Signed out – local identity provider", `<h1>Signed out</h1><p>You are signed out of the local identity provider.</p>`);
}

export function errorPage(details: Record<string, unknown>): string {
  const lines = Object.entries(details)
    .map(([key, value]) => `<p><strong>${escapeHtml(key)}</strong>: ${escapeHtml(String(value))}</p>`)
    .join("\n");
  return page("Error – local identity provider", `<h1>The local identity provider could not go on</h1>\n${lines}`);
}
