import type { ComponentChildren, JSX } from "preact";
import { useEffect, useState } from "preact/hooks";

/** The page's own paths: `/portal/…`. Views are chosen from the path, so links and reloads land where they were. */
export const BASE = "/portal";

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  dispatchEvent(new PopStateEvent("popstate"));
}

/** The current location (path and query), updated on navigation. */
export function useLocation(): URL {
  const [href, setHref] = useState(location.href);
  useEffect(() => {
    const update = () => setHref(location.href);
    addEventListener("popstate", update);
    return () => removeEventListener("popstate", update);
  }, []);
  return new URL(href);
}

/** A link inside the page: navigates without reloading, unless the person asks for a new tab. */
export function Link(props: { href: string; children: ComponentChildren; class?: string; "aria-current"?: JSX.AriaAttributes["aria-current"] }) {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(props.href);
  };
  return (
    <a href={props.href} class={props.class} aria-current={props["aria-current"]} onClick={onClick}>
      {props.children}
    </a>
  );
}

/** Matches a path against a pattern with `:name` segments. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split("/").filter(Boolean);
  const got = path.split("/").filter(Boolean);
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = decodeURIComponent(got[i]!);
    if (w.startsWith(":")) params[w.slice(1)] = g;
    else if (w !== g) return undefined;
  }
  return params;
}
