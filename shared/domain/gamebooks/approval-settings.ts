import { z } from "zod";
import { ApiError, notFound } from "../../platform/errors/api-error";
import { auditRecord } from "../../platform/events/audit-record";
import type { Uses } from "../operation-context";
import { commit } from "../../platform/store/commit";
import { outboxScope } from "../../platform/store/outbox-scope";
import type { Versioned } from "../../platform/store/ports";
import type { AccountRecord } from "../../model/organizations/account";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import type { PartnerApprovalRecord } from "../../model/gamebooks/approval-mode";
import { approvalPolicyInput, approvalPolicyOf } from "./approval-policy";
import { workspaceAudit } from "../organizations/workspace-audit";
import { checkIfMatch } from "../../platform/concurrency/etag";

/*
 * The two approval settings as operators change them: a workspace's policy, on its record, and a
 * service provider's partner setting, on its account record, where the approval decision reads them.
 * Each change commits with its audit event in the record's own partition, the actor as who changed it.
 */

/** A policy as a settings page sends it: the mode, and the settings that change (those left out stay). */
export type ApprovalPolicyChange = z.output<typeof approvalPolicyInput>;

/**
 * Sets the workspace's approval policy (the older mode-only form included): the mode, and each setting
 * the change names, over the policy as it stands (read in the same commit); audits the change
 * (`ApprovalPolicy`, before and after). An offboarded workspace is 404.
 */
export async function setApprovalPolicy(ctx: Uses<"actor" | "events" | "now" | "stores">, workspace: WorkspaceRecord, policy: ApprovalPolicyChange): Promise<Versioned<WorkspaceRecord>> {
  const { stores } = ctx;
  return commit({
    deadline: ctx.deadline,
    read: async () => {
      const found = await stores.workspaces.read(workspace.id);
      if (!found || found.value.offboarded) throw notFound("The workspace", "workspaceId");
      // Two sides need a second one: a provider that manages the workspace's organization.
      if (policy.twoSidedApproval === true && !(await stores.accounts.get(found.value.accountId))?.managedByAccountId) {
        throw fieldProblem("twoSidedApproval", "Two-sided approval needs a workspace of an organization that a service provider manages: this one has no second side.");
      }
      return found;
    },
    change(draft) {
      const before = approvalPolicyOf(draft);
      const named = Object.fromEntries(Object.entries(policy).filter(([, value]) => value !== undefined));
      const after = { ...before, ...named };
      draft.gamebookApproval = after;
      return [
        workspaceAudit(ctx, draft, "ApprovalPolicy", "Update", { before, after }),
      ];
    },
    write: (draft, etag, outbox) => stores.workspaces.replace(draft, etag!, outbox),
    outbox: ctx.events.outbox,
  });
}

export interface PartnerApprovalOptions {
  /** The caller's `If-Match`: a version other than the one read is 409. */
  ifMatch?: string;
  /**
   * Reads the provider's account with its version; a caller that may see only some organizations
   * reads it through that check (404 for one it may not see). Default: the account by id.
   */
  read?: () => Promise<Versioned<AccountRecord>>;
}

/**
 * Sets a service provider's partner approval setting (`accountIds` empty: every organization it
 * manages) and audits the change (`PartnerApproval`, before and after) in the provider's trail. Only a
 * service provider has one (400 at `accountId`), naming only organizations it manages (400 at
 * `accountIds`). Another organization's is `NoApproval` for every account, as a read shows it: that
 * setting sent back changes nothing and answers the organization as it is.
 */
export async function setPartnerApproval(
  ctx: Uses<"actor" | "events" | "now" | "stores">,
  accountId: string,
  setting: { mode: PartnerApprovalRecord["mode"]; accountIds: readonly string[] },
  options: PartnerApprovalOptions = {},
): Promise<Versioned<AccountRecord>> {
  const { stores } = ctx;
  const accountIds = setting.accountIds.map((id) => id.toLowerCase());
  const read =
    options.read ??
    (async () => {
      const found = await stores.accounts.read(accountId.toLowerCase());
      if (!found) throw notFound("The organization", "accountId");
      return found;
    });
  if (setting.mode === "NoApproval" && accountIds.length === 0) {
    const found = await read();
    if (found.value.kind !== "ServiceProvider") {
      if (options.ifMatch !== undefined) checkIfMatch(options.ifMatch, found.etag);
      return found;
    }
  }
  return commit({
    deadline: ctx.deadline,
    async read() {
      const found = await read();
      if (found.value.kind !== "ServiceProvider") throw fieldProblem("accountId", "Only a service provider has a partner approval setting.");
      const managed = new Set((await stores.accounts.listManagedBy(found.value.id)).map((a) => a.id));
      const foreign = accountIds.filter((id) => !managed.has(id));
      if (foreign.length > 0) throw fieldProblem("accountIds", `Not managed by this provider: ${foreign.join(", ")}.`);
      return found;
    },
    ifMatch: options.ifMatch,
    change(draft) {
      const now = ctx.now();
      const before = draft.partnerApproval ?? { mode: "NoApproval", accountIds: [] };
      draft.partnerApproval = { mode: setting.mode, accountIds };
      draft.lastModifiedAt = now.toISOString();
      return [
        auditRecord(
          ctx.actor,
          {
            activityType: "PartnerApproval",
            activityAction: "Update",
            targetResourceType: "Organization",
            targetResourceId: draft.id,
            targetResourceName: draft.name,
            accountId: draft.id,
            metadata: { before, after: draft.partnerApproval },
          },
          outboxScope.account(draft.id),
          now,
        ),
      ];
    },
    write: (draft, etag, outbox) => stores.accounts.replace(draft, etag!, outbox),
    outbox: ctx.events.outbox,
  });
}

function fieldProblem(field: string, message: string): ApiError {
  return new ApiError("VALIDATION_ERROR", message, { target: field, errors: { [field]: [message] } });
}
