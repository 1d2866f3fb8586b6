import type { Source } from "../sources";

/** The reconciler's bookkeeping for one workspace. */
export interface ReconcilerStateRecord {
  /** The workspace id. */
  id: string;
  workspaceId: string;
  /**
   * When the reconciler first looked at the workspace: incidents created before it were there
   * already and are recorded without an `incident.created.v1`.
   */
  baselineAt: string;
  /**
   * Whether the incidents open at the baseline have been recorded, so that a later close of one of
   * them in the vendor console is recognised as a close.
   */
  baselineRecorded: boolean;
  /** Per source: the end of the last completed window; the next starts at it minus the overlap. */
  watermarks: Partial<Record<Source, string>>;
}
