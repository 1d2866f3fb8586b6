import { useSourceName } from "../session";
import { Badge, DataTable } from "../ui";
import { SOURCE_NAMES, type Workspace } from "./workspace-model";

/** A workspace's sources as they are: switched on or off, in effect or not, and what serves each. */
export function SourcesTable({ workspace: w }: { workspace: Workspace }) {
  const sourceName = useSourceName();
  return (
    <>
      <h2 id="sources-heading" class="section-heading">
        Sources
      </h2>
      <DataTable label={`Sources of ${w.name}`} aria-labelledby="sources-heading" class="sources-table" columns={["Source", "Switch", "In effect", "Vendor's workspace id", "Served by"]}>
        {SOURCE_NAMES.map((s) => {
          const v = w.sources[s];
          return (
            <tr key={s}>
              <th scope="row">{sourceName(s)}</th>
              <td>{v.enabled ? "On" : "Off"}</td>
              <td>{v.inEffect ? <Badge tone="ok">In effect</Badge> : <Badge tone={v.enabled ? "warn" : "neutral"}>Not in effect</Badge>}</td>
              <td>{v.vendorWorkspaceId ? <code>{v.vendorWorkspaceId}</code> : <span class="muted">The workspace's id</span>}</td>
              <td>
                {v.bridge ? (
                  <>
                    Own bridge <code>{v.bridge.url}</code>
                    <span class="muted">{v.bridge.hasAuthorization ? " · Authorization kept" : " · no Authorization"}</span>
                  </>
                ) : (
                  <span class="muted">The deployment's system</span>
                )}
              </td>
            </tr>
          );
        })}
      </DataTable>
    </>
  );
}
