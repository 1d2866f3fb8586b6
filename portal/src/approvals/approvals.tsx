import { useEffect, useRef, useState } from "preact/hooks";
import { ShowMore } from "../ui/paging";
import { Empty, PageHeader, ProblemBanner, RefreshButton, useAction, useInterval, useResource } from "../ui";
import { ApprovalCard } from "./approval-card";
import { ApprovalRequest, readQueue, readOne } from "./approval-requests";

/** How often the queue is read again, so that requests decided elsewhere or expired update in place. */
const REFRESH_MS = 15_000;

/**
 * The approval queue: every run waiting for the person's decision, soonest to expire first. Entries
 * that left the queue since it was read (decided elsewhere, expired, approved here and dispatched)
 * stay where they were and show how they ended, rather than vanishing under the reader.
 */
export function ApprovalsPage() {
  const queue = useResource(() => readQueue(), []);
  const [entries, setEntries] = useState<ApprovalRequest[]>([]);
  const [more, setMore] = useState<string | undefined>(undefined);
  const known = useRef(new Map<string, ApprovalRequest>());

  useEffect(() => {
    const page = queue.value;
    if (!page) return;
    const fresh = new Map(page.data.map((r) => [r.runId, r]));
    const gone = [...known.current.values()].filter((r) => !fresh.has(r.runId) && r.awaitingDecision);
    // Those that left the queue are read one by one to show their outcome in place; one that cannot be
    // read now stays as it was shown, and is read again on the next refresh.
    void Promise.all(gone.map((r) => readOne(r.workspace.id, r.runId).catch(() => r))).then((ended) => {
      for (const r of ended) fresh.set(r.runId, r);
      const order = [...known.current.keys(), ...page.data.map((r) => r.runId)];
      const next = [...new Set(order)].map((id) => fresh.get(id) ?? known.current.get(id)!).filter(Boolean);
      known.current = new Map(next.map((r) => [r.runId, r]));
      setEntries(next);
    });
    setMore(page.pagination?.continuationToken);
  }, [queue.value]);

  useInterval(() => void queue.reload(), REFRESH_MS);

  const replace = (updated: ApprovalRequest) => {
    known.current.set(updated.runId, updated);
    setEntries((list) => list.map((r) => (r.runId === updated.runId ? updated : r)));
  };

  const loadMore = useAction(async () => {
    const page = await readQueue(more);
    for (const r of page.data) known.current.set(r.runId, r);
    setEntries([...known.current.values()]);
    setMore(page.pagination?.continuationToken);
  });

  const waiting = entries.filter((r) => r.awaitingDecision).length;
  return (
    <section>
      <PageHeader title="Approval queue">
        <RefreshButton busy={queue.loading} onRefresh={() => void queue.reload()} />
      </PageHeader>
      <p class="lead">
        Gamebook runs waiting for a decision in the workspaces you decide in, soonest to expire first. The queue refreshes every {REFRESH_MS / 1000} seconds.
      </p>
      <ProblemBanner problem={queue.problem} />
      <p aria-live="polite" class="muted">
        {queue.value ? `${waiting} waiting for a decision` : ""}
      </p>
      {queue.value && entries.length === 0 && <Empty>Nothing is waiting for your decision.</Empty>}
      <ol class="cards" aria-label="Approval requests">
        {entries.map((r) => (
          <li key={r.runId}>
            <ApprovalCard request={r} onChange={replace} />
          </li>
        ))}
      </ol>
      <ShowMore more={!!more} action={loadMore} />
    </section>
  );
}

