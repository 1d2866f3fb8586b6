import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useId, useRef, useState } from "preact/hooks";
import { fieldError, ProblemError, type Problem } from "../api/client";
import { exactTime, relativeTime } from "../time-format";

/** Any error as a problem the page can show. */
export function asProblem(error: unknown): Problem {
  return error instanceof ProblemError ? error.problem : { status: 0, code: "UNEXPECTED", detail: error instanceof Error ? error.message : String(error) };
}

export interface Resource<T> {
  value: T | undefined;
  problem: Problem | undefined;
  loading: boolean;
  reload(): Promise<void>;
  set(value: T): void;
}

/** Loads something on mount and when `deps` change; `reload` loads it again (after a change, on a timer). */
export function useResource<T>(load: () => Promise<T>, deps: unknown[] = []): Resource<T> {
  const [value, setValue] = useState<T | undefined>(undefined);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const next = await load();
      if (mine === generation.current) {
        setValue(next);
        setProblem(undefined);
      }
    } catch (error) {
      if (mine === generation.current) setProblem(asProblem(error));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { value, problem, loading, reload, set: setValue };
}

/** Calls `tick` every `ms` while the page is visible. */
export function useInterval(tick: () => void, ms: number): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    const id = setInterval(() => {
      if (document.visibilityState === "visible") saved.current();
    }, ms);
    return () => clearInterval(id);
  }, [ms]);
}

/** A page's heading; focused when the view changes, so keyboard and screen-reader users start there. */
export function PageHeader(props: { title: string; children?: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, [props.title]);
  return (
    <div class="page-header">
      <h1 tabIndex={-1} ref={ref}>
        {props.title}
      </h1>
      {props.children && <div class="page-actions">{props.children}</div>}
    </div>
  );
}

/** A page header's "Refresh": reads the page's data again, and says so while it does. */
export function RefreshButton(props: { busy?: boolean; onRefresh(): void }) {
  return (
    <button type="button" class="button button-secondary" onClick={props.onRefresh} disabled={props.busy}>
      {props.busy ? "Refreshing…" : "Refresh"}
    </button>
  );
}

/** The server's problem, in words, with its code and what to do. */
export function ProblemBanner(props: { problem: Problem | undefined; title?: string }) {
  const { problem } = props;
  if (!problem) return null;
  return (
    <div class="banner banner-error" role="alert">
      <strong>{props.title ?? problem.title ?? "Something went wrong"}</strong>
      {problem.detail && <p>{problem.detail}</p>}
      <p class="muted">
        <code>{problem.code}</code>
        {problem.status ? ` · HTTP ${problem.status}` : ""}
      </p>
    </div>
  );
}

/**
 * Whether a change was refused because the resource changed since the page read it: the `If-Match`
 * the page sent no longer matches (409 `CONFLICT` at no field; one at a field, such as a name already
 * taken, is that field's problem).
 */
export function isEditConflict(problem: Problem | undefined): boolean {
  return problem?.status === 409 && problem.code === "CONFLICT" && (problem.target === undefined || problem.target === "If-Match");
}

/**
 * A form's problem. A change made over someone else's is refused, and this says so with a button that
 * reads the resource again; until the person presses it their draft stays in the form. Any other
 * problem shows as a `ProblemBanner`.
 */
export function SaveProblem(props: { problem: Problem | undefined; title: string; onReload(): Promise<void> }) {
  const [reloading, setReloading] = useState(false);
  if (!isEditConflict(props.problem)) return <ProblemBanner problem={props.problem} title={props.title} />;
  return (
    <div class="banner banner-error edit-conflict" role="alert">
      <strong>{props.title}</strong>
      <p>Someone changed this since you opened it: reload to see their change, then make yours again.</p>
      <div class="buttons">
        <button
          type="button"
          class="button button-secondary"
          disabled={reloading}
          onClick={() => {
            setReloading(true);
            void props.onReload().finally(() => setReloading(false));
          }}
        >
          {reloading ? "Reloading…" : "Reload"}
        </button>
      </div>
    </div>
  );
}

export function Notice(props: { kind?: "success" | "info" | "warn"; children: ComponentChildren }) {
  return (
    <div class={`banner banner-${props.kind ?? "info"}`} role="status">
      {props.children}
    </div>
  );
}

/** The input attributes the portal's forms use. */
interface InputProps {
  type?: "text" | "email" | "url" | "number" | "date" | "datetime-local" | "search" | "password";
  required?: boolean;
  maxLength?: number;
  placeholder?: string;
  autoComplete?: string;
  disabled?: boolean;
}

/**
 * A labelled input whose error is the server's problem at this field (`errors[name]` or `target`),
 * tied to it with aria-describedby so that screen readers read it with the field.
 */
