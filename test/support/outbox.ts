import type { Uses } from "../../shared/domain/operation-context";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import type { EventEnvelope } from "../../shared/platform/events/event-message";

/** The events a workspace's writes committed to the outbox, published or not, oldest first. */
export async function outboxEvents(services: Uses<"stores">, workspaceId: string): Promise<EventEnvelope[]> {
  const records = await services.stores.outbox.list(outboxScope.workspace(workspaceId), 100_000);
  return records.flatMap((r) => (r.kind === "event" ? [r.message.envelope] : []));
}
