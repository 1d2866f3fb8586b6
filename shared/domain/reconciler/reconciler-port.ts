import { createHash } from "node:crypto";
import type { MessageHandler, OutgoingMessage } from "../../platform/queue/queue";

/**
 * A message on the `reconcile` queue: reconcile a batch of workspaces, as part of one pass. A batch
 * saves the queue's operations and the workers' executions (one per batch, not per workspace); the
 * work stays per workspace: each has its own watermarks, result and lag.
 */
export interface ReconcileMessage {
  workspaceIds: string[];
  /** The pass it belongs to: in Azure the timer's minute, so a doubled timer enqueues nothing twice. */
  passId: string;
  /** When the pass began: how long a message waited is part of the reconciler's lag. */
  passStartedAt: string;
  /** A workspace re-sent on its own after its share of a batch failed; a retry is not retried. */
  retry?: boolean;
}

/** One workspace's share of a pass, as its batch's worker hands it to `reconcileWorkspace`. */
export interface WorkspaceShare {
  workspaceId: string;
  passId: string;
  passStartedAt: string;
}

/** The workspaces a message names; one that names a single `workspaceId` is a batch of one. */
export function workspacesOf(body: ReconcileMessage | { workspaceId?: unknown }): string[] {
  if ("workspaceIds" in body && Array.isArray(body.workspaceIds)) return body.workspaceIds;
  return "workspaceId" in body && typeof body.workspaceId === "string" ? [body.workspaceId] : [];
}

/**
 * The message id: duplicate detection drops a second message for the same batch of the same pass
 * (a doubled timer), and a second retry of a workspace (a batch delivered twice).
 */
export function outgoingReconcile(message: ReconcileMessage): OutgoingMessage<ReconcileMessage> {
  const ids = message.workspaceIds;
  const key = message.retry ? `retry:${ids[0]}` : createHash("sha256").update(ids.join("\n")).digest("base64url").slice(0, 22);
  return { messageId: `reconcile:${message.passId}:${key}`, body: message };
}

/** Splits a pass's workspaces into batches, in id order so that a doubled timer makes the same ones. */
export function reconcileBatches(workspaceIds: readonly string[], size: number): string[][] {
  const sorted = [...workspaceIds].sort();
  const batches: string[][] = [];
  for (let i = 0; i < sorted.length; i += size) batches.push(sorted.slice(i, i + size));
  return batches;
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
  /**
   * A source failed with a `Retry-After` (the vendor's, or its circuit breaker's while open): asked to
   * wait, the workspace is left to the next pass rather than re-sent at once.
   */
  heldBack?: boolean;
}

/** Counts that add up over the workspaces of a pass. */
export type Tally = Pick<WorkspaceResult, "incidentsSeen" | "created" | "closed" | "updated" | "deleted" | "baselined" | "vendorCalls" | "eventsPublished">;

/** A pass over every workspace, as its results came in. */
export interface PassSummary extends Tally {
  passId: string;
  workspaces: number;
  /** `reconcile` messages the pass took: its batches and the retries of workspaces that failed in them. */
  messages: number;
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
  /** The batches enqueued: one `reconcile` message each. */
  messages: number;
}

/** Reconciler passes, fanned out in batches of workspaces on the `reconcile` queue (see `ReconcileRunner`). */
export interface Reconciler {
  /** Enqueues one message per batch of workspaces (the timer). */
  startPass(passId?: string): Promise<PassStart>;
  /** The `reconcile` queue's handler: one batch of workspaces, reconciled concurrently. */
  readonly handler: MessageHandler<ReconcileMessage>;
  /** One complete pass, waited for (the local host, where the queue's workers run in-process). */
  runPass(): Promise<PassSummary>;
}
