import { z } from "zod";
import { EXAMPLE_WORKSPACE_ID } from "../../../platform/http/examples";
import { EXAMPLE_INCIDENT_TITLE } from "../../examples/gamebook-examples";
import { playbookActionKinds, playbookEntityTypes } from "../../../model/gamebooks/playbook-catalogue-record";
import { playbookParametersSchema } from "../../../model/gamebooks/playbook-parameter-schema";

// Examples are the local host's demo catalogue of `fabrikam-sentinel-prod` for the default DEMO_SEED
// (shared/api/examples/gamebook-examples.ts names the same playbooks).
export const EXAMPLE_PLAYBOOKS = {
  revokeSessions: "2d240ade-3cd2-8915-87ee-afdd08ce059d",
  resetPassword: "9ef93e8f-9d01-8a68-8fbc-cb06af7a2ee4",
  notifyOwner: "5f42b74f-2f0e-8820-8a1f-16fe3beffa37",
} as const;
/** A playbook the demo catalogue does not have: the PUT example adds it, the DELETE example removes it. */
export const EXAMPLE_NEW_PLAYBOOK_ID = "7b3e9a1c-4d2f-4e8a-9c6b-1f2e3d4c5b6a";

const workspaceId = z.guid().describe("The workspace's id.").meta({ examples: [EXAMPLE_WORKSPACE_ID] });
export const workspaceParams = z.strictObject({ workspaceId });

/** Ids a client chooses for a new playbook: a GUID is best; letters, digits, '.', '_' and '-' will do. */
export const playbookId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, "1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit.")
  .describe("The playbook's id in the workspace's catalogue: what a run names as `playbooks[i].id`.");

export const playbookParams = z.strictObject({ workspaceId, playbookId: playbookId.meta({ examples: [EXAMPLE_NEW_PLAYBOOK_ID] }) });
/** A playbook the demo catalogue has, to read. */
export const existingPlaybookParams = z.strictObject({ workspaceId, playbookId: playbookId.meta({ examples: [EXAMPLE_PLAYBOOKS.revokeSessions] }) });

const parameters = playbookParametersSchema(true).describe("What a run may pass in `parameters`, each of its kind; anything else is refused.");

const playbookFields = {
  referenceId: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .describe("The automation's own name for the action (`reset-password`), the same in every workspace; unique in the catalogue. Import matches on it."),
  name: z.string().trim().min(1).max(200),
  description: z.string().trim().max(2000).default(""),
  entityType: z.enum(playbookEntityTypes).describe("What it acts on; `Incident` for the incident itself."),
  action: z
    .enum(playbookActionKinds)
    .optional()
    .describe(
      "Who carries it out: `automation` (the automation backend; the default for entity playbooks), or for `Incident` playbooks `incident.comment` (declares a string `message`) or `incident.close` (declares an enum `classification`).",
    ),
  isAdminRequired: z.boolean().default(false).describe("Running it needs an administrator: it can make a run wait for approval."),
  isRecommended: z.boolean().default(true).describe("Offered first to analysts; undo playbooks usually are not."),
  recoverPlaybookId: playbookId.nullable().default(null).describe("The playbook that undoes this one, acting on the same entity type; null when none."),
  parameters: parameters.default([]),
  enabled: z.boolean().default(true).describe("false keeps it out of runs and recommendations; its rules and gamebooks stay."),
};

const lockDevice = {
  referenceId: "lock-device",
  name: "Lock device",
  description: "Locks the device's screen until its user signs in again.",
  entityType: "Host",
  action: "automation",
  isAdminRequired: false,
  isRecommended: true,
  recoverPlaybookId: null,
  parameters: [{ name: "message", kind: "string", description: "Shown on the lock screen.", required: false, maxLength: 200, default: "Locked by the security team." }],
  enabled: true,
};

/**
 * `PUT …/playbooks/{playbookId}`: the whole entry (a field left out takes its default), but for the two
 * that guard running it: left out, they keep their values.
 */
