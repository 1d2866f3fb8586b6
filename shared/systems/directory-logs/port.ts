import { ApiError } from "../../platform/errors/api-error";

/**
 * The port to a tenant's identity logs: sign-ins and directory audit events, shaped after Microsoft
 * Graph `auditLogs/signIns` and `auditLogs/directoryAudits` (the property names an analyst already
 * knows from the Entra admin center and from KQL's SigninLogs/AuditLogs). Adapters: simulated logs of
 * the demo users (local default) and Microsoft Graph. Every method fails only with an ApiError.
 */
export interface DirectoryLogs {
  /** False when the deployment cannot read this tenant's directory: every call answers EXTENSION_NOT_ENABLED. */
  isEnabled(tenantId: string): boolean;
  /** Sign-ins in the window, newest first. */
  listSignIns(query: DirectoryLogQuery, signal?: AbortSignal): Promise<LogPage<SignInRecord>>;
  /** Directory audit events in the window, newest first. */
  listDirectoryAudits(query: DirectoryLogQuery, signal?: AbortSignal): Promise<LogPage<DirectoryAuditRecord>>;
}

/** Graph's own maximum page size for both logs. */
export const MAX_DIRECTORY_LOG_PAGE_SIZE = 1000;

export interface DirectoryLogQuery {
  /** The Entra tenant (the workspace's `tenantId`). */
  tenantId: string;
  /**
   * A user's object id (GUID) or user principal name. Sign-ins: the user who signed in. Directory
   * audits: the user who initiated the activity.
   */
  user?: string;
  /** Inclusive lower bound (UTC timestamp). */
  from: string;
  /** Exclusive upper bound (UTC timestamp). */
  to: string;
  /** 1 to 1,000. A page may hold fewer and still have a cursor (see LogPage). */
  pageSize: number;
  /** The previous page's cursor, unchanged, with the same query. */
  cursor?: string;
}

export interface LogPage<T> {
  items: T[];
  /**
   * Present while more may follow. A page can be short, even empty, and still carry a cursor: each
   * page does a bounded amount of upstream work, and a sparse window may need several pages.
   */
  cursor?: string;
}

export interface SignInRecord {
  id: string;
  createdDateTime: string;
  userId: string;
  userDisplayName: string | null;
  userPrincipalName: string | null;
  appId: string | null;
  appDisplayName: string | null;
  /** The resource signed in to (Office 365 Exchange Online, Microsoft Graph, Azure Portal, …). */
  resourceDisplayName: string | null;
  /** "Browser", "Mobile Apps and Desktop clients", "Exchange ActiveSync", "IMAP", … (legacy auth stands out). */
  clientAppUsed: string | null;
  isInteractive: boolean | null;
  ipAddress: string | null;
  location: SignInLocation;
  deviceDetail: DeviceDetail;
  /** errorCode 0 is success; otherwise the AADSTS code and its reason. */
  status: { errorCode: number; failureReason: string | null; additionalDetails: string | null };
  /** "success", "failure", "notApplied". */
  conditionalAccessStatus: string | null;
  appliedConditionalAccessPolicies: AppliedConditionalAccessPolicy[];
  /** "none", "low", "medium", "high", "hidden". */
  riskLevelDuringSignIn: string | null;
  riskLevelAggregated: string | null;
  /** "none", "atRisk", "confirmedCompromised", "remediated", "dismissed", "confirmedSafe". */
  riskState: string | null;
  riskDetail: string | null;
  /** Graph's `riskEventTypes_v2`: "unfamiliarFeatures", "anonymizedIPAddress", "impossibleTravel", … */
  riskEventTypes: string[];
  correlationId: string | null;
}

export interface SignInLocation {
  city: string | null;
  state: string | null;
  countryOrRegion: string | null;
  latitude: number | null;
  longitude: number | null;
}

export interface DeviceDetail {
  deviceId: string | null;
  displayName: string | null;
  operatingSystem: string | null;
  browser: string | null;
  isCompliant: boolean | null;
  isManaged: boolean | null;
  trustType: string | null;
}

export interface AppliedConditionalAccessPolicy {
  id: string;
  displayName: string | null;
  /** "success", "failure", "notApplied", "notEnabled", "unknown", "reportOnlySuccess", … */
  result: string | null;
  enforcedGrantControls: string[];
  enforcedSessionControls: string[];
}

export interface DirectoryAuditRecord {
  id: string;
  activityDateTime: string;
  /** "Update user", "Add member to role", "Consent to application", … */
  activityDisplayName: string;
  /** "UserManagement", "GroupManagement", "ApplicationManagement", "RoleManagement", "Policy", … */
  category: string | null;
  /** "Add", "Update", "Delete", "Assign", "Unassign". */
  operationType: string | null;
  /** "success", "failure", "timeout". */
  result: string | null;
  resultReason: string | null;
  loggedByService: string | null;
  correlationId: string | null;
  initiatedBy: {
    user: { id: string | null; displayName: string | null; userPrincipalName: string | null; ipAddress: string | null } | null;
    app: { appId: string | null; displayName: string | null; servicePrincipalId: string | null; servicePrincipalName: string | null } | null;
  };
  targetResources: TargetResource[];
  additionalDetails: { key: string; value: string | null }[];
}

export interface TargetResource {
  id: string | null;
  displayName: string | null;
  /** "User", "Group", "Application", "ServicePrincipal", "Policy", "Role", "Device". */
  type: string | null;
  userPrincipalName: string | null;
  modifiedProperties: { displayName: string | null; oldValue: string | null; newValue: string | null }[];
}

/** Directory logs with no system configured: every call is 400 EXTENSION_NOT_ENABLED naming the integration. */
export function disabledDirectoryLogs(): DirectoryLogs {
  const refuse = async (): Promise<never> => {
    throw directoryLogsNotEnabled();
  };
  return { isEnabled: () => false, listSignIns: refuse, listDirectoryAudits: refuse };
}

export function directoryLogsNotEnabled(tenantId?: string): ApiError {
  const where = tenantId === undefined ? "this deployment" : `tenant ${tenantId}`;
  return new ApiError("EXTENSION_NOT_ENABLED", `The directory logs integration is not enabled for ${where}.`, { target: "directoryLogs" });
}

/** The checks every adapter makes before reading: a real window and a page size Graph accepts. */
export function checkDirectoryLogQuery(query: DirectoryLogQuery): { from: number; to: number } {
  const from = Date.parse(query.from);
  const to = Date.parse(query.to);
  const problems: Record<string, string[]> = {};
  if (Number.isNaN(from)) problems.from = ["Must be a timestamp."];
  if (Number.isNaN(to)) problems.to = ["Must be a timestamp."];
  else if (!Number.isNaN(from) && to <= from) problems.to = ["Must be later than from."];
  if (!Number.isInteger(query.pageSize) || query.pageSize < 1 || query.pageSize > MAX_DIRECTORY_LOG_PAGE_SIZE) {
    problems.pageSize = [`Must be an integer from 1 to ${MAX_DIRECTORY_LOG_PAGE_SIZE}.`];
  }
  const fields = Object.keys(problems);
  if (fields.length > 0) throw new ApiError("VALIDATION_ERROR", "The directory log query is invalid.", { target: fields[0], errors: problems });
  return { from, to };
}

/** A GUID names a user by object id; anything else is a user principal name. */
export function isObjectId(user: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(user);
}
