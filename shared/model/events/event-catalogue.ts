import { z } from "zod";
import { API_KEY_HEADER } from "../webhooks/webhook";
import { classifications, publicStatuses, severities } from "../incidents/incident";
import { sources } from "../sources";
import { internalStatuses } from "../incidents/incident-state-record";
import { gamebookRunStatuses, playbookStatuses } from "../gamebooks/gamebook-run";
import { playbookEntityTypes } from "../gamebooks/playbook-catalogue-record";
import { eventTypes, type EventType } from "./event-types";

/**
 * The event catalogue (docs/contract.md §6): the `data` of every event type as a zod schema, and the delivery
 * envelope around it. It is the published shape of the events: the OpenAPI document's `webhooks`
 * section and docs/events.md are made from it, and test/unit/event-catalogue.test.ts parses the
 * builders' output with it.
 *
 * Every object is strict, so a field a builder adds (or renames) fails that test until it is
 * described here. Receivers are told the opposite (ignore unknown fields): strictness is this side's
 * check that the catalogue is complete, not a promise that fields are never added within a version.
 *
 * Where a builder leaves null fields out (docs/contract.md §6.5: `incident.created.v1`), those fields are
 * `.optional()`; where it sends null, they are `.nullable()`.
 */

const timestamp = (what: string) => z.iso.datetime().describe(`${what} (ISO 8601, UTC).`);

/** Lower-case on the wire (`sourcea`); the API accepts it back, case-insensitively, as a path segment. */
const lowerCaseSources = sources.map((s) => s.toLowerCase()) as [string, ...string[]];

const vendorIdentifiers = z
  .record(z.string(), z.record(z.string(), z.string()))
  .describe(
    "Identifiers of every vendor system holding a record of the incident, one block per system " +
      "(e.g. `sourceA: {incidentId, incidentNumber, incidentUrl}`). Every block and field is conditional: " +
      "for a SourceB incident the SourceA block may be absent right after creation.",
  );

const assignee = z.strictObject({
  userId: z.string().nullable().describe("The user's id, when known."),
  email: z.string().nullable().describe("The user's e-mail address, when known."),
  name: z.string().nullable().describe("The display name, when known."),
  isAgent: z.boolean().describe("True when the assignee is an AI agent rather than a person."),
});

const changeOrigin = z.strictObject({
  origin: z
    .enum(["api", "upstream", "agent", "gamebook", "portal"])
    .describe(
      "Where the change came from: `api` (this API), `upstream` (made in the vendor console and found by " +
        "reconciliation), `agent`, `gamebook` or `portal`.",
    ),
  serviceAccountId: z.string().nullable().describe("The service account that made the change, when one did."),
  name: z.string().nullable().describe("Display name of whoever made the change, when known."),
});

const source = z.enum(lowerCaseSources).describe("The incident's source, lower-case (e.g. `sourcea`).");
const sourceDisplayName = z
  .string()
  .describe("The incident's source as this deployment names it (`SOURCE_<X>_DISPLAY_NAME`, e.g. `Northwatch SIEM`); the source's path value (e.g. `SourceA`) where the deployment names none. `source` stays the path value.");
const incidentId = z.string().describe("The incident's id at the source it was ingested from.");
const workspaceId = z.string().describe("The workspace holding the incident.");
const accountId = z.string().describe("The account the incident belongs to.");
const incidentNumber = z.int().describe("The vendor's human-facing incident number.");
const severity = z.enum(severities).describe("The incident's severity.");

/** What every incident event built by incident-events.ts carries about its incident. */
const incidentFields = {
  incidentId,
  source,
  sourceDisplayName,
  workspaceId,
  accountId,
  incidentNumber,
  title: z.string().describe("The incident's title."),
  severity,
  status: z.enum(publicStatuses).describe("The incident's public status."),
  vendorIdentifiers,
};

const serviceStatus = z.enum([...publicStatuses, ...internalStatuses]);

