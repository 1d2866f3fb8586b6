import { z } from "zod";
import { sources } from "../../model/sources";
import { gamebookRunStatuses, playbookStatuses, type GamebookRunRecord, type PlaybookEntryRecord } from "../../model/gamebooks/gamebook-run";
import { playbookEntityTypes } from "../../model/gamebooks/playbook-catalogue-record";

/**
 * What the API shows of gamebook runs (docs/contract.md §2.6) and playbook rules (§2.7): the contract's fields,
 * never the service's bookkeeping beside them.
 */

const timestampOrEmpty = (what: string) => z.string().describe(`${what} (ISO 8601 UTC); "" until it happens.`);

export const RUN_STATES_DESCRIPTION = [
  "Run status: `Pending` (not started: waiting for approval while `isQueued` is true, otherwise dispatched and waiting for the executor), `Running`, then `Succeeded`, `PartiallySucceeded` (a playbook failed after another had succeeded), `Failed` (a playbook failed before any succeeded), `Denied` (approval refused, or the request for approval expired unanswered) or `Cancelled`.",
  "Transitions: submitted → `Pending` (`isQueued` true when approval is required, false when dispatched, with `gamebook.run.v1`); approved (by every approver the workspace requires) → `Pending`, `isQueued` false, dispatched; denied or expired → `Denied`; the executor starts the first playbook → `Running`; the last playbook succeeds → `Succeeded`; a playbook fails → `Failed` or `PartiallySucceeded`, and the playbooks after it are `Skipped`; cancelled by a person in the portal (waiting, dispatched or running) → `Cancelled`, the playbooks not started `Skipped` (one already running still records its outcome). The final statuses never change.",
  "Playbook status: `Pending`, `Running`, `Succeeded`, `Failed`, `Skipped`.",
].join(" ");

export const playbookEntryView = z
  .object({
    id: z.string().describe("The entry's id: the step id the automation backend sees (derived from the run and the sequence)."),
    referenceId: z.string().describe("The catalogue playbook the run named (`playbooks[i].id` of the run request, `playbookId` of a rule)."),
    entityId: z.string().describe("The incident entity it acts on; the incident's id for a playbook on the incident itself."),
    name: z.string(),
    description: z.string(),
    affectedEntity: z.string().describe("What it acts on: the UPN, host name, address, domain, URL, mailbox or file name."),
    tracingId: z.string().describe("The run's tracing id."),
    userObjectId: z.string().describe("The directory object id of a user entity; \"\" otherwise."),
    userPrincipalName: z.string().describe("The UPN of a user or mailbox entity; \"\" otherwise."),
    internetMessageId: z.string().describe("The message id of a mailbox entity, when known; \"\" otherwise."),
    entityType: z.enum(playbookEntityTypes).describe("What the playbook acts on (`User` is a directory account; `Incident` the incident itself)."),
    isRecommended: z.boolean(),
    isAdminRequired: z.boolean(),
    status: z.enum(playbookStatuses).describe("`Pending`, `Running`, `Succeeded`, `Failed`, `Skipped`."),
    errorMessage: z.string().describe("Why it failed, from the automation; \"\" unless it failed."),
    sequence: z.int(),
    modificationDate: z.string().describe("Last change (ISO 8601 UTC)."),
    startingDate: timestampOrEmpty("When it started"),
    finishingDate: timestampOrEmpty("When it finished"),
    executionTime: z.string().describe('How long the action ran, `hh:mm:ss` with `.fff` when there are milliseconds; "" until it finishes.'),
    parameters: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).describe("The parameters it runs with (declared defaults filled in)."),
  })
  .describe("A playbook of a gamebook run.");

