import { useEffect, useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import type { paths } from "../api/openapi";
import { ifMatch, withEtag } from "../etag";
import { Confirmation, useConfirming } from "../confirmation";
import { setFlash, takeFlash } from "../flash";
import { BASE, Link, navigate } from "../router";
import { hasRole, useMe, useSourceName } from "../session";
import { Badge, Checkbox, Field, Notice, PageHeader, ProblemBanner, SaveProblem, Select, TableScroll, Time, useAction, useResource } from "../ui";
import { PreAuthorizationsSection } from "./pre-authorizations";
import { SlaPolicySection } from "./sla-policy";
import { APPROVAL_MODE_OPTIONS, changedSourcesBody, readOrganizations, SOURCE_NAMES, sourcesDraft, SourcesEditor, WORKSPACE_ADMIN, type Workspace } from "./workspaces";

type Integrations = paths["/api/v2/portal/workspaces/{workspaceId}/integrations"]["get"]["responses"][200]["content"]["application/json"]["data"];
type IntegrationName = keyof Integrations;
type IntegrationsBody = NonNullable<paths["/api/v2/portal/workspaces/{workspaceId}/integrations"]["put"]["requestBody"]>["content"]["application/json"];
type Policy = paths["/api/v2/portal/workspaces/{workspaceId}/approval-policy"]["get"]["responses"][200]["content"]["application/json"]["data"];
type PolicyBody = NonNullable<paths["/api/v2/portal/workspaces/{workspaceId}/approval-policy"]["put"]["requestBody"]>["content"]["application/json"];

const INTEGRATIONS: readonly { name: IntegrationName; label: string; hint: string }[] = [
  { name: "ticketing", label: "Ticketing", hint: "Tickets in the ITSM for the workspace's incidents." },
  { name: "directoryLogs", label: "Directory logs", hint: "Sign-in and audit logs of the directory." },
  { name: "logAnalytics", label: "Log Analytics", hint: "Queries of the workspace's Log Analytics." },
  { name: "playbookAutomation", label: "Playbook automation", hint: "Off: the automation steps of runs fail; the incident's own steps still run." },
];

const MODES: readonly { value: Policy["mode"]; label: string }[] = APPROVAL_MODE_OPTIONS;

/** One workspace: its settings and sources, integrations and approval policy, each changed on its own; and offboarding. */
export function WorkspacePage({ params }: { params: Record<string, string> }) {
  const me = useMe();
  const workspaceId = params.workspaceId!;
  const path = { workspaceId };
  const [notice, setNotice] = useState<string | undefined>(takeFlash);
  const workspace = useResource(() => withEtag(api.GET("/api/v2/portal/workspaces/{workspaceId}", { params: { path } })).then((read) => ({ ...read, value: read.value.data })), [workspaceId]);
  // Read again at the person's request (after a refused change): the settings form starts over from what the server holds.
  const [fresh, setFresh] = useState(0);
  const organizations = useResource(readOrganizations, []);
  const canChange = hasRole(me, WORKSPACE_ADMIN);
  const w = workspace.value?.value;
  const organization = organizations.value?.find((o) => o.id === w?.accountId);

  return (
    <section>
      <p class="breadcrumb">
        <Link href={`${BASE}/workspaces`}>Organizations and workspaces</Link>
      </p>
      <PageHeader title={w ? `Workspace ${w.name}` : "Workspace"} />
      {notice && <Notice kind="success">{notice}</Notice>}
      <ProblemBanner problem={workspace.problem} title="The workspace could not be read" />
      {workspace.loading && !w && <p class="muted">Loading the workspace…</p>}
      {w && (
        <>
          <dl class="facts">
            <div>
              <dt>Organization</dt>
              <dd>{organization?.name ?? w.accountId}</dd>
            </div>
            <div>
              <dt>Directory tenant</dt>
              <dd>
                <code>{w.tenantId}</code>
              </dd>
            </div>
            <div>
              <dt>Workspace id</dt>
              <dd>
                <code>{w.id}</code>
              </dd>
            </div>
            <div>
              <dt>Your role</dt>
              <dd>{w.workspaceRole ?? `Organization-wide (${me.organizationalRole})`}</dd>
            </div>
            <div>
              <dt>Onboarded</dt>
              <dd>
                <Time at={w.createdAt} />
              </dd>
            </div>
            <div>
              <dt>Last changed</dt>
              <dd>
                <Time at={w.lastModifiedAt} />
              </dd>
            </div>
          </dl>
          <SourcesTable workspace={w} />
          {canChange && (
            <SettingsForm
              workspace={w}
              etag={workspace.value?.etag}
              key={`${w.id}:${w.lastModifiedAt}:${fresh}`}
              onReload={async () => {
                setNotice(undefined);
                await workspace.reload();
                setFresh((n) => n + 1);
              }}
              onSaved={(saved, etag) => {
                workspace.set({ value: saved, etag });
                setNotice(`The settings of ${saved.name} are saved.`);
              }}
            />
          )}
          <IntegrationsSection workspaceId={w.id} canChange={canChange} />
          {/* The policy is kept in the workspace's record: saving it gives the record a new version, which the settings form sends next. */}
          <ApprovalPolicySection workspaceId={w.id} canChange={canChange} onSaved={() => void workspace.reload()} />
          <SlaPolicySection workspaceId={w.id} canChange={canChange} onSaved={() => void workspace.reload()} />
          {/* The workspace's own organization waives its own policy: its Owner of the workspace, or its Admin. */}
          <PreAuthorizationsSection
            workspaceId={w.id}
            canChange={me.accountId === w.accountId && (me.organizationalRole === "Admin" || me.workspaceRoles.some((r) => r.workspaceId === w.id && r.role === "Owner"))}
          />
          {canChange && <Offboarding workspace={w} />}
        </>
      )}
    </section>
  );
}

function SourcesTable({ workspace: w }: { workspace: Workspace }) {
  const sourceName = useSourceName();
  return (
    <>
      <h2 id="sources-heading" class="section-heading">
        Sources
      </h2>
      <TableScroll label={`Sources of ${w.name}`}>
        <table aria-labelledby="sources-heading" class="sources-table">
          <thead>
            <tr>
              <th scope="col">Source</th>
              <th scope="col">Switch</th>
              <th scope="col">In effect</th>
              <th scope="col">Vendor's workspace id</th>
              <th scope="col">Served by</th>
            </tr>
          </thead>
          <tbody>
            {SOURCE_NAMES.map((s) => {
              const v = w.sources[s];
              return (
                <tr key={s}>
                  <th scope="row">{sourceName(s)}</th>
                  <td>{v.enabled ? "On" : "Off"}</td>
                  <td>{v.inEffect ? <Badge tone="ok">In effect</Badge> : <Badge tone={v.enabled ? "warn" : "neutral"}>Not in effect</Badge>}</td>
                  <td>{v.vendorWorkspaceId ? <code>{v.vendorWorkspaceId}</code> : <span class="muted">The workspace's id</span>}</td>
                  <td>
                    {v.bridge ? (
                      <>
                        Own bridge <code>{v.bridge.url}</code>
                        <span class="muted">{v.bridge.hasAuthorization ? " · Authorization kept" : " · no Authorization"}</span>
                      </>
                    ) : (
                      <span class="muted">The deployment's system</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableScroll>
    </>
  );
}

function SettingsForm(props: { workspace: Workspace; etag: string | undefined; onReload(): Promise<void>; onSaved(w: Workspace, etag: string | undefined): void }) {
  const w = props.workspace;
  const [name, setName] = useState(w.name);
  const [sources, setSources] = useState(sourcesDraft(w));
  const save = useAction(async () => {
    const body = { ...(name !== w.name || !changedSourcesBody(w, sources) ? { name } : {}), sources: changedSourcesBody(w, sources) };
    const saved = await withEtag(api.PATCH("/api/v2/portal/workspaces/{workspaceId}", { params: { path: { workspaceId: w.id }, header: csrf() }, body, headers: ifMatch(props.etag) }));
    props.onSaved(saved.value.data, saved.etag);
  });
  return (
    <section class="card form-card" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Change settings</h2>
      <p class="muted">The name and the per-source settings. A change applies at once.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
      >
        <SaveProblem problem={save.problem} title="The settings were not saved" onReload={props.onReload} />
        <Field label="Workspace name" name="name" value={name} onValue={setName} problem={save.problem} required autoComplete="off" />
        <SourcesEditor draft={sources} onDraft={setSources} problem={save.problem} />
        <div class="buttons">
          <button type="submit" class="button" disabled={save.busy}>
            {save.busy ? "Saving…" : "Save settings"}
          </button>
        </div>
      </form>
    </section>
  );
}

function IntegrationsSection(props: { workspaceId: string; canChange: boolean }) {
  const path = { workspaceId: props.workspaceId };
  const integrations = useResource(async () => (await call(api.GET("/api/v2/portal/workspaces/{workspaceId}/integrations", { params: { path } }))).data, [props.workspaceId]);
  const [draft, setDraft] = useState<Record<IntegrationName, boolean> | undefined>(undefined);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    const v = integrations.value;
    if (v) setDraft(Object.fromEntries(INTEGRATIONS.map((i) => [i.name, v[i.name].switchedOn])) as Record<IntegrationName, boolean>);
  }, [integrations.value]);
  const save = useAction(async () => {
    setSaved(false);
    const body = draft as IntegrationsBody;
    integrations.set((await call(api.PUT("/api/v2/portal/workspaces/{workspaceId}/integrations", { params: { path, header: csrf() }, body }))).data);
    setSaved(true);
  });
  const v = integrations.value;
  return (
    <section class="card form-card" aria-labelledby="integrations-heading">
      <h2 id="integrations-heading">Integrations</h2>
      <p class="muted">An integration is in effect when its switch is on and the deployment has the system for the workspace.</p>
      <ProblemBanner problem={integrations.problem} title="The integrations could not be read" />
      {v && draft && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save.run();
          }}
        >
          {saved && <Notice kind="success">The integrations are saved.</Notice>}
          <ProblemBanner problem={save.problem} title="The integrations were not saved" />
          <ul class="plain integration-list">
            {INTEGRATIONS.map((i) => (
              <li key={i.name}>
                <div class="integration">
                  {props.canChange ? (
                    <Checkbox label={i.label} name={i.name} checked={draft[i.name]} onValue={(on) => setDraft({ ...draft, [i.name]: on })} />
                  ) : (
                    <strong>
                      {i.label}: {v[i.name].switchedOn ? "on" : "off"}
                    </strong>
                  )}
                  {v[i.name].inEffect ? <Badge tone="ok">In effect</Badge> : <Badge tone={v[i.name].switchedOn ? "warn" : "neutral"}>Not in effect</Badge>}
                </div>
                {v[i.name].switchedOn && v[i.name].notInEffect && (
                  <p class="hint" data-not-in-effect={i.name}>
                    {v[i.name].notInEffect}
                  </p>
                )}
                <p class="hint">{i.hint}</p>
              </li>
            ))}
          </ul>
          {props.canChange && (
            <div class="buttons">
              <button type="submit" class="button" disabled={save.busy}>
                {save.busy ? "Saving…" : "Save integrations"}
              </button>
            </div>
          )}
        </form>
      )}
    </section>
  );
}

function ApprovalPolicySection(props: { workspaceId: string; canChange: boolean; onSaved(): void }) {
  const path = { workspaceId: props.workspaceId };
  const policy = useResource(async () => (await call(api.GET("/api/v2/portal/workspaces/{workspaceId}/approval-policy", { params: { path } }))).data, [props.workspaceId]);
  const [mode, setMode] = useState<Policy["mode"]>("NoApproval");
  const [hours, setHours] = useState("");
  const [second, setSecond] = useState(false);
  const [twoSided, setTwoSided] = useState(false);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    const p = policy.value;
    if (!p) return;
    setMode(p.mode);
    setHours(String(p.approvalTimeoutHours));
    setSecond(p.requireSecondApproverForAdminPlaybooks);
    setTwoSided(p.twoSidedApproval);
  }, [policy.value]);
  const save = useAction(async () => {
    setSaved(false);
    // The hours go as typed (a number when it reads as one): the server says what it accepts.
    const timeout = hours.trim() === "" ? undefined : Number.isFinite(Number(hours)) ? Number(hours) : hours;
    const body = { mode, approvalTimeoutHours: timeout, requireSecondApproverForAdminPlaybooks: second, twoSidedApproval: twoSided } as PolicyBody;
    policy.set((await call(api.PUT("/api/v2/portal/workspaces/{workspaceId}/approval-policy", { params: { path, header: csrf() }, body }))).data);
    setSaved(true);
    props.onSaved();
  });
  const p = policy.value;
  return (
    <section class="card form-card" aria-labelledby="policy-heading">
      <h2 id="policy-heading">Approval policy</h2>
      <p class="muted">Which gamebook runs wait for a person's approval before they run. A change applies to new requests: runs already waiting keep the terms they were made under.</p>
      <ProblemBanner problem={policy.problem} title="The approval policy could not be read" />
      {p && !props.canChange && (
        <dl class="facts">
          <div>
            <dt>Runs that need approval</dt>
            <dd>{MODES.find((m) => m.value === p.mode)?.label ?? p.mode}</dd>
          </div>
          <div>
            <dt>Waits for</dt>
            <dd>{p.approvalTimeoutHours} hours, then {p.onExpiry === "Deny" ? "denied" : p.onExpiry}</dd>
          </div>
          <div>
            <dt>Admin playbooks</dt>
            <dd>{p.requireSecondApproverForAdminPlaybooks ? "Need a second, different approver" : "One approver is enough"}</dd>
          </div>
          <div>
            <dt>Sides</dt>
            <dd>{p.twoSidedApproval ? "One approver of the customer and one of the managing provider" : "Any Owner of the workspace"}</dd>
          </div>
        </dl>
      )}
      {p && props.canChange && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save.run();
          }}
        >
          {saved && <Notice kind="success">The approval policy is saved.</Notice>}
          <ProblemBanner problem={save.problem} title="The approval policy was not saved" />
          <Select label="Runs that need approval" name="mode" value={mode} onValue={(m) => setMode(m as Policy["mode"])} options={MODES} problem={save.problem} />
          <Field
            label="Hours a request waits before it is denied"
            name="approvalTimeoutHours"
            type="number"
            value={hours}
            onValue={setHours}
            problem={save.problem}
            hint="Whole hours. Empty: the default."
          />
          <Checkbox label="A run with an admin playbook needs a second, different approver" name="requireSecondApproverForAdminPlaybooks" checked={second} onValue={setSecond} />
          <Checkbox label="Two-sided: one approver of the customer and one of the managing provider" name="twoSidedApproval" checked={twoSided} onValue={setTwoSided} />
          <div class="buttons">
            <button type="submit" class="button" disabled={save.busy}>
              {save.busy ? "Saving…" : "Save approval policy"}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/** Offboarding, behind a confirmation that names the workspace and says what it does. */
function Offboarding({ workspace: w }: { workspace: Workspace }) {
  const offboard = useAction(async () => {
    const result = (await call(api.DELETE("/api/v2/portal/workspaces/{workspaceId}", { params: { path: { workspaceId: w.id }, header: csrf() } }))).data;
    setFlash(
      `Workspace ${w.name} is offboarded: ${result.runsDenied} run(s) waiting for approval denied, ${result.runsCancelled} dispatched or running cancelled. Its audit trail stays exportable by its organization's Admins.`,
    );
    navigate(`${BASE}/workspaces`);
  });
  const confirming = useConfirming(offboard);
  return (
    <section class="card danger-zone" aria-labelledby="offboard-heading">
      <h2 id="offboard-heading">Offboard this workspace</h2>
      <p class="muted">The workspace leaves every listing and route. Its audit trail stays.</p>
      {confirming.key ? (
        <Confirmation
          layout="panel"
          question={`Offboard ${w.name}?`}
          confirmLabel={`Offboard ${w.name}`}
          busyLabel="Offboarding…"
          busy={offboard.busy}
          problem={offboard.problem}
          problemTitle="The workspace was not offboarded"
          onConfirm={() => void offboard.run()}
          onCancel={confirming.cancel}
        >
          <ul>
            <li>Runs of {w.name} waiting for approval are denied, and runs dispatched or running are cancelled (a playbook already in the automation backend is not called back).</li>
            <li>From then on {w.name} answers “not found” everywhere: it leaves the workspace listings, the cross-workspace listings and the reconciler.</li>
            <li>Its incidents stay where they were in their sources, untouched.</li>
            <li>Its audit trail stays for its retention, exportable by its organization's Admins.</li>
          </ul>
          <p>
            <strong>This cannot be undone from the portal.</strong>
          </p>
        </Confirmation>
      ) : (
        <div class="buttons">
          <button type="button" class="button button-danger" {...confirming.opener("offboard")}>
            Offboard {w.name}…
          </button>
        </div>
      )}
    </section>
  );
}
