import { randomUUID } from "node:crypto";
import { derivedGuid } from "../ids/derived-guid";
import type { EventType } from "../../model/events/event-types";

/**
 * A GUID derived from the event type and its subject (docs/contract.md §6.6.4), so that a republish of the
 * same event carries the same id and receivers deduplicate it. RFC 9562 version 8, SHA-256 based.
 *
 * @example deterministicEventId("incident.closed.v1", `${workspaceId}/${source}/${incidentId}/close/1`)
 */
export function deterministicEventId(type: EventType, subject: string): string {
  return derivedGuid(`${type}\n${subject}`);
}

/** Status and assignee transitions, test events and manual fires: a fresh id each time. */
export function freshEventId(): string {
  return randomUUID();
}
