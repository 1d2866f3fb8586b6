import { useEffect, useState } from "preact/hooks";
import { api, call, csrf, fieldError, type Problem } from "../api/client";
import type { paths } from "../api/openapi";
import { setFlash, takeFlash } from "../flash";
import { BASE, Link, navigate } from "../router";
import { hasRole, useMe, useSourceName } from "../session";
import { Badge, Checkbox, Empty, Field, Notice, PageHeader, ProblemBanner, RefreshButton, Select, TableScroll, Time, useAction, useResource } from "../ui";
import { checkInstance, instanceRef, SecurityInstancePicker, type PickedInstance } from "./security-instance-picker";

type OrganizationList = paths["/api/v2/portal/organizations"]["get"]["responses"][200]["content"]["application/json"];
export type Organization = OrganizationList["data"][number];
type WorkspaceList = paths["/api/v2/portal/workspaces"]["get"]["responses"][200]["content"]["application/json"];
export type Workspace = WorkspaceList["data"][number];
export type SourceName = keyof Workspace["sources"];
type OnboardBody = NonNullable<paths["/api/v2/portal/workspaces"]["post"]["requestBody"]>["content"]["application/json"];
type SourcesBody = NonNullable<OnboardBody["sources"]>;

/** The sources in the contract's order, as the API names them. */
export const SOURCE_NAMES: readonly SourceName[] = ["SourceA", "SourceB", "SourceC", "SourceD", "SourceE", "SourceF", "SourceG"];

/** The roles that change organizations and workspaces (the routes' `roles`; Admin holds them all). */
export const WORKSPACE_ADMIN = ["WorkspaceAdmin"] as const;

export async function readOrganizations(): Promise<Organization[]> {
  return (await call(api.GET("/api/v2/portal/organizations"))).data;
}

export async function readWorkspaces(): Promise<Workspace[]> {
  return (await call(api.GET("/api/v2/portal/workspaces"))).data;
}

export function sourcesOn(w: Workspace): number {
  return SOURCE_NAMES.filter((s) => w.sources[s].enabled).length;
}

/** One source's settings as a form edits them. */
export interface SourceDraft {
  enabled: boolean;
  vendorWorkspaceId: string;
  bridgeUrl: string;
  authorization: string;
  removeAuthorization: boolean;
  hasAuthorization: boolean;
}

export type SourcesDraft = Record<SourceName, SourceDraft>;

export function sourcesDraft(w?: Workspace): SourcesDraft {
  return Object.fromEntries(
    SOURCE_NAMES.map((s) => {
      const v = w?.sources[s];
      return [
        s,
        {
          enabled: v?.enabled ?? true,
          vendorWorkspaceId: v?.vendorWorkspaceId ?? "",
          bridgeUrl: v?.bridge?.url ?? "",
          authorization: "",
          removeAuthorization: false,
          hasAuthorization: v?.bridge?.hasAuthorization ?? false,
        },
      ];
    }),
  ) as SourcesDraft;
}

/** The sources of a new workspace that differ from the defaults (on, the deployment's system, its own id). */
function onboardingSources(draft: SourcesDraft): SourcesBody | undefined {
  const body: Record<string, unknown> = {};
  for (const s of SOURCE_NAMES) {
    const d = draft[s];
    if (d.enabled && !d.vendorWorkspaceId && !d.bridgeUrl) continue;
    body[s] = {
      enabled: d.enabled,
      ...(d.vendorWorkspaceId ? { vendorWorkspaceId: d.vendorWorkspaceId } : {}),
      ...(d.bridgeUrl ? { bridge: { url: d.bridgeUrl, ...(d.authorization ? { authorization: d.authorization } : {}) } } : {}),
    };
  }
  return Object.keys(body).length > 0 ? (body as SourcesBody) : undefined;
}

/**
 * The sources of a workspace whose settings the form changed, each with every field: an emptied
 * identifier or bridge goes back to the default (null); a bridge's kept Authorization value stays
 * unless a new one is typed or its removal asked for.
 */
