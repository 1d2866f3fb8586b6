import { useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import { Field, Notice, ProblemBanner, SubmitButtons, SubmitForm, useAction } from "../ui";
import type { Organization } from "./workspace-model";

/** Onboarding a customer organization of the person's own, the service provider. */
export function OnboardOrganization(props: { providerName: string; onCreated(o: Organization): void }) {
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
      <SubmitForm action={submit}>
        {done && <Notice kind="success">{done}</Notice>}
        <ProblemBanner problem={submit.problem} title="The organization was not onboarded" />
        <Field label="Organization name" name="name" value={name} onValue={setName} problem={submit.problem} required autoComplete="off" />
        <SubmitButtons busy={submit.busy} busyLabel="Onboarding…" label="Onboard organization" />
      </SubmitForm>
    </section>
  );
}
