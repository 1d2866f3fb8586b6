import type { ComponentChildren, JSX } from "preact";
import { useId } from "preact/hooks";
import { fieldError, type Problem } from "../api/client";
import type { Action } from "./resource";

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

/** A labelled select; `busy` while its options load (disabled, and announced as busy), `hint` under it. */
export function Select(props: {
  label: string;
  name: string;
  value: string;
  options: readonly (string | { value: string; label: string })[];
  onValue(value: string): void;
  problem?: Problem;
  disabled?: boolean;
  busy?: boolean;
  hint?: string;
}) {
  const id = useId();
  const error = fieldError(props.problem, props.name);
  const describedBy = [props.hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div class={`field${error ? " field-invalid" : ""}`}>
      <label for={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        value={props.value}
        disabled={props.disabled || props.busy}
        aria-busy={props.busy ? "true" : undefined}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={describedBy}
        onChange={(e) => props.onValue((e.currentTarget as HTMLSelectElement).value)}
      >
        {props.options.map((o) => (typeof o === "string" ? <option value={o}>{o}</option> : <option value={o.value}>{o.label}</option>))}
      </select>
      {props.hint && (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
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

/** A form whose submit runs `action` in place of the browser's navigation; its own attributes (id, class, data-*) pass through. */
export function SubmitForm(props: Omit<JSX.HTMLAttributes<HTMLFormElement>, "action" | "onSubmit"> & { action: Pick<Action, "run">; children: ComponentChildren }) {
  const { action, children, ...form } = props;
  return (
    <form
      {...form}
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      {children}
    </form>
  );
}

/** A form's row of buttons with its submit button, disabled and saying what it does while its action is busy. */
export function SubmitButtons(props: { busy: boolean; label: ComponentChildren; busyLabel: string; disabled?: boolean; class?: string }) {
  return (
    <div class="buttons">
      <button type="submit" class={props.class ?? "button"} disabled={props.busy || props.disabled}>
        {props.busy ? props.busyLabel : props.label}
      </button>
    </div>
  );
}