export function changedSourcesBody(before: Workspace, draft: SourcesDraft): SourcesBody | undefined {
  const body: Record<string, unknown> = {};
  for (const s of SOURCE_NAMES) {
    const d = draft[s];
    const was = before.sources[s];
    const changed =
      d.enabled !== was.enabled || d.vendorWorkspaceId !== (was.vendorWorkspaceId ?? "") || d.bridgeUrl !== (was.bridge?.url ?? "") || d.authorization !== "" || d.removeAuthorization;
    if (!changed) continue;
    body[s] = {
      enabled: d.enabled,
      vendorWorkspaceId: d.vendorWorkspaceId ? d.vendorWorkspaceId : null,
      bridge: d.bridgeUrl ? { url: d.bridgeUrl, ...(d.removeAuthorization ? { authorization: null } : d.authorization ? { authorization: d.authorization } : {}) } : null,
    };
  }
  return Object.keys(body).length > 0 ? (body as SourcesBody) : undefined;
}

/** Whether the problem names a field under `prefix` (e.g. `sources.SourceA`). */
function problemUnder(problem: Problem | undefined, prefix: string): boolean {
  if (!problem) return false;
  const keys = [...Object.keys(problem.errors ?? {}), problem.target ?? ""];
  return keys.some((k) => k === prefix || k.startsWith(`${prefix}.`));
}

function sourceSummary(d: SourceDraft): string {
  if (!d.enabled) return "Off";
  return [d.bridgeUrl ? "own bridge" : "deployment's system", d.vendorWorkspaceId ? `vendor id ${d.vendorWorkspaceId}` : ""].filter(Boolean).join(", ");
}

/**
 * Each source's settings in a disclosure of its own, opened when the server's problem is in it: on or
 * off, the vendor's identifier of the workspace, its own bridge and the bridge's Authorization value.
 */
export function SourcesEditor(props: { draft: SourcesDraft; onDraft(d: SourcesDraft): void; problem: Problem | undefined }) {
  const sourceName = useSourceName();
  const { draft, problem } = props;
  const set = (s: SourceName, change: Partial<SourceDraft>) => props.onDraft({ ...draft, [s]: { ...draft[s], ...change } });
  return (
    <fieldset class="sources">
      <legend>Sources</legend>
      <p class="hint">Every source is on and served by the deployment's system unless you say otherwise here.</p>
      {fieldError(problem, "sources") && <p class="field-error">{fieldError(problem, "sources")}</p>}
      {SOURCE_NAMES.map((s) => {
        const d = draft[s];
        const path = `sources.${s}`;
        const invalid = problemUnder(problem, path);
        return (
          <details class={`source${invalid ? " source-invalid" : ""}`} open={invalid || undefined} key={s}>
            <summary>
              <strong>{sourceName(s)}</strong> <span class="muted">· {sourceSummary(d)}</span>
              {invalid && <span class="field-error"> · needs attention</span>}
            </summary>
            <Checkbox label={`${sourceName(s)} on`} name={`${path}.enabled`} checked={d.enabled} onValue={(enabled) => set(s, { enabled })} />
            <Field
              label={`${sourceName(s)}: vendor's workspace identifier (optional)`}
              name={`${path}.vendorWorkspaceId`}
              value={d.vendorWorkspaceId}
              onValue={(vendorWorkspaceId) => set(s, { vendorWorkspaceId })}
              problem={problem}
              hint="Empty: the workspace's own id."
            />
            <Field
              label={`${sourceName(s)}: own bridge URL (optional)`}
              name={`${path}.bridge.url`}
              type="url"
              value={d.bridgeUrl}
              onValue={(bridgeUrl) => set(s, { bridgeUrl })}
              problem={problem}
              hint="Empty: the deployment's system serves it."
            />
            {d.bridgeUrl && (
              <Field
                label={`${sourceName(s)}: bridge Authorization value`}
                name={`${path}.bridge.authorization`}
                type="password"
                autoComplete="off"
                value={d.authorization}
                onValue={(authorization) => set(s, { authorization })}
                problem={problem}
                hint={
                  d.hasAuthorization
                    ? "One is kept, sealed, and never shown. Leave empty to keep it while the URL stays the same; type one to replace it."
                    : "The whole header value the bridge expects, e.g. Bearer <token>. Kept sealed, never shown again."
                }
              />
            )}
            {d.bridgeUrl && d.hasAuthorization && (
              <Checkbox label={`${sourceName(s)}: remove the kept Authorization value`} name={`${path}.bridge.removeAuthorization`} checked={d.removeAuthorization} onValue={(removeAuthorization) => set(s, { removeAuthorization })} />
            )}
          </details>
        );
      })}
    </fieldset>
  );
}

