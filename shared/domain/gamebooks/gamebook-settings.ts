import type { Uses } from "../operation-context";

import { PLAYBOOK_CATALOGUE_ID, type PlaybookCatalogueRecord } from "../../model/gamebooks/playbook-catalogue-record";
import type { AccountRecord } from "../../model/organizations/account";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { approvalPolicyOf, type GamebookApprovalPolicy, type PartnerApprovalSetting } from "./approval-policy";

/** A workspace's playbook catalogue; one without a catalogue has no playbooks, gamebooks or rules. */
export async function catalogueOf(services: Uses<"stores">, workspaceId: string): Promise<PlaybookCatalogueRecord> {
  return (
    (await services.stores.playbookCatalogues.get(workspaceId)) ?? {
      id: PLAYBOOK_CATALOGUE_ID,
      workspaceId,
      playbooks: [],
      gamebooks: [],
      rules: [],
      updatedAt: "",
    }
  );
}

/** The catalogues of the workspaces these runs belong to, each read once, by workspace id (undefined: none). */
export async function cataloguesOfRuns(services: Uses<"stores">, runs: readonly { workspaceId: string }[]): Promise<Map<string, PlaybookCatalogueRecord | undefined>> {
  const ids = [...new Set(runs.map((r) => r.workspaceId))];
  const found = await Promise.all(ids.map((id) => services.stores.playbookCatalogues.get(id)));
  return new Map(ids.map((id, i) => [id, found[i]]));
}

export interface ApprovalSettings {
  /** The workspace's own policy, defaults filled in (a workspace without one is `NoApproval`). */
  workspacePolicy: GamebookApprovalPolicy;
  /** The account owning the workspace; undefined only if it was removed. */
  account: AccountRecord | undefined;
  /** The setting of the provider managing that account, when it has one. */
  partner: PartnerApprovalSetting | null;
}

/** The two settings that can require approval of a run in this workspace (approval-policy.ts). */
export async function approvalSettingsOf(services: Uses<"stores">, workspace: WorkspaceRecord): Promise<ApprovalSettings> {
  const account = await services.stores.accounts.get(workspace.accountId);
  const provider = account?.managedByAccountId ? await services.stores.accounts.get(account.managedByAccountId) : undefined;
  return {
    workspacePolicy: approvalPolicyOf(workspace),
    account,
    partner: provider?.partnerApproval ? { providerAccountId: provider.id, mode: provider.partnerApproval.mode, accountIds: provider.partnerApproval.accountIds } : null,
  };
}
