import { z } from "zod";
import { personWorkspaceRoute } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import { EXAMPLE_APPROVAL_WORKSPACE_ID } from "../../examples/gamebook-examples";
import { approvalModes, approvalExpiryActions, approvalPolicyInput, approvalPolicyOf } from "../../../domain/gamebooks/approval-policy";
import { setApprovalPolicy } from "../../../domain/gamebooks/approval-settings";

const tag = "Portal: approvals";
const workspaceParams = z.object({ workspaceId: z.guid().meta({ examples: [EXAMPLE_APPROVAL_WORKSPACE_ID] }) });

const policyView = z
  .object({
    mode: z.enum(approvalModes),
    approvalTimeoutHours: z.number().int(),
    onExpiry: z.enum(approvalExpiryActions),
    requireSecondApproverForAdminPlaybooks: z.boolean(),
    twoSidedApproval: z.boolean().describe("A run that waits needs one approver of the customer and one of the managing provider."),
  })
  .meta({ examples: [{ mode: "AdminRequiredPlaybooks", approvalTimeoutHours: 24, onExpiry: "Deny", requireSecondApproverForAdminPlaybooks: true, twoSidedApproval: false }] });

const policyBody = approvalPolicyInput.meta({
  examples: [
    { mode: "AdminRequiredPlaybooks", approvalTimeoutHours: 8, requireSecondApproverForAdminPlaybooks: true },
    { mode: "AllRuns", twoSidedApproval: true },
  ],
});

/**
 * A workspace's approval policy for gamebook runs: which runs wait for a person (none, those with a
 * playbook that needs an administrator, all), how long a request waits before it is denied, and
 * whether admin playbooks need two different approvers. Set by a WorkspaceAdmin; the change is
 * audited with the workspace record, in one commit.
 */
export const approvalPolicyRoutes: RouteGroup = {
  name: "portal-approval-policy",
  routes: [
    personWorkspaceRoute({
      method: "GET",
      path: "/portal/workspaces/{workspaceId}/approval-policy",
      summary: "The workspace's approval policy for gamebook runs",
      tag,
      roles: "any",
      params: workspaceParams,
      response: policyView,
      async handler({ workspace }) {
        return { data: approvalPolicyOf(workspace) };
      },
    }),
    personWorkspaceRoute({
      method: "PUT",
      path: "/portal/workspaces/{workspaceId}/approval-policy",
      summary: "Set the workspace's approval policy; settings left out stay as they are",
      description:
        "A change applies to new requests only: runs already waiting keep the policy they were made under (their expiry, approver count and sides). " +
        "`twoSidedApproval` needs a workspace of an organization a service provider manages (400 at `twoSidedApproval` otherwise).",
      tag,
      roles: ["WorkspaceAdmin"],
      params: workspaceParams,
      body: policyBody,
      response: policyView,
      problems: ["VALIDATION_ERROR"],
      async handler(input) {
        const saved = await setApprovalPolicy(input, input.workspace, input.body);
        return { data: approvalPolicyOf(saved.value) };
      },
    }),
  ],
};
