import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { exactTime, relativeTime } from "../time-format";

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
