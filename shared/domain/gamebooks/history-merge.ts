import type { GamebookRunCursor } from "../../platform/store/ports";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import type { GamebookRunRecord } from "../../model/gamebooks/gamebook-run";
import type { HistoryReads } from "./history-reads";

interface Stream {
  workspace: WorkspaceRecord;
  buffer: GamebookRunRecord[];
  /** Where the workspace's next batch starts; undefined once it has no more. */
  next: GamebookRunCursor | undefined;
  batch: number;
}

/**
 * The first `count` runs after `from` in the global newest-first order of the workspaces still read,
 * and the cursor after them when more exist. Each workspace is read from `from` with a keyset page
 * (a small first batch, about twice its share); a workspace's buffer is refilled only when it runs
 * dry while its next run could still be the newest left, with a batch twice the last, so a page
 * served by one busy workspace costs a few growing queries and one served by many costs one small
 * query each. A workspace whose read fails stops contributing there: the runs it gave stay, and the
 * merge goes on with the others.
 */
export async function mergeNewestFirst(
  reads: HistoryReads,
  workspaces: readonly WorkspaceRecord[],
  from: GamebookRunCursor | undefined,
  count: number,
): Promise<{ items: GamebookRunRecord[]; next?: GamebookRunCursor }> {
  const reading = workspaces.filter((w) => reads.isIn(w));
  const firstBatch = Math.min(count + 1, Math.max(5, Math.ceil((2 * (count + 1)) / Math.max(1, reading.length))));
  const streams: Stream[] = reading.map((workspace) => ({ workspace, buffer: [], next: from, batch: firstBatch }));
  /** Reads each stream's next batch into its buffer; whether every stream was read. */
  const fill = async (batch: readonly Stream[]) => {
    const pages = await reads.each(batch.map((s) => s.workspace), (store, workspace) => {
      const stream = batch.find((s) => s.workspace === workspace)!;
      return store.list(workspace.id, reads.filter, stream.batch, stream.next);
    });
    batch.forEach((stream, i) => {
      const page = pages[i];
      if (!page) return;
      stream.buffer.push(...page.items);
      stream.next = page.next;
      stream.batch = Math.min(count + 1, stream.batch * 2);
    });
    return pages.every((p) => p !== undefined);
  };
  await fill(streams);
  let live = streams.filter((stream) => reads.isIn(stream.workspace));

  const items: GamebookRunRecord[] = [];
  // One more than asked, to know whether another page exists.
  while (items.length <= count) {
    let newest: Stream | undefined;
    for (const stream of live) {
      const head = stream.buffer[0];
      if (head && (!newest || newerThan(head, newest.buffer[0]!))) newest = stream;
    }
    if (!newest) break;
    items.push(newest.buffer.shift()!);
    if (newest.buffer.length === 0 && newest.next !== undefined && !(await fill([newest]))) {
      live = live.filter((stream) => stream !== newest);
    }
  }
  const page = items.slice(0, count);
  const last = page.at(-1);
  return { items: page, next: items.length > count && last ? { creationDate: last.creationDate, id: last.id } : undefined };
}

/** The global order: creationDate, then id, descending (as every store lists them). */
function newerThan(a: GamebookRunRecord, b: GamebookRunRecord): boolean {
  return a.creationDate !== b.creationDate ? a.creationDate > b.creationDate : a.id > b.id;
}
