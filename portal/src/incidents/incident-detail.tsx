import type { ComponentChildren } from "preact";
import { useSourceName } from "../session";
import { api } from "../api/client";
import type { paths } from "../api/openapi";
import { IncidentLink } from "../ui/incident-link";
import { BASE, Link } from "../router";
import { withEtag } from "../etag";
import { Badge, DataTable, Empty, PageHeader, ProblemBanner, Time, useResource } from "../ui";
import { IncidentActions } from "./incident-actions";
import { SlaFact } from "./sla";
import { severityTone } from "./incident-filters";
import { IncidentRuns } from "./incident-runs";

type Detail = paths["/api/v2/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}"]["get"]["responses"][200]["content"]["application/json"]["data"];
type IncidentPath = paths["/api/v2/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}"]["get"]["parameters"]["path"];
type Source = IncidentPath["source"];

/** A value of the source's evidence or an entity, as text. */
function show(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** The first of these fields an entity has: how people name it. */
function entityName(entity: Record<string, unknown>): string {
  for (const key of ["name", "userPrincipalName", "hostName", "address", "url", "fileName", "displayName", "id"]) {
    if (typeof entity[key] === "string" && entity[key]) return entity[key] as string;
  }
  return JSON.stringify(entity);
}

/** One incident with its evidence, entities and alerts, its comments, its playbook runs and related incidents. */
export function IncidentDetailPage({ params }: { params: Record<string, string> }) {
  const path: IncidentPath = { workspaceId: params.workspaceId!, source: params.source as Source, incidentId: params.incidentId! };
  // With its ETag: the actions send it back as If-Match.
  const detail = useResource(
    () => withEtag(api.GET("/api/v2/portal/workspaces/{workspaceId}/incidents/{source}/{incidentId}", { params: { path } })).then((read) => ({ ...read, value: read.value.data })),
    [path.workspaceId, path.source, path.incidentId],
  );
  const d = detail.value?.value;
  return (
    <section>
      <PageHeader title={d ? `#${d.incident.incident.number} ${d.incident.incident.title}` : "Incident"} />
      <p>
        <Link href={`${BASE}/incidents`}>All incidents</Link>
      </p>
      <ProblemBanner problem={detail.problem} />
      {d && <IncidentBody detail={d} path={path} actions={<IncidentActions detail={d} etag={detail.value?.etag} path={path} onChanged={detail.reload} />} />}
    </section>
  );
}

function IncidentBody({ detail: d, path, actions }: { detail: Detail; path: IncidentPath; actions: ComponentChildren }) {
  const sourceName = useSourceName();
  const i = d.incident;
  const entities = i.investigationDetails.entities;
  const alerts = i.investigationDetails.alerts;
  return (
    <>
      <dl class="facts">
        <div>
          <dt>Severity</dt>
          <dd>
            <Badge tone={severityTone(i.incident.severity)}>{i.incident.severity}</Badge>
          </dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>{i.serviceStatus}</dd>
        </div>
        <div>
          <dt>Source</dt>
          <dd>{sourceName(i.source)}</dd>
        </div>
        <div>
          <dt>Assignee</dt>
          <dd>{i.assignee?.name ?? i.assignee?.email ?? "Unassigned"}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <Time at={i.incident.createdAt} />
          </dd>
        </div>
        <div>
          <dt>Classification</dt>
          <dd>{i.classification ?? "—"}</dd>
        </div>
        <div>
          <dt>SLA</dt>
          <dd>
            <SlaFact sla={i.sla} />
          </dd>
        </div>
      </dl>
      {actions}

      <h2>Evidence</h2>
      <Evidence evidence={i.evidence} />

      <h2>Entities</h2>
      {entities.length === 0 ? (
        <Empty>No entity.</Empty>
      ) : (
        <ul class="entity-list">
          {entities.map((e) => (
            <li>
              {entityName(e)} <span class="muted">({show(e.kind ?? e.type ?? e.entityType)})</span>
            </li>
          ))}
        </ul>
      )}

      <h2>Alerts</h2>
      {alerts.length === 0 ? (
        <Empty>No alert.</Empty>
      ) : (
        <ul class="plain">
          {alerts.map((a) => (
            <li>
              {show(a.title ?? a.name ?? a.displayName ?? a.id)} <span class="muted">{show(a.severity ?? "")}</span>
            </li>
          ))}
        </ul>
      )}

      <h2>Comments</h2>
      {!d.ticketNotesAvailable && <p class="muted">Notes of linked tickets could not be read this time.</p>}
      {d.comments.length === 0 ? (
        <Empty>No comment yet.</Empty>
      ) : (
        <ol class="comments">
          {d.comments.map((c) => (
            <li class="card">
              <p class="muted">
                {c.isAgentComment ? (c.agentName ?? "Agent") : c.authorName || c.authorEmail} · <Time at={c.createdTime} />
                {c.ticketId && ` · ticket ${c.ticketId}`}
                {c.isClosingComment && " · closing comment"}
              </p>
              <p class="comment-text">{c.message}</p>
            </li>
          ))}
        </ol>
      )}

      <IncidentRuns path={path} runs={d.runs} />

      <h2>Related incidents</h2>
      <p class="muted">Incidents of this workspace at the same source that share an entity with this one.</p>
      {d.related.length === 0 ? (
        <Empty>None.</Empty>
      ) : (
        <DataTable label="Related incidents" columns={["Incident", "Severity", "Status", "Created"]}>
          {d.related.map((r) => (
            <tr>
              <td>
                <IncidentLink workspaceId={r.incident.workspaceId} source={r.source} incident={r.incident} />
              </td>
              <td>
                <Badge tone={severityTone(r.incident.severity)}>{r.incident.severity}</Badge>
              </td>
              <td>{r.serviceStatus}</td>
              <td>
                <Time at={r.incident.createdAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}

interface EvidenceRow {
  kind?: unknown;
  verdict?: unknown;
  detail?: unknown;
  collectedAt?: unknown;
}

/** The source's evidence: its rows as a table (what was seen, the verdict, when), anything else as facts. */
function Evidence({ evidence }: { evidence: Record<string, unknown> }) {
  const rows = Array.isArray(evidence.rows) ? (evidence.rows as EvidenceRow[]) : undefined;
  const rest = Object.entries(evidence).filter(([key]) => key !== "rows" || !rows);
  if (!rows?.length && rest.length === 0) return <Empty>The source gives no evidence for this incident.</Empty>;
  return (
    <>
      {rows && rows.length > 0 && (
        <DataTable label="Evidence" class="evidence" columns={["What", "Verdict", "Detail", "Collected"]}>
          {rows.map((r) => (
            <tr>
              <td>{show(r.kind)}</td>
              <td>
                <Badge tone={r.verdict === "Malicious" ? "bad" : r.verdict === "Suspicious" ? "warn" : "neutral"}>{show(r.verdict)}</Badge>
              </td>
              <td>{show(r.detail)}</td>
              <td>{typeof r.collectedAt === "string" ? <Time at={r.collectedAt} /> : "—"}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {rest.length > 0 && (
        <dl class="facts evidence">
          {rest.map(([key, value]) => (
            <div>
              <dt>{key}</dt>
              <dd>{show(value)}</dd>
            </div>
          ))}
        </dl>
      )}
    </>
  );
}
