import { z } from "zod";
import { gamebookRunStatuses } from "../../model/gamebooks/gamebook-run";
import { playbookEntityTypes } from "../../model/gamebooks/playbook-catalogue-record";
import { sources } from "../../model/sources";
import { approvalSides } from "../../model/gamebooks/approval-sides";
import { approvalExpiryActions, approvalModes } from "../../model/gamebooks/approval-mode";
import { EXAMPLE_WORKSPACE_ID } from "../../platform/http/examples";

/*
 * A gamebook run's approval request as the portal shows it: the approval queue's entry, and its pieces
 * (the playbooks as an approver weighs them, who asked, where the approval stands) that the decided
 * approvals of the history and the runs of an incident's page carry too. The areas share it from here.
 */

const EXAMPLE_RUN_ID = "5b0a4f7e-3c1d-4e8a-9f2b-7d6c5e4a3b21";
const EXAMPLE_INCIDENT_ID = "a3f9c2d4-1b7e-4c5a-8e6f-2d9b0c1a7e53";
const EXAMPLE_ENTITY_ID = "e7a1c3b5-9d2f-4e6a-8b0c-1f3e5d7a9c2b";

export const approvalRequestExample = {
  runId: EXAMPLE_RUN_ID,
  workspace: { id: EXAMPLE_WORKSPACE_ID, name: "fabrikam-sentinel-prod" },
  title: "Contain a compromised account",
  gamebook: null,
  status: "Pending",
  awaitingDecision: true,
  incident: { id: EXAMPLE_INCIDENT_ID, source: "SourceA", number: 4211, title: "Impossible travel for amelia.ross@fabrikam.example" },
  playbooks: [
    {
      sequence: 1,
      playbookId: "disable-user",
      name: "Disable user",
      description: "Blocks sign-in for the account in the directory.",
      entityType: "User",
      entityId: EXAMPLE_ENTITY_ID,
      affectedEntity: "amelia.ross@fabrikam.example",
      isAdminRequired: true,
      parameters: [{ name: "revokeSessions", value: true, description: "Also revoke the account's refresh tokens." }],
      undoneBy: { playbookId: "enable-user", name: "Enable user" },
      recommendedByRule: true,
    },
  ],
  entities: [
    { entityId: EXAMPLE_ENTITY_ID, entityType: "User", name: "amelia.ross@fabrikam.example", userPrincipalName: "amelia.ross@fabrikam.example", userObjectId: "0c7d5e3a-2b1f-4a9e-8d6c-5b4a3f2e1d0c", playbooks: [1] },
  ],
  matchedRule: { incidentTitle: "Impossible travel*", playbookIds: ["disable-user"] },
  requestedBy: { kind: "ServiceAccount", id: "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a", name: "SOAR connector" },
  requestedAt: "2026-11-25T09:12:00.000Z",
  expiresAt: "2026-11-26T09:12:00.000Z",
  timeoutHours: 24,
  reasons: [{ code: "WorkspacePolicy", text: "The workspace's approval policy requires it." }],
  isAdminRequired: true,
  approvals: [],
  requiredApprovals: 1,
  approvalsStillNeeded: 1,
  decision: null,
  requiredSides: [],
  policy: { mode: "AdminRequiredPlaybooks", approvalTimeoutHours: 24, onExpiry: "Deny", requireSecondApproverForAdminPlaybooks: false, twoSidedApproval: false },
  policyChangedSince: false,
  preAuthorization: null,
  viewer: { mayApprove: true, mayDeny: true, reason: null, side: "Provider" },
};

/** One playbook of a run as an approver weighs it (built by `runPlaybookViews`). */
export const runPlaybookSchema = z.object({
  sequence: z.number().int(),
  playbookId: z.string(),
  name: z.string(),
  description: z.string(),
  entityType: z.enum(playbookEntityTypes),
  entityId: z.string(),
  affectedEntity: z.string().describe("What it acts on, by name: the UPN, host name, address..."),
  isAdminRequired: z.boolean(),
  parameters: z.array(z.object({ name: z.string(), value: z.union([z.string(), z.number(), z.boolean()]), description: z.string().nullable() })),
  undoneBy: z.object({ playbookId: z.string(), name: z.string() }).nullable().describe("The catalogue's playbook that would undo it; null when it names none."),
  recommendedByRule: z.boolean(),
});