export const incidentCreatedData = z
  .strictObject({
    incidentId,
    source,
    sourceDisplayName,
    workspaceId,
    accountId,
    incidentNumber,
    title: z.string().describe("The incident's title."),
    description: z.string().describe("The incident's description."),
    severity,
    status: z.enum(publicStatuses).describe("The incident's public status."),
    createdAt: timestamp("When the incident was created at the vendor"),
    lastActivityAt: z.iso.datetime().optional().describe("Time of the latest alert (ISO 8601, UTC); omitted when there is none."),
    lastModificationTime: timestamp("The vendor's last-modified time"),
    owner: assignee.optional().describe("The assignee; omitted when the incident is unassigned."),
    alertCount: z.int().min(0).describe("Number of alerts in the incident."),
    entityCount: z.int().min(0).describe("Number of entities in the incident."),
    vendorIdentifiers,
  })
  .describe("A new incident was ingested (or the manual Trigger-webhook action fired). Null fields are omitted.");

export const incidentClosedData = z
  .strictObject({
    ...incidentFields,
    classification: z.enum(classifications).nullable().describe("The closing classification, one of the four canonical values."),
    closingComment: z.string().nullable().describe("The closing comment, when one was given."),
    closedBy: changeOrigin.describe("Who closed it; `origin` is `upstream` for a close made in the vendor console."),
  })
  .describe("The incident reached Closed, by any route.");

export const incidentStatusChangedData = z
  .strictObject({
    ...incidentFields,
    status: z.enum(publicStatuses).describe("The public status after the change."),
    previousStatus: z.enum(publicStatuses).describe("The public status before the change."),
    serviceStatus: serviceStatus.describe("The service's status after the change: an internal status (OnHold, WaitingOnCustomer) when set, otherwise the public one."),
    previousServiceStatus: serviceStatus.describe("The service's status before the change."),
    changedBy: changeOrigin.describe("Who made the change; `origin` is `upstream` for a reconciled vendor-console close."),
  })
  .describe("A status transition.");

export const incidentAssigneeChangedData = z
  .strictObject({
    ...incidentFields,
    assignee: assignee.nullable().describe("The new assignee; null when the incident was unassigned."),
    previousAssignee: assignee.nullable().describe("The previous assignee; null (with an `assignee`) on a first assignment."),
    changedBy: changeOrigin.describe("Who made the change."),
  })
  .describe("The incident was assigned, reassigned or unassigned through the service.");

/** The incident block of a comment event, read at build time; every field null when that read failed. */
const commentIncidentBlock = z
  .strictObject({
    incidentNumber: z.int().nullable().describe("The vendor's human-facing incident number; null when the read failed."),
    title: z.string().nullable().describe("The incident's title; null when the read failed."),
    severity: z.enum(severities).nullable().describe("The incident's severity; null when the read failed."),
    sourceDisplayName: z.string().nullable().describe("The incident's source as this deployment names it (see incident.created.v1); null when the read failed."),
    vendorIdentifiers: vendorIdentifiers.nullable().describe("Identifiers of every vendor system holding a record of the incident (see incident.created.v1); null when the read failed."),
  })
  .describe("The incident, read when the event was built; every field is null when that read failed.");

/** docs/contract.md §6.5: `incidentId`, `source`, `comment` always present. */
export const incidentCommentAddedData = z
  .strictObject({
    incidentId,
    source,
    workspaceId,
    accountId,
    comment: z
      .strictObject({
        id: z.string().describe("The comment's id at the vendor."),
        message: z.string().describe("The comment text."),
        createdTime: timestamp("When the comment was written"),
        authorEmail: z.string().describe("The author's e-mail address."),
        authorName: z.string().describe("The author's display name."),
        isAgentComment: z.boolean().describe("True when an AI agent wrote it."),
        agentName: z.string().nullable().describe("The agent's name, for agent comments."),
      })
      .describe("The comment as added."),
    addedBy: changeOrigin.describe("Who added it: `api` (an analyst through this API), `agent`, `gamebook` or `portal`."),
    incident: commentIncidentBlock,
  })
  .describe("A comment was added through the service (vendor-console comments are not detected; a closing comment travels on incident.closed.v1).");

