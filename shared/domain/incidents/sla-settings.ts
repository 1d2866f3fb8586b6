import type { z } from "zod";
import { notFound } from "../../platform/errors/api-error";
import type { Uses } from "../../platform/operation-context";
import { commit } from "../../platform/store/commit";
import type { Versioned } from "../../platform/store/ports";
import type { WorkspaceRecord } from "../organizations/workspace";
import { workspaceAudit } from "../organizations/workspace-audit";
import { slaPolicyOf, type slaPolicyInput } from "./sla-policy";

/**
 * Sets the workspace's SLA policy (the whole of it), with the caller's `If-Match` on the workspace
 * record, audited (`SlaPolicy`, before and after) in the workspace's trail, in one commit. A policy
 * equal to the one stored writes nothing. An offboarded workspace is 404.
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
  const after = slaPolicyOf({ slaPolicy: policy });
  const saved = await commit({
    read,
    ifMatch,
    change(draft) {
      const before = slaPolicyOf(draft);
      if (JSON.stringify(before) === JSON.stringify(after)) return null;
      draft.slaPolicy = after;
      draft.lastModifiedAt = ctx.now().toISOString();
      return [workspaceAudit(ctx, draft, "SlaPolicy", "Update", { before, after })];
    },
    write: (draft, etag, outbox) => stores.workspaces.replace(draft, etag!, outbox),
    outbox: ctx.events.outbox,
  });
  return saved ?? current!;
}
