import { useState } from "preact/hooks";
import { api, call, csrf, type Problem } from "../api/client";
import { ifMatch } from "../etag";
import { Checkbox, Field, ProblemBanner, Select, SubmitForm, useAction } from "../ui";
import { type Workspace } from "../ui/workspace-select";
import { Playbook, Rules, RuleInput, errorsUnder } from "./types";

export interface DraftRule {
  key: number;
  pattern: string;
  playbookIds: string[];
  autoRun: boolean;
}

let nextKey = 1;

export function RulesEditor(props: { workspace: Workspace; rules: Rules; etag: string | undefined; playbooks: Playbook[]; onDraft(rules: RuleInput[] | undefined): void; onDone(changed: boolean): Promise<void> }) {
  const [draft, setDraft] = useState<DraftRule[]>(() => props.rules.rules.map((r) => ({ key: nextKey++, pattern: r.pattern, playbookIds: [...r.playbookIds], autoRun: r.autoRun })));
  const [status, setStatus] = useState("");
  const names = new Map(props.playbooks.map((p) => [p.id, p]));
  const asInput = (list: DraftRule[]): RuleInput[] => list.map((r) => ({ pattern: r.pattern, playbookIds: r.playbookIds, autoRun: r.autoRun }));
  const update = (next: DraftRule[], said?: string) => {
    setDraft(next);
    props.onDraft(asInput(next));
    if (said) setStatus(said);
  };
  const save = useAction(async () => {
    await call(
      api.PUT("/api/v2/portal/workspaces/{workspaceId}/gamebook-rules", {
        params: { path: { workspaceId: props.workspace.id }, header: csrf() },
        headers: ifMatch(props.etag),
        body: { rules: asInput(draft) },
      }),
    );
    await props.onDone(true);
  });
  const move = (from: number, to: number) => {
    if (to < 0 || to >= draft.length) return;
    const next = [...draft];
    const [rule] = next.splice(from, 1);
    next.splice(to, 0, rule!);
    update(next, `Rule moved to place ${to + 1} of ${next.length}.`);
  };
  return (
    <SubmitForm class="rules-editor" aria-label="Edit the gamebook rules" action={save}>
      <ProblemBanner problem={save.problem} title="The rules were not saved" />
      {save.problem?.status === 409 && <p>Someone changed the catalogue or the rules since you opened them: cancel to see their version, then make your change again.</p>}
      <p class="visually-hidden" aria-live="polite">
        {status}
      </p>
      <ol class="cards">
        {draft.map((rule, i) => (
          <li key={rule.key}>
            <fieldset class="card rule">
              <legend>Rule {i + 1}</legend>
              <Field
                label="Title pattern"
                name={`rules[${i}].pattern`}
                value={rule.pattern}
                maxLength={500}
                required
                problem={save.problem}
                onValue={(v) => update(draft.map((r) => (r.key === rule.key ? { ...r, pattern: v } : r)))}
              />
              <RulePlaybooks
                index={i}
                rule={rule}
                names={names}
                playbooks={props.playbooks}
                problem={save.problem}
                onChange={(ids, said) => update(draft.map((r) => (r.key === rule.key ? { ...r, playbookIds: ids } : r)), said)}
              />
              <Checkbox
                label="Automation rule: run these playbooks by themselves on every new incident whose title matches (still subject to approval)"
                name={`rules[${i}].autoRun`}
                checked={rule.autoRun}
                problem={save.problem}
                onValue={(v) => update(draft.map((r) => (r.key === rule.key ? { ...r, autoRun: v } : r)))}
              />
              <div class="buttons buttons-tight">
                <button type="button" class="button button-secondary" disabled={i === 0} onClick={() => move(i, i - 1)} aria-label={`Move rule ${i + 1} up`}>
                  Move up
                </button>
                <button type="button" class="button button-secondary" disabled={i === draft.length - 1} onClick={() => move(i, i + 1)} aria-label={`Move rule ${i + 1} down`}>
                  Move down
                </button>
                <button type="button" class="button button-secondary" onClick={() => update(draft.filter((r) => r.key !== rule.key), `Rule ${i + 1} removed.`)} aria-label={`Remove rule ${i + 1}`}>
                  Remove the rule
                </button>
              </div>
            </fieldset>
          </li>
        ))}
      </ol>
      <div class="buttons">
        <button type="button" class="button button-secondary" onClick={() => update([...draft, { key: nextKey++, pattern: "", playbookIds: [], autoRun: false }], `Rule ${draft.length + 1} added.`)}>
          Add a rule
        </button>
        <button type="submit" class="button" disabled={save.busy}>
          {save.busy ? "Saving…" : "Save the rules"}
        </button>
        <button type="button" class="button button-secondary" onClick={() => void props.onDone(false)}>
          Cancel
        </button>
      </div>
      <p class="hint">Until they are saved, the preview below tries these rules.</p>
    </SubmitForm>
  );
}

