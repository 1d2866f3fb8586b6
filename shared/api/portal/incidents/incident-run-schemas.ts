import { z } from "zod";
import { gamebookRunStatuses, playbookStatuses } from "../../../model/gamebooks/gamebook-run";
import { playbookEntityTypes } from "../../../model/gamebooks/playbook-catalogue-record";
import { playbookParametersSchema } from "../../../model/gamebooks/playbook-parameter-schema";
import { checkSequences, isQueuedSchema, runPlaybooksSchema } from "../../../domain/gamebooks/run-request";
import { EXAMPLE_GAMEBOOK_RUN_ID, EXAMPLE_INCIDENT } from "../../../platform/http/examples";
import { approvalSides } from "../../../model/gamebooks/approval-sides";
import { approvalReasonSchema, approvalStandingFields, runPreAuthorizationSchema, requesterSchema, runPlaybookSchema } from "../approval-request-schemas";

/*
 * Playbook runs from an incident in the portal: what can run on it, the run request, the preview of
 * it, and the incident's runs as its page lists them. Examples are the demo's `fabrikam-sentinel-prod`
 * for the default DEMO_SEED: its newest SourceA incident (a domain controller), whose host the
 * collect-package playbook acts on.
 */

export const EXAMPLE_HOST_ENTITY = "host-e4217e545908";
/** The demo catalogue's playbooks of `fabrikam-sentinel-prod` the examples name. */
export const EXAMPLE_RUN_PLAYBOOKS = {
  collectPackage: "68824622-0588-8de2-abbc-fce0330aa5f8",
  addComment: "ad255856-13a3-8753-b918-b030a4631d64",
  isolateHost: "ba7b3cbf-37d7-83d6-a145-af9f138b1a33",
  releaseHost: "fb274d3b-6125-8239-8208-17e971875589",
} as const;

/** The portal's run request: the incident comes from the path, its title and source from the incident itself. */
export const runRequestBody = z
  .strictObject({ playbooks: runPlaybooksSchema, isQueued: isQueuedSchema })
  .superRefine(checkSequences)
  .meta({
    examples: [
      {
        playbooks: [
          { id: EXAMPLE_RUN_PLAYBOOKS.collectPackage, sequence: 1, entityId: EXAMPLE_HOST_ENTITY, parameters: {} },
          { id: EXAMPLE_RUN_PLAYBOOKS.addComment, sequence: 2, entityId: EXAMPLE_INCIDENT.id, parameters: { message: "Investigation package requested from FAB-DC-4624." } },
        ],
        isQueued: false,
      },
    ],
  });

export const runPreviewView = z
  .object({
    awaitsApproval: z.boolean().describe("True: submitted now, the run would wait in the approval queue and nothing would run until it is approved."),
    reasons: z.array(approvalReasonSchema).describe("Why it would wait: you asked for approval, the workspace's policy, the managing provider's setting."),
    requiredApprovals: z.int().describe("How many different people would have to approve it; 0 when it would be dispatched at once."),
    requiredSides: z
      .array(z.enum(approvalSides))
      .describe("The sides that would each have to give an approval: the managing provider's under its partner setting, both under a two-sided policy; empty when any decider may."),
    preAuthorization: runPreAuthorizationSchema.nullable().describe("The standing pre-authorization that would let it past the workspace's own policy; null when none would."),
    expiresAt: z.string().nullable().describe("When the request would expire unanswered, were it submitted now; null when it would not wait."),
    timeoutHours: z.int().nullable(),
    isAdminRequired: z.boolean(),
    playbooks: z
      .array(
        z.object({
          sequence: z.int(),
          playbookId: z.string(),
          name: z.string(),
          entityType: z.enum(playbookEntityTypes),
          entityId: z.string(),
          affectedEntity: z.string(),
          isAdminRequired: z.boolean(),
          parameters: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).describe("The values it would run with, declared defaults filled in."),
        }),
      )
      .describe("In the order they would run."),
  })
  .meta({
    examples: [
      {
        awaitsApproval: false,
        reasons: [],
        requiredApprovals: 0,
        requiredSides: [],
        preAuthorization: null,
        expiresAt: null,
        timeoutHours: null,
        isAdminRequired: false,
        playbooks: [
          {
            sequence: 1,
            playbookId: EXAMPLE_RUN_PLAYBOOKS.collectPackage,
            name: "Collect investigation package",
            entityType: "Host",
            entityId: EXAMPLE_HOST_ENTITY,
            affectedEntity: "FAB-DC-4624",
            isAdminRequired: false,
            parameters: {},
          },
        ],
      },
    ],
  });

