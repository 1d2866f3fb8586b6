import { isDeepStrictEqual } from "node:util";
import type { z } from "zod";
import { notFound } from "../../platform/errors/api-error";
import type { Uses } from "../operation-context";
import { commit } from "../../platform/store/commit";
import type { Versioned } from "../../platform/store/ports";
import type { WorkspaceRecord } from "../../model/organizations/workspace";
import { workspaceAudit } from "../organizations/workspace-audit";
import { slaPolicyOf, type slaPolicyInput } from "./sla-policy";

/**
 * Sets the workspace's SLA targets: each severity the change names (null removes its target), those
 * left out kept, over the policy as it stands (read in the same commit, `If-Match` on the workspace
 * record); audited (`SlaPolicy`, before and after) in the workspace's trail, in one commit. A change
 * that changes nothing writes nothing. An offboarded workspace is 404.
 */
export async function setSlaPolicy(
  ctx: Uses<"actor" | "events" | "now" | "stores">,
  workspace: Pick<WorkspaceRecord, "id">,
  policy: z.output<typeof slaPolicyInput>,
  ifMatch?: string,
): Promise<Versioned<WorkspaceRecord>> {
  const { stores } = ctx;
  let current: Versioned<WorkspaceRecord> | undefined;
  const read = async () => {
    const found = await stores.workspaces.read(workspace.id);
    if (!found || found.value.offboarded) throw notFound("The workspace", "workspaceId");
    return (current = found);
  };
  const saved = await commit({
    deadline: ctx.deadline,
    read,
    ifMatch,
    change(draft) {
      const before = slaPolicyOf(draft);
      const named = Object.fromEntries(Object.entries(policy.timeToResolveMinutes).filter(([, minutes]) => minutes !== undefined));
      const after = { timeToResolveMinutes: { ...before.timeToResolveMinutes, ...named } };
      if (isDeepStrictEqual(before, after)) return null;
      draft.slaPolicy = after;
      draft.lastModifiedAt = ctx.now().toISOString();
      return [workspaceAudit(ctx, draft, "SlaPolicy", "Update", { before, after })];
    },
    write: (draft, etag, outbox) => stores.workspaces.replace(draft, etag!, outbox),
    outbox: ctx.events.outbox,
  });
  return saved ?? current!;
}
