import { randomUUID } from "node:crypto";
import type { Principal } from "../auth/principal";
import type { Logger } from "../logger";
import type { AuditStore } from "../store/ports";

export interface AuditEntry {
  activityType: string;
  activityAction: "Create" | "Update" | "Delete";
  targetResourceType: string;
  targetResourceId: string;
  targetResourceName: string;
  /** Changed fields and other context; never secrets. */
  metadata?: Record<string, unknown>;
  workspaceId?: string | null;
  /** Defaults to the caller's account; set when the target lives in a managed account. */
  accountId?: string;
}

/** Appends one audit event (contract 2.12) per write, attributed to the calling service account. */
export class AuditTrail {
  constructor(
    private readonly store: AuditStore,
    private readonly now: () => Date,
    private readonly logger: Logger,
  ) {}

  async record(actor: Principal, entry: AuditEntry): Promise<void> {
    const event = {
      id: randomUUID(),
      accountId: entry.accountId ?? actor.accountId,
      timeGenerated: this.now().toISOString(),
      workspaceId: entry.workspaceId ?? null,
      discriminator: entry.workspaceId ? "Workspace" : "Organization",
      activityType: entry.activityType,
      activityAction: entry.activityAction,
      actorId: actor.serviceAccountId,
      actorName: actor.name,
      // Service accounts have no mailbox; the field stays a string, as the contract types it.
      actorEmail: "",
      targetResourceType: entry.targetResourceType,
      targetResourceId: entry.targetResourceId,
      targetResourceName: entry.targetResourceName,
      metadata: JSON.stringify(entry.metadata ?? {}),
    };
    try {
      await this.store.append(event);
    } catch (error) {
      // The change itself has committed; losing its audit line must at least be loud.
      this.logger.error("audit append failed", { event, error: String(error) });
      throw error;
    }
  }
}
