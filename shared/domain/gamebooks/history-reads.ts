import { ApiError, isApiError } from "../../platform/errors/api-error";
import type { PagingContext } from "../../platform/http/paging";
import type { Uses } from "../operation-context";
import type { GamebookRunFilter, GamebookRunStore } from "../../platform/store/ports";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { settleWithin, type Settled } from "../../platform/concurrency/settle-within";
import { isTransient, unavailableOf, type Unavailable } from "../../platform/http/partial-results";

/**
 * A run history's reader: a service account (the contract's history routes) or a person (the
 * portal's), whose page tokens are bound to them.
 */
export type HistoryContext = Uses<"stores" | "config"> & PagingContext;

/** Workspace queries in flight at once for one request. */
const QUERY_CONCURRENCY = 16;

/**
 * The store reads of one cross-workspace history request, with one filter: every read of every
 * workspace answers within the request's budget (`CROSS_WORKSPACE_BUDGET_MS`, from the request's
 * first read). A workspace whose read fails with an upstream's problem (`UPSTREAM_ERROR`, `TIMEOUT`,
 * `RATE_LIMITED`), or does not answer within the budget, is out for the rest of the request and
 * reported once; any other failure is the request's own and fails it.
 */
export class HistoryReads {
  readonly unavailable: Unavailable[] = [];
  private readonly out = new Set<string>();
  private readonly budgetMs: number;
  private readonly deadline: number;

  constructor(
    private readonly ctx: HistoryContext,
    readonly filter: GamebookRunFilter,
  ) {
    this.budgetMs = ctx.config.crossWorkspaceBudgetMs;
    this.deadline = Date.now() + this.budgetMs;
  }

  /** Whether the workspace is still read in this request. */
  isIn(workspace: WorkspaceRecord): boolean {
    return !this.out.has(workspace.id);
  }

  /**
   * One read per workspace, at most QUERY_CONCURRENCY at once: the answers in the workspaces'
   * order, undefined for each workspace whose read failed (it is out from then on).
   */
  async each<T>(workspaces: readonly WorkspaceRecord[], read: (store: GamebookRunStore, workspace: WorkspaceRecord) => Promise<T>): Promise<(T | undefined)[]> {
    const store = this.ctx.stores.gamebookRuns;
    const remainingMs = Math.max(0, this.deadline - Date.now());
    const settled = await settleWithin(workspaces, QUERY_CONCURRENCY, { totalMs: remainingMs }, (workspace) => read(store, workspace), this.ctx.signal);
    return settled.map((answer, i) => {
      if (answer.status === "fulfilled") return answer.value;
      const workspace = workspaces[i]!;
      this.out.add(workspace.id);
      this.unavailable.push(unavailableOf(workspace, this.failureOf(workspace, answer)));
      return undefined;
    });
  }

  private failureOf(workspace: WorkspaceRecord, answer: Exclude<Settled<unknown>, { status: "fulfilled" }>): ApiError {
    if (answer.status !== "rejected") {
      return new ApiError("TIMEOUT", `The runs of workspace ${workspace.id} were not read within this request's budget of ${this.budgetMs} ms.`);
    }
    if (!isApiError(answer.reason) || !isTransient(answer.reason)) throw answer.reason;
    return answer.reason;
  }
}