export const gamebookRunView = z
  .object({
    id: z.string().describe("The run's id."),
    tracingId: z.string().describe("Trace id of the submission: the `meta.requestId` of the run call."),
    incidentId: z.string(),
    source: z.enum(sources),
    incidentTitle: z.string(),
    incidentNumber: z.int(),
    isOcr: z.boolean(),
    isRecover: z.boolean().describe("The run undoes what another did (asked for in the portal), or every playbook of it undoes another (releases a host, unblocks an address)."),
    isAdminRequired: z.boolean().describe("A playbook of the run needs an administrator."),
    isAutoRun: z.boolean().describe("Started by an automation rule on the incident's arrival rather than by a caller."),
    isRetryGamebook: z.boolean().describe("A retry of another run's failed and skipped playbooks, asked for in the portal."),
    isQueued: z.boolean().describe("True exactly while the run waits for portal approval."),
    triggedByUserId: z
      .string()
      .describe(
        "Who asked for the run (spelled as the contract spells it): the service account that submitted it, the person's user id for a run asked for in the portal, or the service's own id for an automation rule's run.",
      ),
    displayName: z.string().describe("Their name (\"Automation rule\" for an automation rule's run)."),
    modificationDate: z.string(),
    creationDate: z.string(),
    status: z.enum(gamebookRunStatuses).describe(RUN_STATES_DESCRIPTION),
    title: z.string().describe("The gamebook's title, or the playbooks' names for a run that is no catalogue gamebook."),
    summary: z.string().describe("Where the run stands, in words."),
    workspaceId: z.string(),
    workspaceName: z.string(),
    tenantId: z.string(),
    originalGamebookId: z.string().describe("The catalogue gamebook the playbooks are; \"\" when they are none."),
    originalGamebookTitle: z.string(),
    playbooks: z.array(playbookEntryView).describe("In sequence order."),
  })
  .describe("A gamebook run.");

export type GamebookRunView = z.output<typeof gamebookRunView>;
export type PlaybookEntryView = z.output<typeof playbookEntryView>;

export function toPlaybookEntryView(entry: PlaybookEntryRecord): PlaybookEntryView {
  return {
    id: entry.id,
    referenceId: entry.referenceId,
    entityId: entry.entityId,
    name: entry.name,
    description: entry.description,
    affectedEntity: entry.affectedEntity,
    tracingId: entry.tracingId,
    userObjectId: entry.userObjectId,
    userPrincipalName: entry.userPrincipalName,
    internetMessageId: entry.internetMessageId,
    entityType: entry.entityType,
    isRecommended: entry.isRecommended,
    isAdminRequired: entry.isAdminRequired,
    status: entry.status,
    errorMessage: entry.errorMessage,
    sequence: entry.sequence,
    modificationDate: entry.modificationDate,
    startingDate: entry.startingDate,
    finishingDate: entry.finishingDate,
    executionTime: entry.executionTime,
    parameters: { ...entry.parameters },
  };
}

export function toGamebookRunView(run: GamebookRunRecord): GamebookRunView {
  return {
    id: run.id,
    tracingId: run.tracingId,
    incidentId: run.incidentId,
    source: run.source,
    incidentTitle: run.incidentTitle,
    incidentNumber: run.incidentNumber,
    isOcr: run.isOcr,
    isRecover: run.isRecover,
    isAdminRequired: run.isAdminRequired,
    isAutoRun: run.isAutoRun,
    isRetryGamebook: run.isRetryGamebook,
    // The record keeps the flag of a run denied, expired or cancelled in the queue; the answer says "waiting now".
    isQueued: run.status === "Pending" && run.isQueued,
    triggedByUserId: run.triggedByUserId,
    displayName: run.displayName,
    modificationDate: run.modificationDate,
    creationDate: run.creationDate,
    status: run.status,
    title: run.title,
    summary: run.summary,
    workspaceId: run.workspaceId,
    workspaceName: run.workspaceName,
    tenantId: run.tenantId,
    originalGamebookId: run.originalGamebookId,
    originalGamebookTitle: run.originalGamebookTitle,
    playbooks: [...run.playbooks].sort((a, b) => a.sequence - b.sequence).map(toPlaybookEntryView),
  };
}

/** docs/contract.md §4.1 rule 3: the answer to a run request. */
export const runSubmittedView = z
  .object({
    id: z.string().describe("The run's id: poll `/gamebooks/history/{id}/playbooks` or `by-incident` with `gamebooks:read`."),
    status: z.enum(gamebookRunStatuses).describe("`Pending`: waiting for approval when `isQueued` is true, otherwise dispatched."),
    isQueued: z.boolean().describe("True: the run awaits portal approval and nothing has executed."),
  })
  .describe("The submitted run.");

export const playbookRuleView = z
  .object({
    playbookId: z.string().describe("The playbook to name as `playbooks[i].id` of a run."),
    playbookName: z.string(),
    playbookDescription: z.string(),
    incidentTitle: z.string().describe("The rule's title pattern: the whole title, case-insensitive, `*` for any run of characters."),
    entity: z.string().describe("The playbook's entity type (`User`, `Host`, `Ip`, `Domain`, `Url`, `Mailbox`, `File`, `Process`, `Incident`)."),
    sentinelEntities: z.array(z.string()).describe("The incident entity kinds it acts on (`Account` for `User`)."),
    recoverPlaybookId: z.string().describe("The playbook that undoes it; \"\" when none."),
    isAdminRequired: z.boolean(),
  })
  .describe("A playbook rule.");
