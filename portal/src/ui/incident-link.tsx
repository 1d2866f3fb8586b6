import { BASE, Link } from "../router";

/**
 * A link to an incident's page (`/incidents/:workspaceId/:source/:incidentId`), named by its number
 * and title (by its title alone where the number is not known, as in an audit event).
 */
export function IncidentLink(props: { workspaceId: string; source: string; incident: { id: string; number?: number; title: string } }) {
  const { incident } = props;
  return (
    <Link href={`${BASE}/incidents/${props.workspaceId}/${props.source}/${encodeURIComponent(incident.id)}`}>
      {incident.number === undefined ? "" : `#${incident.number} `}
      {incident.title}
    </Link>
  );
}
