import { z } from "zod";
import { normalizeClassification } from "../../../model/incidents/classification";
import { entityKinds, publicStatuses, severities, type Alert, type Entity, type Evidence, type VendorComment, type VendorIncident, type VendorOwner } from "../../../model/incidents/incident";
import { sources } from "../../../model/sources";

/**
 * What a vendor bridge may answer (docs/vendor-bridge.md). Each schema is typed against the gateway
 * type it produces, so the two cannot drift apart. Unknown fields are stripped, not rejected: a bridge
 * may add fields without breaking us, and nothing we did not document reaches the service.
 */

/**
 * UTC only ("Z"), normalised to millisecond precision: the service compares and orders these strings,
 * and "…:00Z" vs "…:00.5Z" or mixed precisions would not sort as the instants they denote.
 */
const timestamp = z.iso
  .datetime()
  .transform((value) => new Date(value))
  .refine((date) => !Number.isNaN(date.getTime()), "Not a valid instant.")
  .transform((date) => date.toISOString());

const owner: z.ZodType<VendorOwner> = z.object({
  userId: z.string().nullable(),
  email: z.string().nullable(),
  name: z.string().nullable().optional(),
});

const entity: z.ZodType<Entity> = z.object({
  id: z.string(),
  kind: z.enum(entityKinds),
  name: z.string(),
  properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
});

const alert: z.ZodType<Alert> = z.object({
  id: z.string(),
  title: z.string(),
  severity: z.enum(severities),
  timeGenerated: timestamp,
  productName: z.string(),
  tactics: z.array(z.string()),
  entityIds: z.array(z.string()),
});

export const vendorIncidentSchema: z.ZodType<VendorIncident> = z.object({
  id: z.string().min(1),
  source: z.enum(sources),
  workspaceId: z.string().min(1),
  number: z.number().int(),
  title: z.string(),
  description: z.string(),
  severity: z.enum(severities),
  status: z.enum(publicStatuses),
  // Vendors spell close reasons their own way; the service speaks the four canonical values.
  classification: z
    .string()
    .nullable()
    .transform((value) => (value === null ? null : normalizeClassification(value))),
  closingComment: z.string().nullable(),
  owner: owner.nullable(),
  createdAt: timestamp,
  lastModificationTime: timestamp,
  lastActivityTime: timestamp,
  entities: z.array(entity),
  alerts: z.array(alert),
  gamebookCatalog: z.record(z.string(), z.unknown()),
  vendorIdentifiers: z.record(z.string(), z.record(z.string(), z.string())),
  /** Only on tombstones, when the listing asked for `includeDeleted`. */
  deletedAt: timestamp.optional(),
});

/** A cursor is opaque but must be usable: null and "" both mean "no further page". */
export const incidentPageSchema = z.object({
  items: z.array(vendorIncidentSchema),
  cursor: z.string().nullish().transform((cursor) => (cursor ? cursor : undefined)),
});

export const incidentListSchema = z.object({ items: z.array(vendorIncidentSchema) });

export const vendorCommentSchema: z.ZodType<VendorComment> = z.object({
  id: z.string().min(1),
  message: z.string(),
  createdTime: timestamp,
  authorEmail: z.string(),
  authorName: z.string(),
  isActivityComment: z.boolean(),
  isAgentComment: z.boolean(),
  agentName: z.string().nullable(),
  isClosingComment: z.boolean(),
  ticketNoteId: z.string().nullable(),
  ticketId: z.string().nullable(),
  extensionId: z.string().nullable(),
});

export const commentListSchema = z.object({ items: z.array(vendorCommentSchema) });

export const evidenceSchema: z.ZodType<Evidence> = z.object({
  rows: z.array(
    z.object({
      id: z.string(),
      entityId: z.string().nullable(),
      kind: z.string(),
      verdict: z.enum(["Malicious", "Suspicious", "Clean", "Unknown"]),
      detail: z.string(),
      collectedAt: timestamp,
    }),
  ),
});
