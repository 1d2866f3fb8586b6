import { useSourceName } from "../session";
import { Badge, TableScroll } from "../ui";
import { SOURCE_NAMES, type Workspace } from "./workspace-model";

/** A workspace's sources as they are: switched on or off, in effect or not, and what serves each. */
export function SourcesTable({ workspace: w }: { workspace: Workspace }) {
  const sourceName = useSourceName();
  return (
    <>
      <h2 id="sources-heading" class="section-heading">
        Sources
      </h2>
      <TableScroll label={`Sources of ${w.name}`}>
        <table aria-labelledby="sources-heading" class="sources-table">
          <thead>
            <tr>
              <th scope="col">Source</th>
              <th scope="col">Switch</th>
              <th scope="col">In effect</th>
              <th scope="col">Vendor's workspace id</th>
              <th scope="col">Served by</th>
            </tr>
          </thead>
          <tbody>
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
          </tbody>
        </table>
      </TableScroll>
    </>
  );
}
