import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import type { Problem } from "./api/client";
import { ProblemBanner, type Action } from "./ui";

/**
 * Which confirmation of a view is open, by key (a row's id, or a name where the view has one). Its
 * opener button spreads `opener(key)`, so that a cancelled confirmation gives the focus back to the
 * button that opened it rather than dropping it on the page.
 */
export function useConfirming<K extends string = string>(action?: { clear(): void }) {
  const [key, setKey] = useState<K | undefined>(undefined);
  const open = (next: K) => {
    action?.clear();
    setKey(next);
  };
  return {
    key,
    open,
    /** Closes it once it is answered. */
    close: () => setKey(undefined),
    /** Closes it unanswered: its problem goes, and the focus returns to its opener once that is back. */
    cancel: () => {
      const opened = key;
      setKey(undefined);
      action?.clear();
      setTimeout(() => document.querySelector<HTMLElement>(`[data-confirms="${CSS.escape(opened ?? "")}"]`)?.focus(), 0);
    },
    opener: (of: K) => ({ "data-confirms": of, onClick: () => open(of) }),
  };
}

/**
 * An inline "are you sure?" in place of the button that asked; Escape or Cancel steps back. It takes
 * the focus as it opens, so that the keyboard answers it next: the whole group when it says what
 * confirming does (`children`; a screen reader then reads that first), else its confirm button.
 * `panel` sits under a danger zone's text with the question as a heading; `inline` fits a table cell.
 */
export function Confirmation(props: {
  question: ComponentChildren;
  children?: ComponentChildren;
  layout: "inline" | "panel";
  confirmLabel: string;
  busyLabel: string;
  busy: boolean;
  onConfirm(): void;
  onCancel(): void;
  /** Shown inside, where the confirmation stays open after a refusal. */
  problem?: Problem;
  problemTitle?: string;
  /** `data-*` attributes of the confirm button, for finding it. */
  confirmData?: Record<`data-${string}`, string>;
}) {
  const id = useId();
  const group = useRef<HTMLDivElement>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  const explains = props.children !== undefined;
  useEffect(() => (explains ? group.current : confirm.current)?.focus(), []);
  const panel = props.layout === "panel";
  return (
    <div
      class={panel ? "offboard-confirm" : "confirm"}
      role="group"
      aria-labelledby={id}
      tabIndex={-1}
      ref={group}
      onKeyDown={(e) => {
        if (e.key === "Escape") props.onCancel();
      }}
    >
      {panel ? <h3 id={id}>{props.question}</h3> : <span id={id}>{props.question}</span>}
      {props.children}
      <ProblemBanner problem={props.problem} title={props.problemTitle} />
      <div class={panel ? "buttons" : "buttons buttons-tight"}>
        <button type="button" ref={confirm} class="button button-danger" disabled={props.busy} onClick={props.onConfirm} {...props.confirmData}>
          {props.busy ? props.busyLabel : props.confirmLabel}
        </button>
        <button type="button" class="button button-secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

/**
 * A danger zone: a section that says what deleting does, with the button that asks, and in its place,
 * once pressed, the confirmation (`children` says what confirming does). The opener's key is the
 * action's name (`delete`, `offboard`), which its `data-confirms` carries.
 */
export function DeleteZone(props: {
  headingId: string;
  heading: string;
  /** A page's own zone is a second-level heading; one inside a section of the page, a third. */
  level?: 2 | 3;
  lead: ComponentChildren;
  action: Action;
  name: string;
  question: string;
  confirmLabel: string;
  busyLabel: string;
  problemTitle: string;
  opener: string;
  /** `data-*` attributes of the opener and of the confirm button, for finding them. */
  openerData?: Record<`data-${string}`, string>;
  confirmData?: Record<`data-${string}`, string>;
  children: ComponentChildren;
}) {
  const { action } = props;
  const confirming = useConfirming(action);
  const Heading = props.level === 3 ? "h3" : "h2";
  return (
    <section class="card danger-zone" aria-labelledby={props.headingId}>
      <Heading id={props.headingId}>{props.heading}</Heading>
      <p class="muted">{props.lead}</p>
      {confirming.key ? (
        <Confirmation
          layout="panel"
          question={props.question}
          confirmLabel={props.confirmLabel}
          busyLabel={props.busyLabel}
          busy={action.busy}
          problem={action.problem}
          problemTitle={props.problemTitle}
          confirmData={props.confirmData}
          onConfirm={() => void action.run()}
          onCancel={confirming.cancel}
        >
          {props.children}
        </Confirmation>
      ) : (
        <div class="buttons">
          <button type="button" class="button button-danger" {...props.openerData} {...confirming.opener(props.name)}>
            {props.opener}
          </button>
        </div>
      )}
    </section>
  );
}

/** A row's buttons, or in their place, once one of them asks, the inline confirmation of removing the row. */
export function RowActions(props: { asking: boolean; question: string; confirmLabel: string; busyLabel: string; busy: boolean; onConfirm(): void; onCancel(): void; children: ComponentChildren }) {
  if (props.asking) {
    return <Confirmation layout="inline" question={props.question} confirmLabel={props.confirmLabel} busyLabel={props.busyLabel} busy={props.busy} onConfirm={props.onConfirm} onCancel={props.onCancel} />;
  }
  return <div class="buttons buttons-tight">{props.children}</div>;
}
