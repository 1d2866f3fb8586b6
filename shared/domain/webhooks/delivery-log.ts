import type { Source } from "../sources";

export const deliveryStatuses = ["Pending", "Succeeded", "Failed"] as const;

export type DeliveryStatus = (typeof deliveryStatuses)[number];

/** The incident a delivery was about, so that opening the entry can show it as it stands now. */
export interface IncidentRef {
  workspaceId: string;
  source: Source;
  incidentId: string;
}

/**
 * One delivery attempt (contract 2.9): metadata, never a copy of the event. Partitioned by webhook and
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
  /** Seconds until the store may drop it. */
  ttl: number;
}