/** The organizations (the provider and its customers) and their workspaces; onboarding of both. */
export function WorkspacesPage() {
  const me = useMe();
  const [notice] = useState(takeFlash);
  const organizations = useResource(readOrganizations, []);
  const workspaces = useResource(readWorkspaces, []);
  const [filter, setFilter] = useState("");
  const canChange = hasRole(me, WORKSPACE_ADMIN);
  const orgs = organizations.value ?? [];
  const own = orgs.find((o) => o.id === me.accountId);
  const orgName = (id: string) => orgs.find((o) => o.id === id)?.name ?? id;
  const list = (workspaces.value ?? []).filter((w) => !filter || w.accountId === filter);
  const count = (accountId: string) => (workspaces.value ?? []).filter((w) => w.accountId === accountId).length;
  const reload = () => Promise.all([organizations.reload(), workspaces.reload()]);

  return (
    <section>
      <PageHeader title="Organizations and workspaces">
        <RefreshButton busy={organizations.loading || workspaces.loading} onRefresh={() => void reload()} />
      </PageHeader>
      <p class="lead">Your organization, the customer organizations it manages, and the workspaces you may act on.</p>
      {notice && <Notice kind="success">{notice}</Notice>}
      <ProblemBanner problem={organizations.problem} title="The organizations could not be read" />
      <ProblemBanner problem={workspaces.problem} title="The workspaces could not be read" />

      <h2 id="organizations-heading" class="section-heading">Organizations</h2>
      {organizations.value && orgs.length === 0 && <Empty>No organization.</Empty>}
      {orgs.length > 0 && (
        <TableScroll label="Organizations">
          <table aria-labelledby="organizations-heading">
            <thead>
              <tr>
                <th scope="col">Organization</th>
                <th scope="col">Kind</th>
                <th scope="col">Status</th>
                <th scope="col">Workspaces</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {orgs.map((o) => (
                <tr key={o.id} data-organization-id={o.id}>
                  <th scope="row">
                    {o.name}
                    {o.id === me.accountId && <span class="muted"> (yours)</span>}
                  </th>
                  <td>{o.kind === "ServiceProvider" ? "Service provider" : o.managedByAccountId ? `Customer of ${orgName(o.managedByAccountId)}` : "Customer"}</td>
                  <td>{o.isActive ? <Badge tone="ok">Active</Badge> : <Badge tone="bad">Deactivated</Badge>}</td>
                  <td>{workspaces.value ? count(o.id) : "…"}</td>
                  <td>
                    <Time at={o.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}

      <h2 id="workspaces-heading" class="section-heading">Workspaces</h2>
      {orgs.length > 1 && (
        <div class="filters">
          <Select label="Organization" name="accountId" value={filter} onValue={setFilter} options={[{ value: "", label: "All organizations" }, ...orgs.map((o) => ({ value: o.id, label: o.name }))]} />
        </div>
      )}
      {workspaces.value && list.length === 0 && <Empty>No workspace you may act on{filter ? " in this organization" : ""}.</Empty>}
      {list.length > 0 && (
        <TableScroll label="Workspaces">
          <table aria-labelledby="workspaces-heading">
            <thead>
              <tr>
                <th scope="col">Workspace</th>
                <th scope="col">Organization</th>
                <th scope="col">Sources on</th>
                <th scope="col">Your role</th>
                <th scope="col">Last changed</th>
              </tr>
            </thead>
            <tbody>
              {list.map((w) => (
                <tr key={w.id} data-workspace-id={w.id}>
                  <th scope="row">
                    <Link href={`${BASE}/workspaces/${w.id}`}>{w.name}</Link>
                  </th>
                  <td>{orgName(w.accountId)}</td>
                  <td>
                    {sourcesOn(w)} of {SOURCE_NAMES.length}
                    {SOURCE_NAMES.some((s) => w.sources[s].bridge) && <span class="muted"> · own bridge</span>}
                  </td>
                  <td>{w.workspaceRole ?? <span class="muted">Organization-wide ({me.organizationalRole})</span>}</td>
                  <td>
                    <Time at={w.lastModifiedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}

      {canChange && own?.kind === "ServiceProvider" && (
        <OnboardOrganization providerName={own.name} onCreated={() => void organizations.reload()} />
      )}
      {canChange && orgs.length > 0 && (
        <OnboardWorkspace
          organizations={orgs}
          workspaces={workspaces.value ?? []}
          onCreated={(w) => {
            setFlash(`Workspace ${w.name} is onboarded into ${orgName(w.accountId)}.`);
            navigate(`${BASE}/workspaces/${w.id}`);
          }}
        />
      )}
    </section>
  );
}

function OnboardOrganization(props: { providerName: string; onCreated(o: Organization): void }) {
  const [name, setName] = useState("");
  const [done, setDone] = useState<string | undefined>(undefined);
  const submit = useAction(async () => {
    setDone(undefined);
    const created = (await call(api.POST("/api/v2/portal/organizations", { params: { header: csrf() }, body: { name } }))).data;
    setName("");
    setDone(`${created.name} is onboarded as a customer organization of ${props.providerName}. Onboard its first workspace below.`);
    props.onCreated(created);
  });
  return (
    <section class="card form-card" aria-labelledby="onboard-organization-heading">
      <h2 id="onboard-organization-heading">Onboard a customer organization</h2>
      <p class="muted">A customer organization your organization manages. Its name is unique among your organizations.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit.run();
        }}
      >
        {done && <Notice kind="success">{done}</Notice>}
        <ProblemBanner problem={submit.problem} title="The organization was not onboarded" />
        <Field label="Organization name" name="name" value={name} onValue={setName} problem={submit.problem} required autoComplete="off" />
        <div class="buttons">
          <button type="submit" class="button" disabled={submit.busy}>
            {submit.busy ? "Onboarding…" : "Onboard organization"}
          </button>
        </div>
      </form>
    </section>
  );
}

/** A workspace's approval modes, as the onboarding form and the workspace's page offer them. */
export const APPROVAL_MODE_OPTIONS: readonly { value: NonNullable<OnboardBody["approvalMode"]>; label: string }[] = [
  { value: "NoApproval", label: "No approval: runs are dispatched at once" },
  { value: "AdminRequiredPlaybooks", label: "Runs with a playbook that needs an administrator" },
  { value: "AllRuns", label: "Every run" },
];

/** The directory tenant an organization's workspaces have already, to start a new one's from. */
function knownTenant(workspaces: Workspace[], accountId: string): string {
  return workspaces.find((w) => w.accountId === accountId)?.tenantId ?? "";
}

/**
 * Onboarding a workspace: picked from the cloud (subscription, resource group, security instance),
 * checked before it is sent, the workspace then having the instance's id; or typed by hand, for a
 * vendor reached through a bridge. The name starts as the instance's, the tenant as the
 * organization's other workspaces'; both stay editable.
 */
function OnboardWorkspace(props: { organizations: Organization[]; workspaces: Workspace[]; onCreated(w: Workspace): void }) {
  const active = props.organizations.filter((o) => o.isActive);
  const [byHand, setByHand] = useState(false);
  const [picked, setPicked] = useState<PickedInstance | undefined>(undefined);
  const [name, setName] = useState("");
  const [accountId, setAccountId] = useState(active.find((o) => o.kind === "Customer")?.id ?? active[0]?.id ?? "");
  const [tenantId, setTenantId] = useState(() => knownTenant(props.workspaces, accountId));
  // The workspaces may arrive after the form: an empty tenant then starts as theirs.
  useEffect(() => {
    if (tenantId === "") setTenantId(knownTenant(props.workspaces, accountId));
  }, [props.workspaces]);
  const [sources, setSources] = useState(sourcesDraft());
  // Containment (revoke sessions, reset a password, isolate a host) waits for an Owner unless chosen otherwise here.
  const [approvalMode, setApprovalMode] = useState<NonNullable<OnboardBody["approvalMode"]>>("AdminRequiredPlaybooks");
  // Why the picked instance cannot be onboarded (the check's reason as the code), shown at the instance until another is picked.
  const [refusal, setRefusal] = useState<Problem | undefined>(undefined);
  const submit = useAction(async () => {
    setRefusal(undefined);
    if (!byHand) {
      const check = picked
        ? await checkInstance(picked)
        : { valid: false, reason: "VALIDATION_ERROR", detail: "Choose a subscription, a resource group and a security instance, or enter the workspace by hand." };
      if (!check.valid) {
        setRefusal({ status: 0, code: check.reason ?? "VALIDATION_ERROR", detail: check.detail ?? "The security instance cannot be onboarded.", target: "securityInstance.workspaceName" });
        return;
      }
    }
    const body: OnboardBody = { name, accountId, tenantId, sources: onboardingSources(sources), approvalMode, ...(!byHand && picked ? { securityInstance: instanceRef(picked) } : {}) };
    props.onCreated((await call(api.POST("/api/v2/portal/workspaces", { params: { header: csrf() }, body }))).data);
  });
  // The name follows the instances picked until the person types another.
  const [suggestedName, setSuggestedName] = useState("");
  const pick = (next: PickedInstance | undefined) => {
    setRefusal(undefined);
    if (next && (name === "" || name === suggestedName)) {
      setName(next.instance.name);
      setSuggestedName(next.instance.name);
    }
    setPicked(next);
  };
  const chooseAccount = (id: string) => {
    if (tenantId === "" || tenantId === knownTenant(props.workspaces, accountId)) setTenantId(knownTenant(props.workspaces, id));
    setAccountId(id);
  };
  return (
    <section class="card form-card" aria-labelledby="onboard-workspace-heading">
      <h2 id="onboard-workspace-heading">Onboard a workspace</h2>
      <p class="muted">A workspace of one of your organizations, from its security instance in the cloud: its name is unique within the organization.</p>
      <form
        id="onboard-workspace"
        onSubmit={(e) => {
          e.preventDefault();
          void submit.run();
        }}
      >
        <ProblemBanner problem={submit.problem} title="The workspace was not onboarded" />
        <ProblemBanner problem={refusal} title="This security instance cannot be onboarded" />
        <Checkbox
          label="Enter by hand (a vendor reached through a bridge, with no security instance to pick)"
          name="byHand"
          checked={byHand}
          onValue={(on) => {
            setRefusal(undefined);
            setByHand(on);
          }}
        />
        {!byHand && <SecurityInstancePicker picked={picked} onPick={pick} problem={submit.problem ?? refusal} />}
        <Field label="Workspace name" name="name" value={name} onValue={setName} problem={submit.problem} required autoComplete="off" hint={byHand ? undefined : "Starts as the security instance's name."} />
        <Select
          label="Organization"
          name="accountId"
          value={accountId}
          onValue={chooseAccount}
          problem={submit.problem}
          options={props.organizations.map((o) => ({ value: o.id, label: `${o.name}${o.isActive ? "" : " (deactivated)"}` }))}
        />
        <Field
          label="Directory tenant id"
          name="tenantId"
          value={tenantId}
          onValue={setTenantId}
          problem={submit.problem}
          required
          autoComplete="off"
          hint="The directory tenant of the workspace's organization: a GUID. Starts as the tenant of the organization's other workspaces."
        />
        <Select
          label="Runs that wait for an Owner's approval"
          name="approvalMode"
          value={approvalMode}
          onValue={(v) => setApprovalMode(v as typeof approvalMode)}
          problem={submit.problem}
          options={APPROVAL_MODE_OPTIONS}
        />
        <SourcesEditor draft={sources} onDraft={setSources} problem={submit.problem} />
        <div class="buttons">
          <button type="submit" class="button" disabled={submit.busy}>
            {submit.busy ? "Onboarding…" : "Onboard workspace"}
          </button>
        </div>
      </form>
    </section>
  );
}
