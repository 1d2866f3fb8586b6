import { useState } from "preact/hooks";
import { api } from "../api/client";
import { withEtag } from "../etag";
import { setFlash } from "../flash";
import { BASE, Link, navigate, useLocation } from "../router";
import { hasRole, useMe } from "../session";
import { Badge, Notice, PageHeader, ProblemBanner, Time, useResource } from "../ui";
import { USER_ADMIN, useNames } from "./person-model";
import { PersonForm, SignOutEverywhere } from "./person-form";

/** One person (`/people/:userId`) or a new one (`/people/new`): their registration, and signing them out everywhere. */
export function PersonPage({ params }: { params: Record<string, string> }) {
  const me = useMe();
  const url = useLocation();
  const isNew = params.userId === undefined;
  const userId = params.userId ?? "";
  const accountId = url.searchParams.get("accountId") ?? undefined;
  const person = useResource(
    async () => (isNew ? undefined : withEtag(api.GET("/api/v2/portal/people/{userId}", { params: { path: { userId }, query: { accountId } } })).then((read) => ({ ...read, value: read.value.data }))),
    [userId, accountId],
  );
  // Read again at the person's request (after a refused change): the form starts over from what the server holds.
  const [fresh, setFresh] = useState(0);
  const names = useNames();
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const canChange = hasRole(me, USER_ADMIN);
  const p = person.value?.value;
  const title = isNew ? "Add a person" : p ? p.displayName || p.email : "Person";

  return (
    <section>
      <p class="breadcrumb">
        <Link href={`${BASE}/people`}>People</Link>
      </p>
      <PageHeader title={title} />
      {notice && <Notice kind="success">{notice}</Notice>}
      <ProblemBanner problem={person.problem} title="The person could not be read" />
      {!isNew && person.loading && !p && <p class="muted">Loading…</p>}
      {p && (
        <dl class="facts">
          <div>
            <dt>E-mail</dt>
            <dd>{p.email}</dd>
          </div>
          <div>
            <dt>Organization</dt>
            <dd>{names.organization(p.accountId)}</dd>
          </div>
          <div>
            <dt>Status</dt>
            <dd>{p.isActive ? <Badge tone="ok">Active</Badge> : <Badge tone="bad">Inactive</Badge>}</dd>
          </div>
          <div>
            <dt>Registered</dt>
            <dd>
              <Time at={p.createdAt} />
            </dd>
          </div>
          <div>
            <dt>Last changed</dt>
            <dd>
              <Time at={p.lastModifiedAt} />
            </dd>
          </div>
          <div>
            <dt>Sessions valid from</dt>
            <dd>{p.sessionsValidFrom ? <Time at={p.sessionsValidFrom} /> : <span class="muted">Every session since sign-in</span>}</dd>
          </div>
        </dl>
      )}
      {canChange && (isNew || p) && (
        <PersonForm
          key={p ? `${p.userId}:${p.lastModifiedAt}:${fresh}` : "new"}
          person={p}
          etag={person.value?.etag}
          onReload={async () => {
            setNotice(undefined);
            await person.reload();
            setFresh((n) => n + 1);
          }}
          organizations={names.organizations}
          workspaces={names.workspaces}
          defaultAccountId={me.accountId}
          defaultTenantId={me.tenantId}
          onSaved={(saved, etag, created) => {
            if (created) {
              setFlash(`${saved.displayName} is registered as ${saved.organizationalRole}.`);
              navigate(`${BASE}/people`);
            } else {
              person.set({ value: saved, etag });
              setNotice(`The registration of ${saved.displayName} is saved.`);
            }
          }}
        />
      )}
      {canChange && p && <SignOutEverywhere person={p} onDone={(message) => { setNotice(message); void person.reload(); }} />}
    </section>
  );
}

