import { useEffect, useState } from "preact/hooks";
import { ProblemBanner, useAction, useResource, type Action, type Resource } from "./";

/** A page of a list as the API answers it: the entries, and the token of the next page while there is one. */
export interface ListPage<T> {
  data: T[];
  pagination?: { continuationToken?: string };
}

/**
 * A list read a page at a time: the first page when `deps` change, then `loadMore` appends the next
 * while the last page gave a token. `read` answers undefined where there is nothing to read (the
 * person may not), and the list stays empty.
 */
export function usePages<T>(
  read: (continuationToken?: string) => Promise<ListPage<T> | undefined>,
  deps: unknown[],
): { first: Resource<ListPage<T> | undefined>; items: T[]; more: string | undefined; loadMore: Action } {
  const first = useResource(() => read(), deps);
  const [items, setItems] = useState<T[]>([]);
  const [more, setMore] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!first.value) return;
    setItems(first.value.data);
    setMore(first.value.pagination?.continuationToken);
  }, [first.value]);
  const loadMore = useAction(async () => {
    const page = await read(more);
    if (!page) return;
    setItems((before) => [...before, ...page.data]);
    setMore(page.pagination?.continuationToken);
  });
  return { first, items, more, loadMore };
}

/** "Show more" under a list while there is more, with the problem of the last try above it. */
export function ShowMore(props: { more: boolean; action: Action }) {
  const { action } = props;
  return (
    <>
      <ProblemBanner problem={action.problem} />
      {props.more && (
        <button type="button" class="button button-secondary" disabled={action.busy} onClick={() => void action.run()}>
          {action.busy ? "Loading…" : "Show more"}
        </button>
      )}
    </>
  );
}