export const playbookBody = z
  .strictObject({
    ...playbookFields,
    isAdminRequired: z
      .boolean()
      .optional()
      .describe("Running it needs an administrator: it can make a run wait for approval. Left out: as it was (a new entry: false)."),
    enabled: z.boolean().optional().describe("false keeps it out of runs and recommendations; its rules and gamebooks stay. Left out: as it was (a new entry: true)."),
  })
  .describe("The playbook as it is to be: every field, those left out at their defaults.")
  .meta({ examples: [lockDevice] });

export type PlaybookBody = z.output<typeof playbookBody>;

const revokeSessionsView = {
  id: EXAMPLE_PLAYBOOKS.revokeSessions,
  referenceId: "revoke-sessions",
  name: "Revoke user sessions",
  description: "Signs the user out of every session and revokes their refresh tokens.",
  entityType: "User",
  action: "automation",
  isAdminRequired: false,
  isRecommended: true,
  recoverPlaybookId: null,
  parameters: [],
  enabled: true,
  usage: { rules: 6, gamebooks: 1 },
};

export const playbookView = z
  .object({
    id: z.string(),
    ...playbookFields,
    action: z.enum(playbookActionKinds),
    usage: z
      .object({ rules: z.int().describe("Rules naming it."), gamebooks: z.int().describe("Gamebooks running it.") })
      .describe("What names it: it cannot be deleted while anything does."),
  })
  .meta({ examples: [revokeSessionsView] });

export const catalogueView = z
  .object({
    workspaceId: z.guid(),
    playbooks: z.array(playbookView).describe("By name, then id."),
    updatedAt: z.string().nullable().describe("When the catalogue last changed; null when the workspace has none yet."),
  })
  .meta({ examples: [{ workspaceId: EXAMPLE_WORKSPACE_ID, playbooks: [revokeSessionsView], updatedAt: "2026-03-02T09:00:00.000Z" }] });

const playbookRef = z.object({ id: z.string(), referenceId: z.string(), name: z.string() });

export const importView = z
  .object({
    added: z.array(playbookRef).describe("Actions the backend offers that the catalogue did not have: added, switched on."),
    updated: z.array(playbookRef.extend({ changed: z.array(z.string()).describe("The fields the backend changed.") })),
    unchanged: z.array(playbookRef),
    notOffered: z.array(playbookRef).describe("Automation playbooks of the catalogue the backend no longer offers: left as they are."),
  })
  .meta({
    examples: [
      {
        added: [{ id: "0d6c2b1e-8f4a-8c3d-9e2f-1a0b9c8d7e6f", referenceId: "require-mfa-registration", name: "Require MFA re-registration" }],
        updated: [],
        unchanged: [{ id: EXAMPLE_PLAYBOOKS.revokeSessions, referenceId: "revoke-sessions", name: "Revoke user sessions" }],
        notOffered: [],
      },
    ],
  });

const pattern = z
  .string()
  .max(500)
  .describe("A title pattern: the whole incident title, case-insensitively, `*` for any run of characters; every other character is literal.");

const ruleInput = z.strictObject({
  pattern,
  playbookIds: z
    .array(playbookId)
    .min(1)
    .max(50)
    .describe("The playbooks it recommends, in this order; each in the workspace's catalogue."),
  autoRun: z
    .boolean()
    .default(false)
    .describe(
      "An automation rule: on a new incident whose title matches (its arrival, `incident.created.v1`), the service runs these playbooks by itself, each on every " +
        "incident entity of its kind, as one run with `isAutoRun` true, still subject to approval. Refused for a playbook with a required parameter that has no default.",
    ),
});

const rulesExample = [
  { pattern: "Impossible travel activity for *", playbookIds: [EXAMPLE_PLAYBOOKS.revokeSessions, EXAMPLE_PLAYBOOKS.resetPassword, EXAMPLE_PLAYBOOKS.notifyOwner] },
  { pattern: "*password spray*", playbookIds: [EXAMPLE_PLAYBOOKS.resetPassword] },
];

