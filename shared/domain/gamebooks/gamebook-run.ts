import type { PlaybookActionKind, PlaybookEntityType } from "./playbook-catalogue-record";
import type { Source } from "../sources";
import type { ChangeOrigin } from "../../platform/events/event-types";

/**
 * Run statuses (docs/decisions.md, Gamebooks). The contract shows only `Pending`; the others follow
 * StackStorm, Cortex XSOAR and Logic Apps.
 */
export const gamebookRunStatuses = ["Pending", "Running", "Succeeded", "PartiallySucceeded", "Failed", "Denied", "Cancelled"] as const;

export type GamebookRunStatus = (typeof gamebookRunStatuses)[number];

export const playbookStatuses = ["Pending", "Running", "Succeeded", "Failed", "Skipped"] as const;

export type PlaybookStatus = (typeof playbookStatuses)[number];

/** Who submitted a run, as its executor acts for them (an `Actor` of origin `api`, or the service's own). */
export interface RunSubmitter {
  origin: ChangeOrigin["origin"];
  serviceAccountId: string | null;
  name: string;
  accountId: string | null;
}

/**
 * Contract 2.6 gamebook run, plus what the service needs to carry it out (after `playbooks`): the
 * API shows the contract's fields only. Partitioned by workspace, beside the outbox records
 * committed with it.
 */
export interface GamebookRunRecord {
  id: string;
  tracingId: string;
  incidentId: string;
  source: Source;
  incidentTitle: string;
  incidentNumber: number;
  isOcr: boolean;
  isRecover: boolean;
  isAdminRequired: boolean;
  isAutoRun: boolean;
  isRetryGamebook: boolean;
  /** True exactly while the run waits in the approval queue. */
  isQueued: boolean;
  triggedByUserId: string;
  displayName: string;
  modificationDate: string;
  creationDate: string;
  status: GamebookRunStatus;
  title: string;
  summary: string;
  workspaceId: string;
  workspaceName: string;
  tenantId: string;
  /** The catalogue gamebook the playbooks are, when they are one; "" otherwise. */
  originalGamebookId: string;
  originalGamebookTitle: string;
  playbooks: PlaybookEntryRecord[];
  /** The workspace's account: its webhooks (and its provider's) get the run's event. */
  accountId: string;
  submitter: RunSubmitter;
  approval: RunApproval;
  /** When the run was handed to the executor (`gamebook.run.v1`); "" while it waits for approval. */
  dispatchedAt: string;
  /** Lower-case title, incident title and submitter name, for the history's `query`. */
  searchText: string;
}

export interface RunApproval {
  /** Why approval was required (`RequestedByCaller`, `WorkspacePolicy`, `PartnerApproval`); empty: it was not. */
  reasons: string[];
  decision: "Approved" | "Denied" | null;
  decidedBy: string | null;
  decidedAt: string | null;
  /** The approver's note, or the reason for a denial. */
  comment: string | null;
}

/** Contract 2.6 playbook entry, plus how the executor carries it out (after `parameters`). */
export interface PlaybookEntryRecord {
  /** The step id (`playbookStepId(runId, sequence)`): also the automation's idempotency key. */
  id: string;
  /** The catalogue playbook the run named (`playbooks[i].id` of the request, `playbookId` of a rule). */
  referenceId: string;
  entityId: string;
  name: string;
  description: string;
  affectedEntity: string;
  tracingId: string;
  userObjectId: string;
  userPrincipalName: string;
  internetMessageId: string;
  entityType: PlaybookEntityType;
  isRecommended: boolean;
  isAdminRequired: boolean;
  status: PlaybookStatus;
  /** "" unless the playbook failed. */
  errorMessage: string;
  sequence: number;
  modificationDate: string;
  /** "" until it starts. */
  startingDate: string;
  /** "" until it finishes. */
  finishingDate: string;
  /** `hh:mm:ss[.fff]`; "" until it finishes. */
  executionTime: string;
  parameters: Record<string, string | number | boolean>;
  action: PlaybookActionKind;
  /** The automation's name for the action (`reset-password`): the catalogue playbook's `referenceId`. */
  actionName: string;
}

/**
 * A message on the `gamebook-runs` queue: carry out playbook `sequence` of this run (again, after a
 * crash: it resumes). Each message carries out one playbook, and the record of its outcome commits
 * the message for the next, so no invocation outlives one playbook.
 */
export interface GamebookRunMessage {
  workspaceId: string;
  runId: string;
  sequence: number;
  /** 1 for the first try; a retry after the automation backend could not be reached counts up. */
  attempt: number;
}
