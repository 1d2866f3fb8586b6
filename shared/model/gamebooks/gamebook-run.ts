import type { PlaybookActionKind, PlaybookEntityType } from "./playbook-catalogue-record";
import type { Source } from "../sources";
import type { ChangeOrigin } from "../events/event-types";
import type { ApprovalSide } from "./approval-sides";
import type { GamebookApprovalPolicy } from "./approval-mode";
import type { RunPreAuthorization } from "./pre-authorization-record";

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
 * Who asked for a run: a service account calling the API, a person in the portal, or the service
 * itself (an automation rule). `id` is the service account's or the person's id; for the service,
 * the GUID its audit events carry. The person who asked may never approve it.
 */
export interface RunRequester {
  kind: "ServiceAccount" | "User" | "Service";
  id: string;
  name: string;
}

/**
 * The playbook rule behind a run: the most specific title pattern of the workspace's rules that
 * matched the incident's title and recommends one of the run's playbooks, and which of the run's
 * playbooks (catalogue ids) rules with that pattern recommend.
 */
export interface RunMatchedRule {
  incidentTitle: string;
  playbookIds: string[];
}

/**
 * docs/contract.md §2.6 gamebook run, plus what the service needs to carry it out (after `playbooks`): the
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
  /**
   * Set while the run waits in the approval queue; approval clears it, and a run denied, expired or
   * cancelled in the queue keeps it (so the record says it was queued). Answers show it with
   * `Pending` only (`gamebook-views.ts`): true exactly while the run waits.
   */
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
  /** Who asked for the run; absent on runs stored before it was kept (`requesterOf` reads those). */
  requestedBy?: RunRequester;
  /** The rule that recommended the run's playbooks for the incident's title; null: none did. */
  matchedRule?: RunMatchedRule | null;
  /** The run this one retries (`isRetryGamebook`): its failed and skipped playbooks, by their sequence there. */
  retryOf?: RunLink | null;
  /** The run this one undoes (`isRecover`): the succeeded playbooks whose undo playbooks it runs, by their sequence there. */
  undoOf?: RunLink | null;
  /** Who cancelled the run, when someone did. */
  cancellation?: RunCancellation | null;
  approval: RunApproval;
  /** When the run was handed to the executor (`gamebook.run.v1`); "" while it waits for approval. */
  dispatchedAt: string;
  /** Lower-case title, incident title and submitter name, for the history's `query`. */
  searchText: string;
}

/**
 * A run made from another (a retry, an undo): the other run, and which of its playbooks (their
 * sequences there) this run's playbooks stand for, in this run's order: `sequences[i]` is the
 * original of this run's playbook `i + 1`.
 */
export interface RunLink {
  runId: string;
  sequences: number[];
}

/** A person's cancellation of a run: who, when, and why if they said. */
export interface RunCancellation {
  by: string;
  byUserId: string;
  at: string;
  reason: string | null;
}

/**
 * The approval of a run. The fields after `comment` were added with expiry and the second approver:
 * runs stored before lack them (`run-approval-rules.ts` reads those with their old meaning: no
 * expiry, one approver).
 */
export interface RunApproval {
  /** Why approval was required (`RequestedByCaller`, `WorkspacePolicy`, `PartnerApproval`); empty: it was not. */
  reasons: string[];
  /** Set when the run stops waiting: approved by enough people, or denied (by a person or by expiry). */
  decision: "Approved" | "Denied" | null;
  decidedBy: string | null;
  decidedAt: string | null;
  /** The approver's note, or the reason for a denial. */
  comment: string | null;
  /** The deciding person's id; for an expiry, the service's own. */
  decidedByUserId?: string | null;
  /** When the request is denied if nobody has decided it; null when the run never waited. */
  expiresAt?: string | null;
  /** How many different people must approve it (1 or 2), as the policy said when it started waiting; 0: it never waited. */
  requiredApprovals?: number;
  /** The approvals given so far, in order; the run is dispatched with the last one needed. */
  approvals?: RunApprovalEntry[];
  /**
   * The sides that must each give an approval (`approval-sides.ts`): the provider's when its partner
   * setting made the run wait, both under a two-sided policy. Absent on runs recorded before sides
   * were: read with `requiredSidesOf`.
   */
  requiredSides?: ApprovalSide[];
  /**
   * The workspace's policy the request was made under, whole: a later change of the policy applies to
   * new requests only. Absent on runs that never waited, and on those recorded before it was kept
   * (their terms above stand for it).
   */
  policy?: GamebookApprovalPolicy;
  /** The standing pre-authorization that waived the workspace's policy for this run, when one did. */
  preAuthorization?: RunPreAuthorization;
  /** True when the denial was the expiry's. */
  expired?: boolean;
}

/** One person's approval of a run. */
export interface RunApprovalEntry {
  by: string;
  byUserId: string;
  /** The side the person approved for; absent on approvals recorded before sides were. */
  side?: ApprovalSide;
  at: string;
  comment: string | null;
}

/** docs/contract.md §2.6 playbook entry, plus how the executor carries it out (after `parameters`). */
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

/**
 * The other message of the `gamebook-runs` queue: an incident arrived whose title matches automation
 * rules; submit their run (`auto-run.ts`). Committed with the incident's arrival, so none is lost;
 * the run's id derives from the incident, so a redelivery submits nothing twice.
 */
export interface AutoRunMessage {
  kind: "autoRun";
  workspaceId: string;
  source: Source;
  incidentId: string;
}

/** What the `gamebook-runs` queue carries. A message without `kind` is a playbook's (the older form). */
export type GamebookRunsMessage = GamebookRunMessage | AutoRunMessage;
