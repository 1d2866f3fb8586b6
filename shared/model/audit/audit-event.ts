/** docs/contract.md §2.12 audit event, plus the account it belongs to (its partition). */
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

/** An audit event with its place in its trail (the export's order). */
export interface SequencedAuditEvent {
  sequence: number;
  event: AuditEventRecord;
}

/**
 * How long an audit event is kept from when it was recorded, unless `AUDIT_RETENTION_DAYS` says
 * otherwise: a year, the span a SOC 2 Type II period or PCI DSS's log history asks the trail to
 * cover as evidence (Entra ID keeps its audit logs 30 days, the Azure Activity Log and Okta 90, GitHub
 * 180; consumers that need longer export to their own archive).
 */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;