export function Field(props: InputProps & { label: string; name: string; problem?: Problem; hint?: string; value: string; onValue(value: string): void; multiline?: boolean }) {
  const { label, name, problem, hint, value, onValue, multiline, ...rest } = props;
  const id = useId();
  const error = fieldError(problem, name);
  const describedBy = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  const common = { id, name, "aria-invalid": error ? ("true" as const) : undefined, "aria-describedby": describedBy };
  return (
    <div class={`field${error ? " field-invalid" : ""}`}>
      <label for={id}>{label}</label>
      {multiline ? (
        <textarea {...common} required={rest.required} maxLength={rest.maxLength} value={value} onInput={(e) => onValue((e.currentTarget as HTMLTextAreaElement).value)} rows={3} />
      ) : (
        <input {...rest} {...common} value={value} onInput={(e) => onValue((e.currentTarget as HTMLInputElement).value)} />
      )}
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

export function Select(props: { label: string; name: string; value: string; options: readonly (string | { value: string; label: string })[]; onValue(value: string): void; problem?: Problem }) {
  const id = useId();
  const error = fieldError(props.problem, props.name);
  return (
    <div class={`field${error ? " field-invalid" : ""}`}>
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name} value={props.value} aria-invalid={error ? "true" : undefined} aria-describedby={error ? `${id}-error` : undefined} onChange={(e) => props.onValue((e.currentTarget as HTMLSelectElement).value)}>
        {props.options.map((o) => (typeof o === "string" ? <option value={o}>{o}</option> : <option value={o.value}>{o.label}</option>))}
      </select>
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** `list` with `value` in it (`on`) or not: a checkbox's change to the values it stands among. */
export function toggle<T>(list: readonly T[], value: T, on: boolean): T[] {
  return on ? [...list, value] : list.filter((v) => v !== value);
}

/** A filter of several values, a checkbox each (named `<name>-<value>`): none ticked means no filter. */
export function CheckboxFilter<T extends string>(props: { legend: string; name: string; options: readonly T[]; values: readonly T[]; onValues(values: T[]): void; labelOf?(option: T): string }) {
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      <div class="checks">
        {props.options.map((o) => (
          <Checkbox label={props.labelOf?.(o) ?? o} name={`${props.name}-${o}`} checked={props.values.includes(o)} onValue={(on) => props.onValues(toggle(props.values, o, on))} />
        ))}
      </div>
    </fieldset>
  );
}

/** A labelled checkbox; with `problem`, the server's problem at this field shows under it, as a `Field`'s does. */
export function Checkbox(props: { label: string; name: string; checked: boolean; onValue(value: boolean): void; problem?: Problem }) {
  const id = useId();
  const error = fieldError(props.problem, props.name);
  return (
    <div class={`field field-check${error ? " field-invalid" : ""}`}>
      <input
        type="checkbox"
        id={id}
        name={props.name}
        checked={props.checked}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => props.onValue((e.currentTarget as HTMLInputElement).checked)}
      />
      <label for={id}>{props.label}</label>
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

export function Badge(props: { tone?: "ok" | "warn" | "bad" | "neutral"; children: ComponentChildren }) {
  return <span class={`badge badge-${props.tone ?? "neutral"}`}>{props.children}</span>;
}

/** A time as people read it ("in 3 hours"), with the exact time on hover and for assistive technology. */
export function Time(props: { at: string | null | undefined }) {
  if (!props.at) return <span class="muted">—</span>;
  const at = new Date(props.at);
  return (
    <time dateTime={at.toISOString()} title={exactTime(at)}>
      {relativeTime(at)}
    </time>
  );
}

/** An action a button runs: whether it is running, and the problem of its last run. */
export interface Action<A extends unknown[] = []> {
  run(...args: A): Promise<boolean>;
  busy: boolean;
  problem: Problem | undefined;
  clear(): void;
}

/** A button that shows it is busy while its action runs, and reports the action's problem. */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<unknown>): Action<A> {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  return {
    busy,
    problem,
    clear: () => setProblem(undefined),
    async run(...args: A) {
      setBusy(true);
      setProblem(undefined);
      try {
        await action(...args);
        return true;
      } catch (error) {
        setProblem(asProblem(error));
        return false;
      } finally {
        setBusy(false);
      }
    },
  };
}

/** A region that scrolls sideways on a narrow screen rather than squeezing its table. */
export function TableScroll(props: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-scroll" role="region" aria-label={props.label} tabIndex={0}>
      {props.children}
    </div>
  );
}

export function Empty(props: { children: ComponentChildren }) {
  return <p class="empty">{props.children}</p>;
}

/**
 * A copy-to-clipboard button, for secrets shown once. Where the clipboard is refused (no permission,
 * no secure context) it says so, and the person selects the text instead.
 */
export function CopyButton(props: { text: string; label: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const show = (next: "copied" | "failed") => {
    setState(next);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState("idle"), next === "copied" ? 2000 : 5000);
  };
  return (
    <button
      type="button"
      class="button button-secondary"
      onClick={() => {
        let pending: Promise<void>;
        try {
          if (!navigator.clipboard) throw new Error("No clipboard");
          pending = navigator.clipboard.writeText(props.text);
        } catch (error) {
          pending = Promise.reject(error);
        }
        pending.then(
          () => show("copied"),
          () => show("failed"),
        );
      }}
    >
      {state === "copied" ? "Copied" : state === "failed" ? "Copy failed — select the text" : props.label}
      <span class="visually-hidden" aria-live="polite">
        {state === "copied" ? " to the clipboard" : ""}
      </span>
    </button>
  );
}
