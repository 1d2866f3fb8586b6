import { useEffect, useState } from "preact/hooks";
import { api, call, csrf, type Problem } from "../api/client";
import { Checkbox, Field, ProblemBanner, Select, SubmitButtons, SubmitForm, useAction } from "../ui";
import { checkInstance, instanceRef, SecurityInstancePicker, type PickedInstance } from "./security-instance-picker";
import { onboardingSources, sourcesDraft } from "./sources-draft";
import { SourcesEditor } from "./sources-editor";
import { APPROVAL_MODE_OPTIONS, type OnboardBody, type Organization, type Workspace } from "./workspace-model";

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
export function OnboardWorkspace(props: { organizations: Organization[]; workspaces: Workspace[]; onCreated(w: Workspace): void }) {
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
      <SubmitForm id="onboard-workspace" action={submit}>
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
        <SubmitButtons busy={submit.busy} busyLabel="Onboarding…" label="Onboard workspace" />
      </SubmitForm>
    </section>
  );
}
