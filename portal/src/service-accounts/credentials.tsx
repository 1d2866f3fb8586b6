import { useState } from "preact/hooks";
import { api, call, csrf } from "../api/client";
import type { paths } from "../api/openapi";
import { withEtag } from "../etag";
import { Confirmation, useConfirming } from "../confirmation";
import { Badge, DataTable, Empty, ProblemBanner, SubmitButtons, SubmitForm, Time, useAction } from "../ui";
import { ServiceAccount, Credential, Scope, expirationOf, credentialTone } from "./model";
import { ExpirationField, ScopePicker } from "./account-fields";

export function Credentials(props: { sa: ServiceAccount; canManage: boolean; onRevoked(sa: ServiceAccount, etag: string | undefined, prefix: string): void }) {
  const { sa } = props;
  const revoke = useAction(async (credential: Credential) => {
    // The answer's ETag is the account's new version, which the change form sends next.
    const next = await withEtag(api.POST("/api/v2/portal/service-accounts/{id}/credentials/{credentialId}/revoke", { params: { path: { id: sa.id, credentialId: credential.id }, header: csrf() } }));
    confirming.close();
    props.onRevoked(next.value.data, next.etag, credential.clientSecretPrefix);
  });
  const confirming = useConfirming(revoke);
  return (
    <section aria-labelledby="credentials-heading">
      <h2 id="credentials-heading" class="section-heading">
        Credentials
      </h2>
      {sa.credentials.length === 0 ? (
        <Empty>No credential.</Empty>
      ) : (
        <DataTable label="Credentials" class="credentials" caption={`Credentials of ${sa.name}`} columns={["Secret prefix", "Status", "Scopes", "Expires", "Last used", "Created", props.canManage && "Actions"]}>
          {sa.credentials.map((c) => (
            <tr key={c.id} data-credential-id={c.id} data-status={c.status}>
              <th scope="row">
                <code>{c.clientSecretPrefix}…</code>
              </th>
              <td>
                <Badge tone={credentialTone(c.status)}>{c.status}</Badge>
              </td>
              <td>
                <ul class="plain scope-list">
                  {c.scopes.map((s) => (
                    <li key={s}>
                      <code>{s}</code>
                    </li>
                  ))}
                </ul>
              </td>
              <td>
                <Time at={c.expirationDate} />
              </td>
              <td>
                <Time at={c.lastUsedAt} />
              </td>
              <td>
                <Time at={c.createdAt} />
              </td>
              {props.canManage && (
                <td>
                  {c.status === "Active" && confirming.key !== c.id && (
                    <button type="button" class="button button-secondary button-small" data-revoke={c.id} {...confirming.opener(c.id)}>
                      Revoke…<span class="visually-hidden"> the credential {c.clientSecretPrefix}</span>
                    </button>
                  )}
                  {confirming.key === c.id && (
                    <Confirmation
                      layout="inline"
                      question={
                        <>
                          Revoke <code>{c.clientSecretPrefix}…</code>?
                        </>
                      }
                      confirmLabel="Revoke it"
                      busyLabel="Revoking…"
                      busy={revoke.busy}
                      problem={revoke.problem}
                      problemTitle="The credential was not revoked"
                      confirmData={{ "data-confirm-revoke": c.id }}
                      onConfirm={() => void revoke.run(c)}
                      onCancel={confirming.cancel}
                    >
                      <span>Integrations using it are refused at once.</span>
                    </Confirmation>
                  )}
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

export type CreatedCredential = paths["/api/v2/portal/service-accounts/{id}/credentials"]["post"]["responses"][201]["content"]["application/json"]["data"];

export function AddCredential(props: { id: string; onAdded(credential: CreatedCredential): void }) {
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [expiration, setExpiration] = useState("");
  const add = useAction(async () => {
    const added = (await call(api.POST("/api/v2/portal/service-accounts/{id}/credentials", { params: { path: { id: props.id }, header: csrf() }, body: { scopes, expirationDate: expirationOf(expiration) } }))).data;
    setScopes([]);
    setExpiration("");
    props.onAdded(added);
  });
  return (
    <section class="card form-card" aria-labelledby="add-credential-heading">
      <h2 id="add-credential-heading">Add a credential</h2>
      <p class="muted">To rotate: add one, move the integration to it, then revoke the old one. At most five are active at once.</p>
      <SubmitForm class="add-credential" action={add}>
        <ProblemBanner problem={add.problem} title="The credential was not added" />
        <ScopePicker selected={scopes} onChange={setScopes} problem={add.problem} />
        <ExpirationField value={expiration} onValue={setExpiration} problem={add.problem} />
        <SubmitButtons busy={add.busy} busyLabel="Adding…" label="Add credential" />
      </SubmitForm>
    </section>
  );
}
