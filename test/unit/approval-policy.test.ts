import { describe, expect, it } from "vitest";
import { approvalRequired, type ApprovalMode, type PartnerApprovalSetting, type RunForApproval } from "../../shared/domain/gamebooks/approval-policy";

const provider = "provider-1";
const customer = "customer-1";

function run(extra: Partial<RunForApproval> = {}): RunForApproval {
  return { accountId: customer, managedByAccountId: provider, playbooks: [{ isAdminRequired: false }, { isAdminRequired: false }], isQueued: false, ...extra };
}
const adminRun = (extra: Partial<RunForApproval> = {}) => run({ playbooks: [{ isAdminRequired: false }, { isAdminRequired: true }], ...extra });
const partner = (mode: ApprovalMode, accountIds: string[] = []): PartnerApprovalSetting => ({ providerAccountId: provider, mode, accountIds });

describe("approvalRequired", () => {
  it("dispatches at once when nothing asks for approval", () => {
    expect(approvalRequired(adminRun(), null, null)).toEqual({ required: false, reasons: [] });
    expect(approvalRequired(adminRun(), "NoApproval", partner("NoApproval"))).toEqual({ required: false, reasons: [] });
  });

  it("queues a run the caller asked to queue, whatever the settings say", () => {
    expect(approvalRequired(run({ isQueued: true }), "NoApproval", null)).toEqual({ required: true, reasons: ["RequestedByCaller"] });
  });

  it("lets isQueued false never waive a policy", () => {
    expect(approvalRequired(run({ isQueued: false }), "AllRuns", null)).toEqual({ required: true, reasons: ["WorkspacePolicy"] });
  });

  it("applies the workspace policy: every run, or only runs with an admin-required playbook", () => {
    expect(approvalRequired(run(), "AllRuns", null).required).toBe(true);
    expect(approvalRequired(run(), "AdminRequiredPlaybooks", null).required).toBe(false);
    expect(approvalRequired(adminRun(), "AdminRequiredPlaybooks", null)).toEqual({ required: true, reasons: ["WorkspacePolicy"] });
  });

  it("applies the managing provider's partner setting to the accounts it manages", () => {
    expect(approvalRequired(run(), null, partner("AllRuns"))).toEqual({ required: true, reasons: ["PartnerApproval"] });
    expect(approvalRequired(run(), null, partner("AdminRequiredPlaybooks")).required).toBe(false);
    expect(approvalRequired(adminRun(), null, partner("AdminRequiredPlaybooks")).required).toBe(true);
  });

  it("ignores a partner setting of a provider that does not manage the account", () => {
    expect(approvalRequired(run({ managedByAccountId: "someone-else" }), null, partner("AllRuns")).required).toBe(false);
    expect(approvalRequired(run({ managedByAccountId: null }), null, partner("AllRuns")).required).toBe(false);
  });

  it("limits a partner setting that lists accounts to those accounts", () => {
    expect(approvalRequired(run(), null, partner("AllRuns", [customer])).required).toBe(true);
    expect(approvalRequired(run(), null, partner("AllRuns", ["customer-2"])).required).toBe(false);
  });

  it("lists every reason that applies, caller first", () => {
    expect(approvalRequired(adminRun({ isQueued: true }), "AdminRequiredPlaybooks", partner("AllRuns"))).toEqual({
      required: true,
      reasons: ["RequestedByCaller", "WorkspacePolicy", "PartnerApproval"],
    });
  });
});
