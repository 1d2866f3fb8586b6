import type { Problem } from "../api/client";
import { signInUrl } from "../session";
import { PageHeader } from "../ui";

/** Not signed in (or the session ended): one way forward. */
export function SignedOutPage() {
  return (
    <main id="main" class="center-page">
      <div class="card narrow">
        <PageHeader title="Sign in to the SecOps portal" />
        <p>Sign in with your organization's account to approve containment, onboard customers and watch webhooks.</p>
        <a class="button" href={signInUrl()}>
          Sign in
        </a>
      </div>
    </main>
  );
}

/**
 * Signed in, but refused: each reason has its own page saying what it means and what to do,
 * rather than an error code.
 */
export function RefusedPage({ problem }: { problem: Problem }) {
  const again = (
    <a class="button" href={signInUrl()}>
      Sign in again
    </a>
  );
  if (problem.code === "MFA_REQUIRED") {
    return (
      <main id="main" class="center-page">
        <div class="card narrow" data-refusal="MFA_REQUIRED">
          <PageHeader title="Multi-factor authentication required" />
          <p>
            You signed in with a password only. The portal approves containment and changes customers' settings, so it needs a sign-in that used a second factor (an authenticator app, a security
            key or a phone).
          </p>
          <p>Sign in again and complete the second step. If you are never asked for one, ask your administrator to set up multi-factor authentication for your account.</p>
          {again}
          <p class="muted">
            Code: <code>{problem.code}</code>
          </p>
        </div>
      </main>
    );
  }
  if (problem.code === "USER_NOT_REGISTERED") {
    return (
      <main id="main" class="center-page">
        <div class="card narrow" data-refusal="USER_NOT_REGISTERED">
          <PageHeader title="You are not registered for this portal" />
          <p>Your sign-in worked, but your account is not a registered, active user of this service.</p>
          <p>Ask a user administrator of your organization to add you (Portal → People), then sign in again.</p>
          {again}
          <p class="muted">
            Code: <code>{problem.code}</code>
          </p>
        </div>
      </main>
    );
  }
  return (
    <main id="main" class="center-page">
      <div class="card narrow" data-refusal={problem.code}>
        <PageHeader title="The portal could not be opened" />
        <p>{problem.detail ?? "The service refused the session."}</p>
        {again}
        <p class="muted">
          Code: <code>{problem.code}</code>
          {problem.status ? ` · HTTP ${problem.status}` : ""}
        </p>
      </div>
    </main>
  );
}