/** Who asked for a run: a service account, a person, or the service itself (an automation rule). */
export const requesterSchema = z.object({ kind: z.enum(["ServiceAccount", "User", "Service"]), id: z.string(), name: z.string() });

export const approvalReasonSchema = z.object({ code: z.string(), text: z.string() });

/** What a run keeps of the standing pre-authorization that let it through. */
export const runPreAuthorizationSchema = z.object({
  id: z.guid(),
  endsAt: z.string(),
  note: z.string().nullable(),
  createdBy: z.object({ userId: z.string(), name: z.string() }),
});

export const approvalEntrySchema = z.object({
  by: z.string(),
  byUserId: z.string(),
  side: z.enum(approvalSides).nullable().describe("The side the person approved for: the workspace's own organization (`Customer`) or its managing provider (`Provider`); null on approvals recorded before sides were."),
  at: z.string(),
  comment: z.string().nullable(),
});

export const approvalDecisionSchema = z
  .object({
    outcome: z.enum(["Approved", "Denied"]),
    by: z.string().nullable(),
    byUserId: z.string().nullable(),
    at: z.string().nullable(),
    comment: z.string().nullable(),
    expired: z.boolean(),
  })
  .nullable();

/** Where a run's approval stands (built by `approvalStandingOf`): the queue's entry and the incident's run list both carry it. */
export const approvalStandingFields = {
  expiresAt: z.string().nullable(),
  timeoutHours: z.number().nullable(),
  reasons: z.array(approvalReasonSchema),
  approvals: z.array(approvalEntrySchema),
  requiredApprovals: z.number().int(),
  requiredSides: z
    .array(z.enum(approvalSides))
    .describe("The sides that must each give an approval: `Provider` when the managing provider's partner setting made the run wait, both under a two-sided policy; empty: any decider."),
  policy: z
    .object({
      mode: z.enum(approvalModes),
      approvalTimeoutHours: z.number().int(),
      onExpiry: z.enum(approvalExpiryActions),
      requireSecondApproverForAdminPlaybooks: z.boolean(),
      twoSidedApproval: z.boolean(),
    })
    .nullable()
    .describe("The workspace's approval policy the request was made under, which it keeps: a later change applies to new requests only. Null when it never waited, or was made before requests kept their policy."),
  policyChangedSince: z.boolean().describe("The workspace's policy has changed since the request was made (the request keeps its own)."),
  preAuthorization: runPreAuthorizationSchema
    .nullable()
    .describe("The standing pre-authorization that let the run past the workspace's own policy; null when none did."),
  approvalsStillNeeded: z.number().int(),
  decision: approvalDecisionSchema,
};

/** What approving a run will do, and where it stands: the approval queue's entry (built in approval-request-view.ts). */
export const approvalRequestSchema = z
  .object({
    runId: z.guid(),
    workspace: z.object({ id: z.guid(), name: z.string() }),
    title: z.string(),
    gamebook: z.object({ id: z.string(), title: z.string() }).nullable(),
    status: z.enum(gamebookRunStatuses),
    awaitingDecision: z.boolean().describe("True while the run waits for a decision: only then can it be approved or denied."),
    incident: z.object({ id: z.string(), source: z.enum(sources), number: z.number(), title: z.string() }),
    playbooks: z.array(runPlaybookSchema).describe("In the order they would run."),
    entities: z.array(
      z.object({
        entityId: z.string(),
        entityType: z.enum(playbookEntityTypes),
        name: z.string(),
        userPrincipalName: z.string().nullable(),
        userObjectId: z.string().nullable(),
        playbooks: z.array(z.number().int()),
      }),
    ),
    matchedRule: z.object({ incidentTitle: z.string(), playbookIds: z.array(z.string()) }).nullable().describe("The gamebook rule that recommended the playbooks; null when none did."),
    requestedBy: requesterSchema,
    requestedAt: z.string(),
    isAdminRequired: z.boolean(),
    ...approvalStandingFields,
    viewer: z
      .object({
        mayApprove: z.boolean(),
        mayDeny: z.boolean().describe("Whether the person signed in may deny it: any decider of either side, the requester included, while it waits."),
        reason: z.string().nullable().describe("Why the person signed in may not approve it, when they may not."),
        side: z.enum(approvalSides).nullable().describe("The side the person signed in decides for on this workspace."),
      })
      .describe("What the person signed in may do with it."),
  })
  .meta({ examples: [approvalRequestExample] });
