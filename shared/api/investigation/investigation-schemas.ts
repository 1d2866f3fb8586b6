import { z } from "zod";
import { EXAMPLE_WORKSPACE_ID } from "../../platform/http/examples";
import { MAX_DIRECTORY_LOG_PAGE_SIZE } from "../../systems/directory-logs/port";

export const DEFAULT_LOG_PAGE_SIZE = 100;
/** Entra ID keeps sign-ins and audit logs for 30 days (P1/P2); the window stays within them. */
export const MAX_LOG_WINDOW_DAYS = 30;

export const workspaceParams = z.object({ workspaceId: z.guid().describe("The workspace's id.").meta({ examples: [EXAMPLE_WORKSPACE_ID] }) }).strict();

export const logQuery = z
  .object({
    user: z
      .string()
      .trim()
      .min(1)
      .max(256)
      .optional()
      .describe("A user's object id (GUID) or user principal name. Sign-ins: who signed in. Directory audits: who initiated the activity.")
      .meta({ examples: ["tom.oneill@fabrikam.example"] }),
    from: z.iso.datetime({ offset: true }).optional().describe("Inclusive start; default 24 hours before `to`. At most 30 days ago."),
    to: z.iso.datetime({ offset: true }).optional().describe("Exclusive end; default (and latest) just after now, so records stamped now are included."),
    pageSize: z.coerce.number().int().min(1).max(MAX_DIRECTORY_LOG_PAGE_SIZE).default(DEFAULT_LOG_PAGE_SIZE).describe(`Rows per page, 1 to ${MAX_DIRECTORY_LOG_PAGE_SIZE}.`),
    pageToken: z
      .string()
      .min(1)
      .max(12000)
      .optional()
      .describe("The previous page's `pagination.continuationToken`, with the same user, from, to and pageSize. A page may be short, even empty, and still have more."),
  })
  .strict();

const nullableString = z.string().nullable();

export const signInView = z
  .object({
    id: z.string(),
    createdDateTime: z.string(),
    userId: z.string(),
    userDisplayName: nullableString,
    userPrincipalName: nullableString,
    appId: nullableString,
    appDisplayName: nullableString,
    resourceDisplayName: nullableString.describe("What was signed in to: Office 365 Exchange Online, Microsoft Graph, Azure Portal, …"),
    clientAppUsed: nullableString.describe("`Browser`, `Mobile Apps and Desktop clients`, `Exchange ActiveSync`, `IMAP`, … (legacy authentication stands out)."),
    isInteractive: z.boolean().nullable(),
    ipAddress: nullableString,
    location: z.object({
      city: nullableString,
      state: nullableString,
      countryOrRegion: nullableString,
      latitude: z.number().nullable(),
      longitude: z.number().nullable(),
    }),
    deviceDetail: z.object({
      deviceId: nullableString,
      displayName: nullableString,
      operatingSystem: nullableString,
      browser: nullableString,
      isCompliant: z.boolean().nullable(),
      isManaged: z.boolean().nullable(),
      trustType: nullableString,
    }),
    status: z
      .object({ errorCode: z.number().int(), failureReason: nullableString, additionalDetails: nullableString })
      .describe("errorCode 0 is success; otherwise the AADSTS code and its reason."),
    conditionalAccessStatus: nullableString.describe("`success`, `failure`, `notApplied`."),
    appliedConditionalAccessPolicies: z.array(
      z.object({
        id: z.string(),
        displayName: nullableString,
        result: nullableString,
        enforcedGrantControls: z.array(z.string()),
        enforcedSessionControls: z.array(z.string()),
      }),
    ),
    riskLevelDuringSignIn: nullableString.describe("`none`, `low`, `medium`, `high`, `hidden`."),
    riskLevelAggregated: nullableString,
    riskState: nullableString,
    riskDetail: nullableString,
    riskEventTypes: z.array(z.string()).describe("Microsoft Graph's `riskEventTypes_v2`: `unfamiliarFeatures`, `anonymizedIPAddress`, …"),
    correlationId: nullableString,
  })
  .describe("A sign-in, with Microsoft Graph `signIn` property names.");

export const directoryAuditView = z
  .object({
    id: z.string(),
    activityDateTime: z.string(),
    activityDisplayName: z.string().describe("`Update user`, `Add member to role`, `Consent to application`, …"),
    category: nullableString,
    operationType: nullableString,
    result: nullableString.describe("`success`, `failure`, `timeout`."),
    resultReason: nullableString,
    loggedByService: nullableString,
    correlationId: nullableString,
    initiatedBy: z.object({
      user: z.object({ id: nullableString, displayName: nullableString, userPrincipalName: nullableString, ipAddress: nullableString }).nullable(),
      app: z.object({ appId: nullableString, displayName: nullableString, servicePrincipalId: nullableString, servicePrincipalName: nullableString }).nullable(),
    }),
    targetResources: z.array(
      z.object({
        id: nullableString,
        displayName: nullableString,
        type: nullableString,
        userPrincipalName: nullableString,
        modifiedProperties: z.array(z.object({ displayName: nullableString, oldValue: nullableString, newValue: nullableString })),
      }),
    ),
    additionalDetails: z.array(z.object({ key: z.string(), value: nullableString })),
  })
  .describe("A directory audit event, with Microsoft Graph `directoryAudit` property names.");
