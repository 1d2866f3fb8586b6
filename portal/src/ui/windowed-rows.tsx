import { Fragment, type VNode } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";

/** What a row rendered by `WindowedRows` carries: spread it on its `<tr>`. */
export interface RowPlace {
  /** The row's place among all the table's rows, the header's included (the table says how many in `aria-rowcount`). */
  "aria-rowindex": number;
  /** The row's key: what the window measures it by. */
  "data-row-key": string;
}

export interface WindowedRowsProps<T> {
  rows: readonly T[];
  /** A row's identity: stable across renders and pages (the DOM of a row kept in the window is kept). */
  rowKey(row: T): string;
  /** How many columns a row has: the stand-ins for the rows not rendered span them. */
  columns: number;
  /** One row, a `<tr>` with `place` spread on it. */
  renderRow(row: T, place: RowPlace): VNode;
  /** Rows above the body's first, the header's: `aria-rowindex` counts on from them. Default 1. */
  headerRows?: number;
  /** Rows rendered beyond each edge of the viewport, so that scrolling and Tab find them there. Default 6. */
  overscan?: number;
  /** A row's height until one is measured, in pixels. Default 56. */
  estimatedRowHeight?: number;
}

/** The rows rendered: from `start` up to (not including) `end`. */
interface Range {
  start: number;
  end: number;
}

/**
 * A table's body that renders only the rows near the viewport, however many there are: the rows
 * above and below stand in as empty rows of their height (hidden from assistive technology), so the
 * page scrolls as if every row were there and the DOM stays the same size whether one page of a
 * list was shown or fifty. The table states the whole count in `aria-rowcount` and each row its place
 * in `aria-rowindex`, so a screen reader says "row 120 of 500".
 *
 * The page itself scrolls (a table in `TableScroll` only scrolls sideways). Heights are measured as
 * rows are rendered, the others estimated from those measured. A row holding focus stays rendered
 * wherever the page scrolls, so focus is never lost; Tab moves from row to row as in any table (the
 * next rows are always rendered below the viewport, and the browser scrolls the focused one into
 * view, which moves the window along). The rows are rendered by the page (`renderRow`): their
 * checkboxes, links and state are the page's.
 */