const runAction = z.object({ allowed: z.boolean(), reason: z.string().nullable().describe("Why you may not, when you may not.") });
const runLink = z
  .object({ runId: z.string(), sequences: z.array(z.int()).describe("The other run's playbooks (their sequence there) this run's stand for, in this run's order.") })
  .nullable();

const incidentRunExample = {
  id: EXAMPLE_GAMEBOOK_RUN_ID,
  title: "Isolate host",
  status: "Failed",
  summary: "Isolate host failed.",
  awaitingApproval: false,
  isAutoRun: false,
  isRetryGamebook: false,
  isRecover: false,
  isAdminRequired: true,
  gamebook: null,
  createdAt: "2026-03-02T09:14:20.870Z",
  lastActivityAt: "2026-03-02T09:14:27.412Z",
  dispatchedAt: "2026-03-02T09:14:20.870Z",
  requestedBy: { kind: "User", id: "6ca1b3c2-1cfb-8ec6-8d44-18ffea2b84aa", name: "Li Wei" },
  approval: null,
  cancellation: null,
  retryOf: null,
  undoOf: null,
  retriedBy: [],
  undoneBy: [],
  steps: [
    {
      sequence: 1,
      playbookId: EXAMPLE_RUN_PLAYBOOKS.isolateHost,
      name: "Isolate host",
      description: "Cuts the device off the network except for the endpoint service's channel.",
      entityType: "Host",
      entityId: EXAMPLE_HOST_ENTITY,
      affectedEntity: "FAB-DC-4624",
      isAdminRequired: true,
      parameters: [{ name: "isolationType", value: "Full", description: "Full, or Selective (keeps Outlook, Teams and Skype working)." }],
      undoneBy: { playbookId: EXAMPLE_RUN_PLAYBOOKS.releaseHost, name: "Release host from isolation" },
      recommendedByRule: true,
      status: "Failed",
      errorMessage: "Isolating FAB-DC-4624 was refused: the device is a domain controller, and device group policy 'Tier 0 servers' forbids automated isolation.",
      startedAt: "2026-03-02T09:14:21.100Z",
      finishedAt: "2026-03-02T09:14:27.412Z",
      executionTime: "00:00:06.312",
    },
  ],
  actions: {
    retry: { allowed: true, reason: null },
    cancel: { allowed: false, reason: "It has ended (Failed): there is nothing left to cancel." },
    undo: { allowed: false, reason: "None of its playbooks succeeded: there is nothing to undo.", sequences: [] },
  },
};

/** One run on an incident as its page lists it (built in incident-run-view.ts). */
export const incidentRunSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    status: z.enum(gamebookRunStatuses),
    summary: z.string().describe("Where the run stands, in words."),
    awaitingApproval: z.boolean().describe("True while it waits in the approval queue."),
    isAutoRun: z.boolean().describe("Started by an automation rule."),
    isRetryGamebook: z.boolean().describe("A retry of another run (`retryOf`)."),
    isRecover: z.boolean().describe("Undoes another run (`undoOf`)."),
    isAdminRequired: z.boolean(),
    gamebook: z.object({ id: z.string(), title: z.string() }).nullable(),
    createdAt: z.string(),
    lastActivityAt: z.string().describe("Its latest change: the list's order."),
    dispatchedAt: z.string().nullable().describe("When it was handed to the executor; null while it waits, or when it never was."),
    requestedBy: requesterSchema.describe("Who asked for it: a person, a service account, or the service (an automation rule)."),
    approval: z
      .object(approvalStandingFields)
      .nullable()
      .describe("Who decided, when it needed approval: why it needed it, the approvals given, the final decision with its comment, or the standing pre-authorization that let it through; null when neither."),
    cancellation: z.object({ by: z.string(), byUserId: z.string(), at: z.string(), reason: z.string().nullable() }).nullable().describe("Who cancelled it, when someone did."),
    retryOf: runLink.describe("The run it retries."),
    undoOf: runLink.describe("The run it undoes."),
    retriedBy: z.array(z.string()).describe("Runs that retried it, oldest first."),
    undoneBy: z.array(z.string()).describe("Runs that undid what it did, oldest first."),
    steps: z
      .array(
        runPlaybookSchema.extend({
          status: z.enum(playbookStatuses),
          errorMessage: z.string().describe('Why it failed; "" unless it failed.'),
          startedAt: z.string().nullable(),
          finishedAt: z.string().nullable(),
          executionTime: z.string().describe('`hh:mm:ss[.fff]`; "" until it finishes.'),
        }),
      )
      .describe("Its playbooks in order, each with its outcome."),
    actions: z
      .object({
        retry: runAction.describe("Run its failed and skipped playbooks again, as a new run."),
        cancel: runAction.describe("Stop it: playbooks not started never start."),
        undo: runAction.extend({ sequences: z.array(z.int()).describe("Its steps that can be undone now.") }).describe("Run the catalogue's undo playbooks of what it did."),
      })
      .describe("What you may do with it now, and why not when you may not."),
  })
  .meta({ examples: [incidentRunExample] });