export const MAX_RULES = 500;

export const rulesBody = z
  .strictObject({
    rules: z
      .array(ruleInput)
      .max(MAX_RULES)
      .describe("Every rule of the workspace, in order: where several match a title, the most specific pattern (most literal characters) comes first, then this order."),
  })
  .meta({ examples: [{ rules: rulesExample }] });

export type RulesBody = z.output<typeof rulesBody>;

const rulePlaybook = z.object({
  id: z.string(),
  name: z.string().nullable().describe("null when it is no longer in the catalogue."),
  entityType: z.enum(playbookEntityTypes).nullable(),
  enabled: z.boolean().describe("false: switched off, or no longer in the catalogue; the rule then recommends nothing through it."),
});

export const rulesView = z
  .object({
    workspaceId: z.guid(),
    rules: z.array(
      z.object({
        pattern: z.string(),
        playbookIds: z.array(z.string()),
        autoRun: z.boolean().describe("An automation rule: its playbooks run by themselves on a new incident whose title matches."),
        playbooks: z.array(rulePlaybook).describe("`playbookIds` as the catalogue has them now."),
      }),
    ),
    updatedAt: z.string().nullable(),
  })
  .meta({
    examples: [
      {
        workspaceId: EXAMPLE_WORKSPACE_ID,
        rules: [
          {
            pattern: rulesExample[0]!.pattern,
            playbookIds: rulesExample[0]!.playbookIds,
            autoRun: false,
            playbooks: [
              { id: EXAMPLE_PLAYBOOKS.revokeSessions, name: "Revoke user sessions", entityType: "User", enabled: true },
              { id: EXAMPLE_PLAYBOOKS.resetPassword, name: "Reset user password", entityType: "User", enabled: true },
              { id: EXAMPLE_PLAYBOOKS.notifyOwner, name: "Notify the user", entityType: "User", enabled: true },
            ],
          },
        ],
        updatedAt: "2026-03-02T09:00:00.000Z",
      },
    ],
  });

export const previewBody = z
  .strictObject({
    title: z.string().max(1000).describe("An incident title, as a source would raise it."),
    rules: z
      .array(ruleInput)
      .max(MAX_RULES)
      .optional()
      .describe("Rules to try instead of the stored ones (a draft, checked as `PUT …/gamebook-rules` checks them); absent: the workspace's rules."),
  })
  .meta({ examples: [{ title: EXAMPLE_INCIDENT_TITLE }] });

const because = z.object({
  ruleIndex: z.int().describe("The rule's place in the list (from 0)."),
  pattern: z.string(),
  specificity: z.int().describe("The pattern's literal characters: the more, the earlier its playbooks."),
  wildcards: z.array(z.string()).describe("What each `*` of the pattern covered in the title, in order (whitespace runs read as one space)."),
});

export const previewView = z
  .object({
    title: z.string(),
    recommendations: z
      .array(
        z.object({
          playbookId: z.string(),
          playbookName: z.string(),
          entityType: z.enum(playbookEntityTypes),
          isAdminRequired: z.boolean(),
          because,
        }),
      )
      .describe("What a run on an incident of this title is offered, in this order: the rules endpoint's answer and the run's `isRecommended` come from the same matching."),
    skipped: z
      .array(
        z.object({
          playbookId: z.string(),
          reason: z.enum(["SwitchedOff", "NotInCatalogue"]),
          because,
        }),
      )
      .describe("Rules that match the title but recommend nothing through this playbook."),
  })
  .meta({
    examples: [
      {
        title: EXAMPLE_INCIDENT_TITLE,
        recommendations: [
          {
            playbookId: EXAMPLE_PLAYBOOKS.revokeSessions,
            playbookName: "Revoke user sessions",
            entityType: "User",
            isAdminRequired: false,
            because: { ruleIndex: 1, pattern: "Impossible travel activity for *", specificity: 31, wildcards: ["mateo.costa@fabrikam.example"] },
          },
        ],
        skipped: [],
      },
    ],
  });
