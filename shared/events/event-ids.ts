import { createHash, randomUUID } from "node:crypto";
import type { EventType } from "./event-types";

/**
 * A GUID derived from the event type and its subject (contract 6.6.4), so that a republish of the
 * same event carries the same id and receivers deduplicate it. RFC 9562 version 8, SHA-256 based.
 *
 * @example deterministicEventId("incident.closed.v1", `${workspaceId}/${source}/${incidentId}/close/1`)
 */
export function deterministicEventId(type: EventType, subject: string): string {
  const h = createHash("sha256").update(`${type}\n${subject}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Status and assignee transitions, test events and manual fires: a fresh id each time. */
export function freshEventId(): string {
  return randomUUID();
}
