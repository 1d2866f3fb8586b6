import { fieldError, type Problem } from "../api/client";
import { useSourceName } from "../session";
import { Checkbox, Field } from "../ui";
import type { SourceDraft, SourcesDraft } from "./sources-draft";
import { SOURCE_NAMES, type SourceName } from "./workspace-model";

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
