import type { MessageHandler, OutgoingMessage } from "../../platform/queue/queue";

/** A message on the `reconcile` queue: reconcile one workspace, as part of one pass. */
export interface ReconcileMessage {
  workspaceId: string;
  /** The pass it belongs to: in Azure the timer's minute, so a doubled timer enqueues nothing twice. */
  passId: string;
  /** When the pass began: how long a message waited is part of the reconciler's lag. */
  passStartedAt: string;
}

/** The message id: duplicate detection drops a second message for the same workspace and pass. */
export function outgoingReconcile(message: ReconcileMessage): OutgoingMessage<ReconcileMessage> {
  return { messageId: `reconcile:${message.workspaceId}:${message.passId}`, body: message };
}

/** What one workspace's share of a pass did. */
export interface WorkspaceResult {
  workspaceId: string;
  /** `failed`: a source or the store failed; the next pass covers what this one did not. */
  outcome: "done" | "failed" | "missing";
  incidentsSeen: number;
  created: number;
  closed: number;
  updated: number;
  deleted: number;
  baselined: number;
  vendorCalls: number;
  eventsPublished: number;
  /** Writes to the reconciler's own document (baseline, watermarks): 0 on a pass where nothing changed. */
  watermarkWrites: number;
  /** Up to when every polled source of the workspace is known to be reflected in the service's state. */
  coveredThrough: string | null;
  error?: string;
}

/** Counts that add up over the workspaces of a pass. */
export type Tally = Pick<WorkspaceResult, "incidentsSeen" | "created" | "closed" | "updated" | "deleted" | "baselined" | "vendorCalls" | "eventsPublished">;

/** A pass over every workspace, as its results came in. */
export interface PassSummary extends Tally {
  passId: string;
  workspaces: number;
  /** Workspaces whose share stopped on an error; the next pass covers them again. */
  failed: number;
  /** Writes to the reconcilers' own documents; 0 for a pass in which no window held anything. */
  watermarkWrites: number;
  durationMs: number;
  /** How far behind the most-behind workspace is: now minus the oldest time covered. */
  lagMs: number;
  /** Workspaces behind by more than two reconcile intervals. */
  workspacesBehind: number;
}

export interface PassStart {
  passId: string;
  startedAt: Date;
  workspaceIds: string[];
}

/** Reconciler passes, fanned out per workspace on the `reconcile` queue (see `ReconcileRunner`). */
export interface Reconciler {
  /** Enqueues one message per workspace (the timer). */
  startPass(passId?: string): Promise<PassStart>;
  /** The `reconcile` queue's handler: one workspace. */
  readonly handler: MessageHandler<ReconcileMessage>;
  /** One complete pass, waited for (the local host, where the queue's workers run in-process). */
  runPass(): Promise<PassSummary>;
}
