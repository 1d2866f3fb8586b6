import type { Source } from "../sources";

export const deliveryStatuses = ["Pending", "Succeeded", "Failed"] as const;

export type DeliveryStatus = (typeof deliveryStatuses)[number];

/** The incident a delivery was about, so that opening the entry can show it as it stands now. */
export interface IncidentRef {
  workspaceId: string;
  source: Source;
  incidentId: string;
}

/** The start of a receiver's answer to a test delivery, as the delivery log keeps it. */
export interface ResponseExcerpt {
  /** At most 2 KiB of UTF-8; control characters escaped, credentials the receiver echoed masked. */
  text: string;
  /** The body went on beyond the excerpt. */
  truncated: boolean;
}

/**
 * One delivery attempt (docs/contract.md §2.9): metadata, never a copy of the event. Partitioned by webhook and
 * UTC day of `createdAt` (DESIGN §3), expiring by `ttl`.
 */
export interface DeliveryLogRecord {
  id: string;
  /** `<webhookId>:<yyyy-mm-dd>` of createdAt. */
  partitionKey: string;
  webhookConfigurationId: string;
  eventId: string;
  eventType: string;
  eventOccurredAt: string;
  status: DeliveryStatus;
  /** 0 when no HTTP response was received (see `error`). */
  httpStatusCode: number;
  success: boolean;
  requestUrl: string;
  /** As sent, with credentials and signatures redacted. */
  requestHeaders: Record<string, string>;
  durationMs: number;
  createdAt: string;
  redelivered: boolean;
  attempt: number;
  isTest: boolean;
  incident: IncidentRef | null;
  /** What went wrong without a response (timeout, connection, blocked address), or why it stopped. */
  error: string | null;
  /**
   * Test deliveries only: the start of the receiver's answer, for a person debugging the endpoint (the
   * test event carries sample data only). Event deliveries keep none; absent on entries written before.
   */
  responseExcerpt?: ResponseExcerpt | null;
  /** Seconds until the store may drop it. */
  ttl: number;
}

/** What `error` says of a failed attempt that will be made again; a final failure never says it. */
export const RETRY_SCHEDULED = "; next attempt at ";

/** A failure that ends its delivery: retries exhausted, a permanent answer, or never sent. */
export function isFinalFailure(entry: Pick<DeliveryLogRecord, "status" | "error">): boolean {
  return entry.status === "Failed" && !(entry.error ?? "").includes(RETRY_SCHEDULED);
}

/** The class of an attempt's HTTP status; `none` when no response came (network error, timeout, never sent, held). */
export const statusClasses = ["2xx", "3xx", "4xx", "5xx", "none"] as const;

export type StatusClass = (typeof statusClasses)[number];

/** The `httpStatusCode` values of a class, both ends included. */
export function statusCodeRange(statusClass: StatusClass): { min: number; max: number } {
  if (statusClass === "none") return { min: 0, max: 0 };
  const hundred = Number(statusClass[0]) * 100;
  return { min: hundred, max: hundred + 99 };
}

export function statusClassOf(httpStatusCode: number): StatusClass {
  return statusClasses.find((c) => c !== "none" && httpStatusCode >= statusCodeRange(c).min && httpStatusCode <= statusCodeRange(c).max) ?? "none";
}

/** Which entries a listing keeps: one outcome, one status class, or both. */
export interface DeliveryLogFilter {
  status?: DeliveryStatus;
  statusClass?: StatusClass;
}

/** The fields of an entry that health figures and bulk redelivery read: what the store returns for them. */
export type DeliveryOutcome = Pick<
  DeliveryLogRecord,
  "id" | "eventId" | "eventType" | "eventOccurredAt" | "status" | "httpStatusCode" | "durationMs" | "createdAt" | "attempt" | "isTest" | "redelivered" | "incident" | "error"
>;

export const deliveryOutcomeFields = [
  "id",
  "eventId",
  "eventType",
  "eventOccurredAt",
  "status",
  "httpStatusCode",
  "durationMs",
  "createdAt",
  "attempt",
  "isTest",
  "redelivered",
  "incident",
  "error",
] as const satisfies readonly (keyof DeliveryOutcome)[];
