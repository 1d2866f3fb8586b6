import { useEffect, useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import type { paths } from "../api/openapi";
import { Checkbox, Field, Notice, ProblemBanner, Select, SubmitButtons, SubmitForm, useAction, useResource } from "../ui";
import { APPROVAL_MODE_OPTIONS } from "./workspace-model";

type Policy = paths["/api/v2/portal/workspaces/{workspaceId}/approval-policy"]["get"]["responses"][200]["content"]["application/json"]["data"];
type PolicyBody = NonNullable<paths["/api/v2/portal/workspaces/{workspaceId}/approval-policy"]["put"]["requestBody"]>["content"]["application/json"];

const MODES: readonly { value: Policy["mode"]; label: string }[] = APPROVAL_MODE_OPTIONS;

/** A workspace's approval policy: read by everyone who sees the workspace, changed by its administrators. */
export function ApprovalPolicySection(props: { workspaceId: string; canChange: boolean; onSaved(): void }) {
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
        <SubmitForm action={save}>
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
          <SubmitButtons busy={save.busy} busyLabel="Saving…" label="Save approval policy" />
        </SubmitForm>
      )}
    </section>
  );
}