export const incidentRunsExample = [incidentRunExample];

const parameters = playbookParametersSchema(false);

export const incidentPlaybookOfferView = z
  .object({
    incident: z.object({ id: z.string(), source: z.string(), number: z.int(), title: z.string() }),
    playbooks: z
      .array(
        z.object({
          id: z.string().describe("What a run names as `playbooks[i].id`."),
          referenceId: z.string(),
          name: z.string(),
          description: z.string(),
          entityType: z.enum(playbookEntityTypes),
          isAdminRequired: z.boolean().describe("Running it needs an administrator: it can make the run wait for approval."),
          recommended: z.boolean(),
          recommendedBy: z.object({
            rules: z.array(z.string()).describe("The rule patterns recommending it for the incident's title, most specific first."),
            vendor: z.boolean().describe("The incident's source recommends it."),
          }),
          entities: z
            .array(z.object({ entityId: z.string().describe("What a run names as `playbooks[i].entityId`."), kind: z.string(), name: z.string() }))
            .describe("What it can act on here: the incident's entities of its kind, or the incident itself. Empty: nothing here fits it."),
          parameters: parameters.describe("Its declared parameters, each of its kind, with its default."),
          undoPlaybook: z.object({ id: z.string(), name: z.string() }).nullable().describe("The playbook that undoes it, when the catalogue names one."),
        }),
      )
      .describe("The catalogue's playbooks that are switched on, recommended first."),
    gamebooks: z
      .array(
        z.object({
          id: z.string(),
          title: z.string(),
          description: z.string(),
          recommended: z.boolean(),
          playbooks: z.array(z.object({ sequence: z.int(), playbookId: z.string(), name: z.string(), entityType: z.enum(playbookEntityTypes) })),
          runnable: z.boolean(),
          reason: z.string().nullable().describe("Why it cannot run here, when it cannot."),
        }),
      )
      .describe("The catalogue's gamebooks whose playbooks are all switched on, recommended first."),
    unavailable: z
      .array(z.object({ referenceId: z.string(), name: z.string().nullable(), reason: z.enum(["NotInCatalogue", "SwitchedOff", "NoEntity"]) }))
      .describe("What the incident's source recommends that this workspace cannot run, and why."),
  })
  .meta({
    examples: [
      {
        incident: { id: EXAMPLE_INCIDENT.id, source: EXAMPLE_INCIDENT.source, number: EXAMPLE_INCIDENT.number, title: EXAMPLE_INCIDENT.title },
        playbooks: [
          {
            id: EXAMPLE_RUN_PLAYBOOKS.isolateHost,
            referenceId: "isolate-host",
            name: "Isolate host",
            description: "Cuts the device off the network except for the endpoint service's channel.",
            entityType: "Host",
            isAdminRequired: true,
            recommended: true,
            recommendedBy: { rules: ["Suspicious PowerShell command line on *"], vendor: true },
            entities: [{ entityId: EXAMPLE_HOST_ENTITY, kind: "Host", name: "FAB-DC-4624" }],
            parameters: [{ name: "isolationType", kind: "enum", description: "Full, or Selective (keeps Outlook, Teams and Skype working).", required: false, values: ["Full", "Selective"], default: "Full" }],
            undoPlaybook: { id: EXAMPLE_RUN_PLAYBOOKS.releaseHost, name: "Release host from isolation" },
          },
        ],
        gamebooks: [
          {
            id: "1f0e2d3c-4b5a-8697-a8b9-c0d1e2f3a4b5",
            title: "Contain an infected host",
            description: "Isolates the device, collects evidence from it and blocks the address it talked to.",
            recommended: true,
            playbooks: [{ sequence: 1, playbookId: EXAMPLE_RUN_PLAYBOOKS.isolateHost, name: "Isolate host", entityType: "Host" }],
            runnable: false,
            reason: "The incident has nothing Block IP address can act on.",
          },
        ],
        unavailable: [],
      },
    ],
  });

export const undoBody = z
  .strictObject({
    sequences: z
      .array(z.int().min(1))
      .min(1)
      .max(50)
      .optional()
      .describe("Which of the run's steps to undo (their `sequence`); left out: every step that can be undone."),
  })
  .default({})
  .meta({ examples: [{}] });

export const cancelBody = z
  .strictObject({ reason: z.string().trim().min(1).max(2000).optional().describe("Why, kept with the cancellation and audited.") })
  .default({})
  .meta({ examples: [{ reason: "The customer's on-call is handling the account by hand." }] });