/** docs/contract.md §2.6 run and playbook entries, summarised. */
export const gamebookRunData = z
  .strictObject({
    runId: z.string().describe("The gamebook run's id (the `id` of the run record)."),
    tracingId: z.string().describe("The run's tracing id."),
    incidentId,
    source,
    sourceDisplayName,
    workspaceId,
    accountId,
    incidentNumber,
    incidentTitle: z.string().describe("The incident's title."),
    gamebookId: z.string().describe("The catalogue gamebook the run's playbooks are (`originalGamebookId`); \"\" when they are none."),
    gamebookTitle: z.string().describe("The run's title (`title`): the gamebook's, or the playbooks' names."),
    status: z.enum(gamebookRunStatuses).describe("The run's status at dispatch: `Pending`, dispatched and not yet started."),
    isAutoRun: z.boolean().describe("True when the run was started automatically."),
    isRetryGamebook: z.boolean().describe("True when the run retries an earlier one."),
    triggeredBy: changeOrigin.describe("Who started the run."),
    dispatchedAt: timestamp("When the run was dispatched to the executor"),
    playbooks: z
      .array(
        z.strictObject({
          id: z.string().describe("The playbook entry's id (its step id)."),
          referenceId: z.string().describe("The catalogue playbook (`playbooks[i].id` of the run request)."),
          name: z.string().describe("The playbook's name."),
          entityType: z.enum(playbookEntityTypes).describe("The kind of entity it acts on (`User` is a directory account; `Incident` the incident itself)."),
          affectedEntity: z.string().describe("The entity it acts on."),
          sequence: z.int().describe("Its position in the run."),
          isAdminRequired: z.boolean().describe("True when it needs administrator approval."),
          status: z.enum(playbookStatuses).describe("Its status at dispatch: `Pending`."),
        }),
      )
      .describe("The run's playbooks, in sequence order."),
  })
  .describe("A gamebook was dispatched to the executor (not while it waits for approval).");

/** docs/contract.md §6.5: `classificationBucket`, `verdict.maliciousScore`. */
export const agentInvestigationCompletedData = z
  .strictObject({
    investigationId: z.string().describe("The investigation's id."),
    incidentId,
    source,
    sourceDisplayName,
    workspaceId,
    accountId,
    incidentNumber,
    title: z.string().describe("The incident's title."),
    severity,
    agentName: z.string().describe("The agent that ran the investigation."),
    completedAt: timestamp("When the investigation completed"),
    classificationBucket: z
      .enum(classifications)
      .describe("The agent's classification, one of the four canonical values; its card on the agent configuration chose this webhook."),
    verdict: z
      .strictObject({
        maliciousScore: z
          .int()
          .min(0)
          .max(100)
          .nullable()
          .describe("0 to 100, high means more malicious; not a confidence value. Always present; null on the legacy agent path. Score bands are guidance, not enforced."),
        summary: z.string().nullable().describe("The agent's verdict in words, when it gave one."),
      })
      .describe("The agent's verdict."),
  })
  .describe("An agent investigation completed with a classification whose card has a webhook custom action.");

/** `webhook.test.v1` mirrors `incident.created.v1`, with fixed sample values and every vendor block populated. */
export const webhookTestData = incidentCreatedData.describe("A test event: the shape of incident.created.v1 with fixed sample values.");

export interface CatalogueEntry {
  summary: string;
  data: z.ZodType;
}

export const eventCatalogue = {
  "incident.created.v1": {
    summary: "A new incident was ingested into a monitored workspace, or the manual Trigger-webhook action fired.",
    data: incidentCreatedData,
  },
  "incident.closed.v1": {
    summary: "An incident reached Closed by any route; vendor-console closes are found by reconciliation.",
    data: incidentClosedData,
  },
  "incident.status.changed.v1": {
    summary: "An incident's status changed through the service (or a vendor-console close was reconciled).",
    data: incidentStatusChangedData,
  },
  "incident.assignee.changed.v1": {
    summary: "An incident was assigned, reassigned or unassigned through the service.",
    data: incidentAssigneeChangedData,
  },
  "incident.comment.added.v1": {
    summary: "A comment was added through the service by an analyst, agent or gamebook.",
    data: incidentCommentAddedData,
  },
  "gamebook.run.v1": {
    summary: "A gamebook was dispatched to the executor.",
    data: gamebookRunData,
  },
  "agent.investigation.completed.v1": {
    summary: "An agent investigation completed with a classification whose card has a webhook custom action.",
    data: agentInvestigationCompletedData,
  },
  "webhook.test.v1": {
    summary: "A test event sent by POST /webhooks/{id}/test; not subscribable.",
    data: webhookTestData,
  },
} satisfies Record<EventType, CatalogueEntry>;

/** The `data` of an event type, as its schema in the catalogue says: what an emitter must build. */
export type EventData<T extends EventType> = z.output<(typeof eventCatalogue)[T]["data"]>;

