import type { JSX } from "preact";
import { useEffect } from "preact/hooks";
import { api, call } from "../api/client";
import type { paths } from "../api/openapi";
import { navigate, useLocation } from "../router";
import { Empty, ProblemBanner, Select, useResource } from "./";

type WorkspaceList = paths["/api/v2/portal/workspaces"]["get"]["responses"][200]["content"]["application/json"]["data"];
export type Workspace = WorkspaceList[number];

/**
 * The workspace a page shows, kept in the address (`?workspace=<id>`) so that a reload or a shared
 * link lands on the same one; the first of the person's workspaces until one is chosen.
 */
export function useWorkspaceChoice(): { workspaces: Workspace[] | undefined; workspace: Workspace | undefined; choose(id: string): void; picker: JSX.Element } {
  const list = useResource(async () => (await call(api.GET("/api/v2/portal/workspaces"))).data, []);
  const url = useLocation();
  const wanted = url.searchParams.get("workspace");
  const workspaces = list.value;
  const workspace = workspaces?.find((w) => w.id === wanted) ?? workspaces?.[0];
  const choose = (id: string) => {
    const next = new URL(location.href);
    next.searchParams.set("workspace", id);
    navigate(next.pathname + next.search, true);
  };
  useEffect(() => {
    if (workspace && wanted !== workspace.id) choose(workspace.id);
  }, [workspace?.id, wanted]);
  const picker = (
    <div class="filters">
      <ProblemBanner problem={list.problem} title="Your workspaces could not be read" />
      {workspaces && workspaces.length === 0 && <Empty>You may act on no workspace yet.</Empty>}
      {workspaces && workspaces.length > 0 && (
        <Select label="Workspace" name="workspace" value={workspace?.id ?? ""} options={workspaces.map((w) => ({ value: w.id, label: w.name }))} onValue={choose} />
      )}
    </div>
  );
  return { workspaces, workspace, choose, picker };
}
