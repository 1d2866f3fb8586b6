import { z } from "zod";
import { notFound } from "../../../platform/errors/api-error";
import { personWorkspaceRoute } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import { severities } from "../../../model/incidents/incident";
import { slaPolicyInput, slaPolicyOf } from "../../../domain/incidents/sla-policy";
import { setSlaPolicy } from "../../../domain/incidents/sla-settings";
import { EXAMPLE_WORKSPACE_ID } from "../../../platform/http/examples";
import { demoSlaPolicy } from "../../examples/incident-examples";

const tag = "Portal: workspaces";
const path = "/portal/workspaces/{workspaceId}/sla-policy";
const workspaceParams = z.strictObject({ workspaceId: z.guid().describe("The workspace's id.").meta({ examples: [EXAMPLE_WORKSPACE_ID] }) });

const policyView = z
  .object({
    timeToResolveMinutes: z
      .object(Object.fromEntries(severities.map((s) => [s, z.int().nullable()])) as Record<(typeof severities)[number], z.ZodNullable<z.ZodInt>>)
      .describe("Per severity, the minutes an incident may take to resolve (its SLA clock: paused time left out); null: no target."),
  })
  .meta({ examples: [demoSlaPolicy] });

/**
 * A workspace's SLA targets: the time to resolve an incident, per severity, which every incident view
 * measures its SLA clock against. Anyone who may see the workspace reads them; `WorkspaceAdmin` (and
 * `Admin`) set them, audited with the workspace record in one commit, `If-Match` honoured.
 */
export const slaPolicyRoutes: RouteGroup = {
  name: "portal-sla-policy",
  routes: [
    personWorkspaceRoute({
      method: "GET",
      path,
      summary: "The workspace's SLA targets: time to resolve, per severity",
      description: "`ETag` is the workspace record's version, which `PUT` takes as `If-Match`.",
      tag,
      roles: "any",
      params: workspaceParams,
      response: policyView,
      responseHeaders: ["ETag"],
      async handler({ stores, workspace }) {
        const found = await stores.workspaces.read(workspace.id);
        if (!found) throw notFound("The workspace", "workspaceId");
        return { data: slaPolicyOf(found.value), headers: { ETag: found.etag } };
      },
    }),
    personWorkspaceRoute({
      method: "PUT",
      path,
      summary: "Set the workspace's SLA targets; severities left out keep theirs",
      description:
        "Each severity's time-to-resolve target in minutes; null: none; left out: as it is. Applies at once to every incident's `sla` (open ones included: " +
        "a tighter target may show one breached). Optional `If-Match` (the `ETag` of a read): a change made since is 409 `CONFLICT`. Audited (`SlaPolicy`).",
      tag,
      roles: ["WorkspaceAdmin"],
      problems: ["CONFLICT"],
      params: workspaceParams,
      // The demo's targets again: the example changes nothing, so the incident examples' SLA stays as documented.
      body: slaPolicyInput.meta({ examples: [demoSlaPolicy] }),
      response: policyView,
      responseHeaders: ["ETag"],
      ifMatch: true,
      async handler(input) {
        const saved = await setSlaPolicy(input, input.workspace, input.body, input.header("if-match"));
        return { data: slaPolicyOf(saved.value), headers: { ETag: saved.etag } };
      },
    }),
  ],
};