const envelopeFields = {
  id: z.string().describe("The event id, also sent as `X-Svc-Event-Id` and `webhook-id`; the same across retries. Deduplicate on it."),
  occurredAt: timestamp("When the event occurred; kept on redelivery"),
};

/** The envelope of any event: `{id, type, occurredAt, data}`, plus `isTest: true` on test events. */
export const eventEnvelope = z
  .strictObject({
    ...envelopeFields,
    type: z.enum(eventTypes).describe("The event type, with its version suffix."),
    data: z.record(z.string(), z.unknown()).describe("The event-specific fields; see the event type."),
    isTest: z.literal(true).optional().describe("Present, and true, on test events only."),
  })
  .describe("The delivery envelope. The signature covers the whole raw body, envelope included.");

/**
 * The envelope of one event type, with that type's `data`. `isTest` is required on `webhook.test.v1`
 * and absent on every other type.
 */
export function eventEnvelopeOf(type: EventType) {
  const typed = {
    ...envelopeFields,
    type: z.literal(type).describe("The event type, with its version suffix."),
    data: eventCatalogue[type].data,
  };
  return type === "webhook.test.v1"
    ? z.strictObject({ ...typed, isTest: z.literal(true).describe("Always true: this is a test event.") })
    : z.strictObject(typed);
}

export interface WebhookHeaderDoc {
  name: string;
  required: boolean;
  description: string;
  /** A value as a delivery sends it (one event, its signatures with one key). */
  example: string;
  /** The form of the value, where it has one. */
  pattern?: string;
}

const EXAMPLE_EVENT_ID = "5d3c8f0e-6a3b-5c1e-9f2d-8b7a6c5d4e3f";
/** 2026-03-02T09:15:04Z. */
const EXAMPLE_DELIVERY_SECONDS = "1772442904";

/**
 * The request headers of a delivery (DESIGN §5, shared/platform/delivery/signer.ts and delivery-worker.ts),
 * for the OpenAPI document and docs/events.md. The endpoint credential (Authorization or X-Api-Key)
 * is listed too; OpenAPI ignores a header parameter named Authorization, so the document describes
 * that one in prose.
 */
export const webhookHeaders: readonly WebhookHeaderDoc[] = [
  {
    name: "X-Svc-Event-Id",
    required: true,
    description: "The event id (= envelope `id`); the same on every retry. Deduplicate on it.",
    example: EXAMPLE_EVENT_ID,
  },
  { name: "X-Svc-Event-Type", required: true, description: "The event type, e.g. `incident.created.v1`.", example: "incident.created.v1" },
  { name: "X-Svc-Schema", required: true, description: "The schema of the body (currently the event type); ignore values you do not know.", example: "incident.created.v1" },
  { name: "X-Svc-Timestamp", required: true, description: "Unix seconds of this attempt; signed.", example: EXAMPLE_DELIVERY_SECONDS, pattern: "^[0-9]+$" },
  {
    name: "X-Svc-Signature",
    required: true,
    description: 'Space-separated `v1=<hex HMAC-SHA256(key, "<X-Svc-Timestamp>.<raw body>")>`, one per live signing key (two during a rotation).',
    example: "v1=a3be0ddaf4a061c47893adf03b3ca8c60da351555a3fbb68ae2b68b042659fdc",
    pattern: "^v1=[0-9a-f]{64}( v1=[0-9a-f]{64})*$",
  },
  { name: "webhook-id", required: true, description: "Standard Webhooks: the event id (= `X-Svc-Event-Id`).", example: EXAMPLE_EVENT_ID },
  {
    name: "webhook-timestamp",
    required: true,
    description: "Standard Webhooks: unix seconds (= `X-Svc-Timestamp`).",
    example: EXAMPLE_DELIVERY_SECONDS,
    pattern: "^[0-9]+$",
  },
  {
    name: "webhook-signature",
    required: true,
    description: 'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>`, one per live signing key.',
    example: "v1,dQJdqc2u8gPK3+KBX1kxGRBgdutGso9DY6UutF86w/U=",
    pattern: "^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$",
  },
  { name: "X-Svc-Test", required: false, description: "`true` on test events (`webhook.test.v1`); absent otherwise.", example: "true", pattern: "^true$" },
  { name: API_KEY_HEADER, required: false, description: "The endpoint credential when the webhook's authenticationType is ApiKey.", example: "k3y-from-your-endpoint-settings" },
];
