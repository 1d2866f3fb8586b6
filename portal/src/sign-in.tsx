import type { ComponentChildren } from "preact";
import type { Problem } from "./api/client";
import { signInUrl } from "./session";
import { PageHeader } from "./ui";

/** A page of its own, outside the app's shell: one card in the middle, for someone not (or not yet) let in. */
function CenteredCard(props: { title: string; refusal?: string; children: ComponentChildren }) {
  return (
    <main id="main" class="center-page">
      <div class="card narrow" data-refusal={props.refusal}>
        <PageHeader title={props.title} />
        {props.children}
      </div>
    </main>
  );
}

/** Not signed in (or the session ended): one way forward. */
export function SignedOutPage() {
  return (
    <CenteredCard title="Sign in to the SecOps portal">
      <p>Sign in with your organization's account to approve containment, onboard customers and watch webhooks.</p>
      <a class="button" href={signInUrl()}>
        Sign in
      </a>
    </CenteredCard>
  );
}

/** A refusal's card: what it means and what to do, then signing in again, and the code for whoever helps. */
function RefusalCard(props: {
  problem: Problem;
  title: string;
  /** The HTTP status beside the code: for a refusal this page has no words of its own for. */
  withStatus?: boolean;
  children: ComponentChildren;
}) {
  const { problem } = props;
  return (
    <CenteredCard title={props.title} refusal={problem.code}>
      {props.children}
      <a class="button" href={signInUrl()}>
        Sign in again
      </a>
      <p class="muted">
        Code: <code>{problem.code}</code>
        {props.withStatus && problem.status ? ` · HTTP ${problem.status}` : ""}
      </p>
    </CenteredCard>
  );
}

/**
 * Signed in, but refused: each reason has its own page saying what it means and what to do,
 * rather than an error code.
 */
export function RefusedPage({ problem }: { problem: Problem }) {
  if (problem.code === "MFA_REQUIRED") {
    return (
      <RefusalCard problem={problem} title="Multi-factor authentication required">
        <p>
          You signed in with a password only. The portal approves containment and changes customers' settings, so it needs a sign-in that used a second factor (an authenticator app, a security key
          or a phone).
        </p>
        <p>Sign in again and complete the second step. If you are never asked for one, ask your administrator to set up multi-factor authentication for your account.</p>
      </RefusalCard>
    );
  }
  if (problem.code === "USER_NOT_REGISTERED") {
    return (
      <RefusalCard problem={problem} title="You are not registered for this portal">
        <p>Your sign-in worked, but your account is not a registered, active user of this service.</p>
        <p>Ask a user administrator of your organization to add you (Portal → People), then sign in again.</p>
        {/* The service's own words: for someone not registered, the tenant and object id to give the administrator. */}
        {problem.detail && <p class="refusal-detail">{problem.detail}</p>}
      </RefusalCard>
    );
  }
  return (
    <RefusalCard problem={problem} title="The portal could not be opened" withStatus>
      <p>{problem.detail ?? "The service refused the session."}</p>
    </RefusalCard>
  );
}
