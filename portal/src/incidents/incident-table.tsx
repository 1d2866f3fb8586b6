import { IncidentLink } from "../ui/incident-link";
import { WindowedRows } from "../ui/windowed-rows";
import { useSourceName } from "../session";
import { Badge, TableScroll, Time } from "../ui";
import { type IncidentSummary } from "./incident-queue";
import { severityTone } from "./incident-filters";

/**
 * The incidents shown, in the queue's order. Where the person acts (`actsOn`: workspaces they hold a
 * role on), each row has a checkbox for the bulk actions; elsewhere they read.
 */
export const incidentKey = (i: IncidentSummary) => `${i.incident.workspaceId}/${i.source}/${i.incident.id}`;

export function IncidentTable(props: {
  incidents: IncidentSummary[];
  workspaceNames: Map<string, string>;
  canAct: boolean;
  actsOn: Set<string>;
  selected: Map<string, IncidentSummary>;
  onSelect(incident: IncidentSummary, on: boolean): void;
  onSelectAll(on: boolean): void;
}) {
  const sourceName = useSourceName();
  const { incidents, canAct, actsOn, selected } = props;
  const selectable = canAct ? incidents.filter((i) => actsOn.has(i.incident.workspaceId)) : [];
  return (
    <TableScroll label="Incidents">
      <table class="incidents" aria-rowcount={incidents.length + 1}>
        <thead>
          <tr aria-rowindex={1}>
            {canAct && (
              <th scope="col" class="select-cell">
                <input
                  type="checkbox"
                  aria-label="Select all incidents shown"
                  data-select-all=""
                  checked={selectable.length > 0 && selectable.every((i) => selected.has(incidentKey(i)))}
                  disabled={selectable.length === 0}
                  onChange={(e) => props.onSelectAll((e.currentTarget as HTMLInputElement).checked)}
                />
              </th>
            )}
            <th scope="col">Incident</th>
            <th scope="col">Severity</th>
            <th scope="col">Status</th>
            <th scope="col">Workspace</th>
            <th scope="col">Assignee</th>
            <th scope="col">Created</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        {/* However many pages were shown, only the rows near the viewport are in the DOM. */}
        <WindowedRows
          rows={incidents}
          rowKey={incidentKey}
          columns={canAct ? 8 : 7}
          renderRow={(i, place) => (
            <tr
              {...place}
              data-workspace-id={i.incident.workspaceId}
              data-incident-id={i.incident.id}
              data-created-at={i.incident.createdAt}
              data-severity={i.incident.severity}
              data-assignee={i.assignee?.name ?? i.assignee?.email ?? ""}
            >
              {canAct && (
                <td class="select-cell">
                  {actsOn.has(i.incident.workspaceId) ? (
                    <input
                      type="checkbox"
                      aria-label={`Select #${i.incident.number} ${i.incident.title}`}
                      data-select=""
                      checked={selected.has(incidentKey(i))}
                      onChange={(e) => props.onSelect(i, (e.currentTarget as HTMLInputElement).checked)}
                    />
                  ) : (
                    <span class="visually-hidden">You hold no role on this workspace</span>
                  )}
                </td>
              )}
              <td>
                <IncidentLink workspaceId={i.incident.workspaceId} source={i.source} incident={i.incident} />
                <div class="muted">{sourceName(i.source)}</div>
              </td>
              <td>
                <Badge tone={severityTone(i.incident.severity)}>{i.incident.severity}</Badge>
              </td>
              <td>{i.serviceStatus}</td>
              <td>{props.workspaceNames.get(i.incident.workspaceId) ?? i.incident.workspaceId}</td>
              <td>{i.assignee?.name ?? i.assignee?.email ?? <span class="muted">Unassigned</span>}</td>
              <td>
                <Time at={i.incident.createdAt} />
              </td>
              <td>
                <Time at={i.lastModificationTime} />
              </td>
            </tr>
          )}
        />
      </table>
    </TableScroll>
  );
}