export function WindowedRows<T>(props: WindowedRowsProps<T>) {
  const { rows, rowKey, columns } = props;
  const headerRows = props.headerRows ?? 1;
  const overscan = props.overscan ?? 6;
  const body = useRef<HTMLTableSectionElement>(null);
  // Measured heights by row key; survive renders (and the rows leaving the window).
  const heights = useRef(new Map<string, number>());
  const fallbackHeight = props.estimatedRowHeight ?? 56;
  const [range, setRange] = useState<Range>(() => ({ start: 0, end: Math.min(rows.length, initialCount(fallbackHeight, overscan)) }));
  // The key of the row holding focus: it stays rendered when the window moves away from it. Read
  // when rendering; a change alone renders nothing (the row is rendered already).
  const focused = useRef<string | undefined>(undefined);

  const estimate = () => {
    const known = heights.current;
    if (known.size === 0) return fallbackHeight;
    let sum = 0;
    for (const h of known.values()) sum += h;
    return sum / known.size;
  };
  const heightOf = (row: T, fallback: number) => heights.current.get(rowKey(row)) ?? fallback;
  /** The height of rows `from` up to `to`, whole pixels. */
  const spanHeight = (from: number, to: number, fallback: number) => {
    let height = 0;
    for (let i = from; i < to; i++) height += heightOf(rows[i]!, fallback);
    return Math.round(height);
  };

  /**
   * The rows to render now, by the body's place on the screen and the rows' heights: `current` while
   * it still holds the rows on the screen and half the overscan beyond each edge (and not twice the
   * overscan more than needed), so that a small scroll or a measurement renders nothing again; else
   * those rows and the whole overscan.
   */
  const rangeNow = (current: Range): Range => {
    const element = body.current;
    if (!element || rows.length === 0) return current;
    const top = -element.getBoundingClientRect().top;
    const bottom = top + window.innerHeight;
    const fallback = estimate();
    let y = 0;
    let first = rows.length;
    let last = rows.length;
    for (let i = 0; i < rows.length; i++) {
      const h = heightOf(rows[i]!, fallback);
      if (first === rows.length && y + h > top) first = i;
      if (y >= bottom) {
        last = i;
        break;
      }
      y += h;
    }
    first = Math.min(first, last);
    last = Math.max(last, first + 1);
    const margin = Math.ceil(overscan / 2);
    const holds = current.start <= Math.max(0, first - margin) && current.end >= Math.min(rows.length, last + margin);
    const tooMany = current.end - current.start > last - first + 4 * overscan;
    if (holds && !tooMany) return current;
    return { start: Math.max(0, first - overscan), end: Math.min(rows.length, last + overscan) };
  };

  /** Moves the window if the page or the heights moved what is on the screen; else fits the stand-ins to the heights. */
  const update = () => {
    const next = rangeNow(range);
    if (next !== range) {
      setRange(next);
      return;
    }
    const element = body.current;
    if (!element) return;
    const fallback = estimate();
    for (const tr of element.querySelectorAll<HTMLTableRowElement>(":scope > tr.window-spacer")) {
      const cell = tr.firstElementChild as HTMLElement | null;
      const height = `${spanHeight(Number(tr.dataset.from), Number(tr.dataset.to), fallback)}px`;
      if (cell && cell.style.height !== height) cell.style.height = height;
    }
  };
  // What the observers call: this render's `update`, which sees this render's rows and window.
  const latest = useRef(update);
  latest.current = update;
  const observer = useRef<ResizeObserver | undefined>(undefined);
  const observed = useRef(new Set<Element>());

  // Scrolling and resizing the window move the window, once a frame at most.
  useEffect(() => {
    let frame = 0;
    const schedule = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        latest.current();
      });
    };
    addEventListener("scroll", schedule, { passive: true });
    addEventListener("resize", schedule, { passive: true });
    return () => {
      cancelAnimationFrame(frame);
      removeEventListener("scroll", schedule);
      removeEventListener("resize", schedule);
      observer.current?.disconnect();
      observer.current = undefined;
      observed.current.clear();
    };
  }, []);

  // After every render: the rows rendered are measured as the browser lays them out (a
  // ResizeObserver: no layout forced from script), and the body too (rows added below, stand-ins
  // resized); rows gone are no longer observed.
  useLayoutEffect(() => {
    const element = body.current;
    if (!element) return;
    const sizes = (observer.current ??= new ResizeObserver((entries) => {
      for (const entry of entries) {
        const key = (entry.target as HTMLElement).dataset.rowKey;
        if (key !== undefined) heights.current.set(key, entry.target.getBoundingClientRect().height);
      }
      latest.current();
    }));
    for (const tr of observed.current) {
      if (!tr.isConnected) {
        sizes.unobserve(tr);
        observed.current.delete(tr);
      }
    }
    for (const tr of [element, ...element.querySelectorAll(":scope > tr[data-row-key]")]) {
      if (!observed.current.has(tr)) {
        sizes.observe(tr);
        observed.current.add(tr);
      }
    }
  });

  // The rows rendered: the window, and the row holding focus wherever it is.
  const start = Math.min(range.start, rows.length);
  // Rows that came after a first render with none: a screen of them until the window is measured.
  const end = range.end === 0 ? Math.min(rows.length, initialCount(fallbackHeight, overscan)) : Math.min(Math.max(range.end, start), rows.length);
  const shown: number[] = [];
  const focusedAt = focused.current === undefined ? -1 : rows.findIndex((r) => rowKey(r) === focused.current);
  if (focusedAt >= 0 && focusedAt < start) shown.push(focusedAt);
  for (let i = start; i < end; i++) shown.push(i);
  if (focusedAt >= end) shown.push(focusedAt);

  const fallback = estimate();
  const children: VNode[] = [];
  let next = 0;
  let spacers = 0;
  const spacer = (from: number, to: number, key: string = `rows-skipped-${spacers++}`) => {
    children.push(
      <tr key={key} class="window-spacer" aria-hidden="true" data-from={from} data-to={to}>
        <td colSpan={columns} style={{ height: `${spanHeight(from, to, fallback)}px` }} />
      </tr>,
    );
  };
  for (const i of shown) {
    if (i > next) spacer(next, i);
    const row = rows[i]!;
    const key = rowKey(row);
    children.push(<Fragment key={key}>{props.renderRow(row, { "aria-rowindex": headerRows + i + 1, "data-row-key": key })}</Fragment>);
    next = i + 1;
  }
  if (next < rows.length) spacer(next, rows.length, "rows-after");

  return (
    <tbody
      ref={body}
      onFocusIn={(e) => {
        focused.current = (e.target as Element).closest<HTMLTableRowElement>("tr[data-row-key]")?.dataset.rowKey;
      }}
      onFocusOut={(e) => {
        const to = e.relatedTarget as Node | null;
        if (!to || !body.current?.contains(to)) focused.current = undefined;
      }}
    >
      {children}
    </tbody>
  );
}

/** How many rows to render before anything is measured: a screen of them at the estimated height, and the overscan. */
function initialCount(rowHeight: number, overscan: number): number {
  return Math.ceil((typeof window === "undefined" ? 900 : window.innerHeight) / rowHeight) + overscan;
}
