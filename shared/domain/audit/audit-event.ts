/** Contract 2.12 audit event, plus the account it belongs to (its partition). */
export interface AuditEventRecord {
  id: string;
  accountId: string;
  timeGenerated: string;
  workspaceId: string | null;
  discriminator: string;
  activityType: string;
  activityAction: string;
  actorId: string;
  actorName: string;
  actorEmail: string;
  targetResourceType: string;
  targetResourceId: string;
  targetResourceName: string;
  metadata: string;
}

/** An audit event with its place in its partition's trail (the export's order). */
export interface SequencedAuditEvent {
  sequence: number;
  event: AuditEventRecord;
}
