import { useEffect, useState } from "preact/hooks";
import { api, call, csrf, type Problem } from "../api/client";
import { DataTable, Field, ProblemBanner, Select, SubmitForm, useAction } from "../ui";
import { ifMatch } from "../etag";
import { type Workspace } from "../ui/workspace-select";
import { Configuration, Classification, CLASSIFICATIONS, EVENT_TYPE, GUID, OrganizationWebhook } from "./agent-configuration";

export interface DraftCard {
  classification: Classification;
  webhookIds: string[];
}

export function ConfigurationEditor(props: { workspace: Workspace; configuration: Configuration; etag: string | undefined; webhooks: OrganizationWebhook[] | undefined; onDone(changed: boolean): Promise<void> }) {
  const { configuration } = props;
  const [agentName, setAgentName] = useState(configuration.agentName);
  const [cards, setCards] = useState<DraftCard[]>(() => CLASSIFICATIONS.map((c) => ({ classification: c.value, webhookIds: [...(configuration.cards.find((x) => x.classification === c.value)?.webhookIds ?? [])] })));
  const [status, setStatus] = useState("");
  const known = new Map<string, { name: string | null; detail: string }>();
  for (const card of configuration.cards) for (const w of card.webhooks) known.set(w.id, { name: w.name, detail: w.status === null ? "removed or not yours" : `${w.status}${w.subscribed === false ? `, not subscribed to ${EVENT_TYPE}` : ""}` });
  for (const w of props.webhooks ?? []) known.set(w.id, { name: w.name, detail: `${w.status}${w.eventTypes.includes(EVENT_TYPE) ? "" : `, not subscribed to ${EVENT_TYPE}`}` });
  const save = useAction(async () => {
    await call(
      api.PUT("/api/v2/portal/workspaces/{workspaceId}/agent-configuration", {
        params: { path: { workspaceId: props.workspace.id }, header: csrf() },
        headers: ifMatch(props.etag),
        body: { agentName, cards: cards.filter((c) => c.webhookIds.length > 0) },
      }),
    );
    await props.onDone(true);
  });
  // The server names `cards[i]` by the body's order, which leaves out cards without webhooks.
  const sentIndex = (classification: Classification) => cards.filter((c) => c.webhookIds.length > 0).findIndex((c) => c.classification === classification);
  const change = (classification: Classification, ids: string[], said: string) => {
    setCards(cards.map((c) => (c.classification === classification ? { ...c, webhookIds: ids } : c)));
    setStatus(said);
  };
  return (
    <SubmitForm class="agent-editor" aria-label="Edit the agent configuration" action={save}>
      <h2>Edit the cards of {props.workspace.name}</h2>
      <ProblemBanner problem={save.problem} title="The agent configuration was not saved" />
      {save.problem?.status === 409 && <p>Someone changed the configuration since you opened it: cancel to see their version, then make your change again.</p>}
      <p class="visually-hidden" aria-live="polite">
        {status}
      </p>
      <Field label="Agent name" name="agentName" value={agentName} onValue={setAgentName} problem={save.problem} required maxLength={200} hint="As the events carry it." />
      {props.webhooks === undefined && <p class="hint">Your organization's webhooks could not be listed here: add a webhook by its id.</p>}
      <ul class="grid cards-grid" aria-label="Classification cards">
        {CLASSIFICATIONS.map((c) => (
          <li key={c.value}>
            <CardEditor
              classification={c}
              ids={cards.find((x) => x.classification === c.value)!.webhookIds}
              known={known}
              webhooks={props.webhooks}
              problem={save.problem}
              sentIndex={sentIndex(c.value)}
              onChange={(ids, said) => change(c.value, ids, said)}
            />
          </li>
        ))}
      </ul>
      <div class="buttons">
        <button type="submit" class="button" disabled={save.busy}>
          {save.busy ? "Saving…" : "Save the cards"}
        </button>
        <button type="button" class="button button-secondary" onClick={() => void props.onDone(false)}>
          Cancel
        </button>
      </div>
    </SubmitForm>
  );
}

export function CardEditor(props: {
  classification: (typeof CLASSIFICATIONS)[number];
  ids: string[];
  known: Map<string, { name: string | null; detail: string }>;
  webhooks: OrganizationWebhook[] | undefined;
  problem: Problem | undefined;
  sentIndex: number;
  onChange(ids: string[], said: string): void;
}) {
  const { classification, ids } = props;
  const [typed, setTyped] = useState("");
  const [chosen, setChosen] = useState("");
  const available = (props.webhooks ?? []).filter((w) => !ids.includes(w.id));
  const choice = available.some((w) => w.id === chosen) ? chosen : (available[0]?.id ?? "");
  useEffect(() => setTyped(""), [ids.length]);
  const nameOf = (id: string) => props.known.get(id)?.name ?? id;
  const prefix = `cards[${props.sentIndex}]`;
  const errors = props.sentIndex >= 0 && props.problem?.errors ? Object.entries(props.problem.errors).filter(([k]) => k.startsWith(prefix)) : [];
  const typedProblem: Problem | undefined = typed && !GUID.test(typed.trim()) ? { status: 0, code: "INVALID_ID", errors: { [`add-${classification.value}`]: ["A webhook id is a GUID."] } } : undefined;
  return (
    <fieldset class="card classification">
      <legend>{classification.label}</legend>
      <p class="muted">{classification.meaning}</p>
      {ids.length === 0 ? (
        <p class="muted">Sends nothing.</p>
      ) : (
        <DataTable label={`Webhooks of the ${classification.label} card`} columns={["Webhook", "Actions"]}>
          {ids.map((id) => (
            <tr key={id}>
              <th scope="row">
                {props.known.get(id)?.name ?? <code>{id}</code>}
                {props.known.get(id) && <div class="muted">{props.known.get(id)!.detail}</div>}
              </th>
              <td>
                <button type="button" class="button button-secondary button-small" onClick={() => props.onChange(ids.filter((x) => x !== id), `${nameOf(id)} removed from ${classification.label}.`)} aria-label={`Remove ${nameOf(id)} from ${classification.label}`}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {errors.length > 0 && (
        <p class="field-error" role="alert">
          {errors.map(([, messages]) => messages.join(" ")).join(" ")}
        </p>
      )}
      {props.webhooks && available.length > 0 && (
        <div class="filters">
          <Select label={`Add a webhook to ${classification.label}`} name={`add-${classification.value}`} value={choice} options={available.map((w) => ({ value: w.id, label: `${w.name} (${w.targetAccountName})` }))} onValue={setChosen} />
          <button type="button" class="button button-secondary add-button" disabled={!choice} onClick={() => props.onChange([...ids, choice], `${nameOf(choice)} added to ${classification.label}.`)}>
            Add
          </button>
        </div>
      )}
      {props.webhooks === undefined && (
        <div class="filters">
          <Field label={`Webhook id to add to ${classification.label}`} name={`add-${classification.value}`} value={typed} onValue={setTyped} problem={typedProblem} autoComplete="off" />
          <button
            type="button"
            class="button button-secondary add-button"
            disabled={!GUID.test(typed.trim()) || ids.includes(typed.trim().toLowerCase())}
            onClick={() => props.onChange([...ids, typed.trim().toLowerCase()], `${typed.trim()} added to ${classification.label}.`)}
          >
            Add
          </button>
        </div>
      )}
    </fieldset>
  );
}
