import type { ComponentChildren, JSX } from "preact";
import { useEffect, useRef } from "preact/hooks";

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

/** A region that scrolls sideways on a narrow screen rather than squeezing its table. */
export function TableScroll(props: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-scroll" role="region" aria-label={props.label} tabIndex={0}>
      {props.children}
    </div>
  );
}

/**
 * A list's table in its sideways-scrolling region: a heading a column (a column whose entry is false is
 * left out, for one only some people see), then the rows, which the caller gives. The table's own
 * attributes (class, aria-labelledby) pass through; a caption is for screen readers only.
 */
export function DataTable(props: Omit<JSX.HTMLAttributes<HTMLTableElement>, "label"> & { label: string; columns: ComponentChildren[]; caption?: ComponentChildren; children: ComponentChildren }) {
  const { label, columns, caption, children, ...table } = props;
  return (
    <TableScroll label={label}>
      <table {...table}>
        {caption && <caption class="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns
              .filter((c) => c !== false && c != null)
              .map((c, i) => (
                <th scope="col" key={i}>
                  {c}
                </th>
              ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </TableScroll>
  );
}

export function Empty(props: { children: ComponentChildren }) {
  return <p class="empty">{props.children}</p>;
}
