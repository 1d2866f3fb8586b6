import type { ChangeOrigin } from "../events/event-types";
import { automationEntityTypes } from "../playbook-actions/playbook-action-port";
import type { Source } from "../sources/source";

/**
 * The gamebook documents the service keeps (a workspace's playbook catalogue, its runs) and the
 * message that starts a run's executor. The rules about them live in `shared/gamebooks/`; their
 * shapes live here, below every endpoint group, because the stores hold them.
 */

/**
 * Run statuses (docs/decisions.md, Gamebooks). The contract shows only `Pending`; the others follow
 * StackStorm, Cortex XSOAR and Logic Apps.
 */
export const gamebookRunStatuses = ["Pending", "Running", "Succeeded", "PartiallySucceeded", "Failed", "Denied", "Cancelled"] as const;
export type GamebookRunStatus = (typeof gamebookRunStatuses)[number];

export const playbookStatuses = ["Pending", "Running", "Succeeded", "Failed", "Skipped"] as const;
export type PlaybookStatus = (typeof playbookStatuses)[number];

/**
 * Who must approve a run (approval-policy.ts): `AllRuns`, only runs with a playbook that needs an
 * administrator (`AdminRequiredPlaybooks`), or nobody (`NoApproval`).
 */
export const approvalModes = ["NoApproval", "AdminRequiredPlaybooks", "AllRuns"] as const;
export type ApprovalMode = (typeof approvalModes)[number];

/** A service provider's approval setting for the accounts it manages (kept on the provider's account). */
export interface PartnerApprovalRecord {
  mode: ApprovalMode;
  /** The managed accounts it covers; empty means every account the provider manages. */
  accountIds: string[];
}

/** Contract 2.6 `entityType`: the automation entity types, plus `Incident` for actions on the incident. */
export const playbookEntityTypes = [...automationEntityTypes, "Incident"] as const;
export type PlaybookEntityType = (typeof playbookEntityTypes)[number];

/**
 * Who carries a playbook out. `automation` steps go to the playbook-action port; the two incident
 * actions go through the service's own incident paths (a comment is `incident.comment.added.v1`, a
 * close the status events), so that a gamebook's changes look like every other change.
 */
export const playbookActionKinds = ["automation", "incident.comment", "incident.close"] as const;
export type PlaybookActionKind = (typeof playbookActionKinds)[number];

/**
 * The parameters a playbook declares; a run may pass only these, each of its kind
 * (`gamebooks/playbook-parameters.ts` checks them).
 */
export type PlaybookParameter =
  | { name: string; kind: "string"; description: string; required: boolean; maxLength: number; default?: string }
  | { name: string; kind: "enum"; description: string; required: boolean; values: readonly string[]; default?: string }
  | { name: string; kind: "boolean"; description: string; required: boolean; default?: boolean }
  | { name: string; kind: "integer"; description: string; required: boolean; min: number; max: number; default?: number };

export interface CataloguePlaybook {
  /** Unique in the workspace; what a run names as `playbooks[i].id`. */
  id: string;
  workspaceId: string;
  /** The automation's own name for the action, the same in every workspace (`reset-password`). */
  referenceId: string;
  name: string;
  description: string;
  entityType: PlaybookEntityType;
  action: PlaybookActionKind;
  /** Running it needs an administrator: it can trigger an approval (approval-policy.ts). */
  isAdminRequired: boolean;
  /** Offered first to analysts; undo playbooks are not. */
  isRecommended: boolean;
  /** The playbook that undoes this one (release an isolated host), in the same workspace; null when none. */
  recoverPlaybookId: string | null;
  /** What a run may pass in `parameters`; anything else is refused. */
  parameters: readonly PlaybookParameter[];
}

export interface Gamebook {
  id: string;
  workspaceId: string;
  title: string;
  description: string;
  /** In running order: sequences 1..N. */
  playbooks: readonly { playbookId: string; sequence: number }[];
}

/** A stored rule: "for incidents titled like this, recommend that playbook" (title-pattern.ts). */
export interface PlaybookRuleDefinition {
  workspaceId: string;
  /** A title pattern: exact and case-insensitive, `*` for any run of characters. */
  incidentTitle: string;
  playbookId: string;
}

/** One workspace's playbooks, gamebooks and rules: one small document, read whole by every run. */
export interface PlaybookCatalogueRecord {
  /** Always `playbook-catalogue`: one per workspace partition. */
  id: string;
  workspaceId: string;
  playbooks: CataloguePlaybook[];
  gamebooks: Gamebook[];
  rules: PlaybookRuleDefinition[];
  updatedAt: string;
}

export const PLAYBOOK_CATALOGUE_ID = "playbook-catalogue";

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