export function RulePlaybooks(props: { index: number; rule: DraftRule; names: Map<string, Playbook>; playbooks: Playbook[]; problem: Problem | undefined; onChange(ids: string[], said: string): void }) {
  const { index, rule } = props;
  const available = props.playbooks.filter((p) => !rule.playbookIds.includes(p.id));
  const [adding, setAdding] = useState("");
  const choice = available.some((p) => p.id === adding) ? adding : (available[0]?.id ?? "");
  const prefix = `rules[${index}].playbookIds`;
  const errors = errorsUnder(props.problem, prefix)?.errors?.[prefix];
  const ids = rule.playbookIds;
  const nameOf = (id: string) => props.names.get(id)?.name ?? id;
  const swap = (i: number, j: number) => {
    const next = [...ids];
    [next[i], next[j]] = [next[j]!, next[i]!];
    props.onChange(next, `${nameOf(ids[i]!)} moved to place ${j + 1}.`);
  };
  return (
    <div class="rule-playbooks">
      <p class="label">Recommends, in order</p>
      {ids.length === 0 && <p class="muted">No playbook yet: a rule needs at least one.</p>}
      <ol class="compact">
        {ids.map((id, i) => (
          <li key={id}>
            <span>
              {nameOf(id)} {props.names.get(id) && <span class="muted">({props.names.get(id)!.entityType})</span>}
            </span>
            <span class="buttons buttons-tight">
              <button type="button" class="button button-secondary button-small" disabled={i === 0} onClick={() => swap(i, i - 1)} aria-label={`Move ${nameOf(id)} up in rule ${index + 1}`}>
                ↑
              </button>
              <button type="button" class="button button-secondary button-small" disabled={i === ids.length - 1} onClick={() => swap(i, i + 1)} aria-label={`Move ${nameOf(id)} down in rule ${index + 1}`}>
                ↓
              </button>
              <button type="button" class="button button-secondary button-small" onClick={() => props.onChange(ids.filter((x) => x !== id), `${nameOf(id)} removed from rule ${index + 1}.`)} aria-label={`Remove ${nameOf(id)} from rule ${index + 1}`}>
                Remove
              </button>
            </span>
          </li>
        ))}
      </ol>
      {errors && (
        <p class="field-error" role="alert">
          {errors.join(" ")}
        </p>
      )}
      {available.length > 0 && (
        <div class="filters">
          <Select label={`Add a playbook to rule ${index + 1}`} name={`rule-${index}-add`} value={choice} options={available.map((p) => ({ value: p.id, label: `${p.name} (${p.entityType})` }))} onValue={setAdding} />
          <button type="button" class="button button-secondary add-button" disabled={!choice} onClick={() => props.onChange([...ids, choice], `${nameOf(choice)} added to rule ${index + 1}.`)}>
            Add
          </button>
        </div>
      )}
    </div>
  );
}
