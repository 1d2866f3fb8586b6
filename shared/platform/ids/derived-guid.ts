import { createHash } from "node:crypto";

/**
 * A GUID derived from a text: SHA-256, formatted as RFC 9562 version 8 ("custom"). The same text
 * always gives the same GUID, so a repeat of the same thing (an event republished, a delivery
 * attempt retried, a demo entity seeded again) gets the same id.
 *
 * @example derivedGuid(`incident.closed.v1\n${workspaceId}/${source}/${incidentId}/close/1`)
 */
export function derivedGuid(text: string): string {
  const h = createHash("sha256").update(text).digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
