import { api, call } from "../api/client";
import { BASE, Link, useLocation } from "../router";
import { hasRole, useMe, type OrganizationalRole } from "../session";
import { PageHeader, Select, useResource } from "../ui";

/** The roles that read the organization's audit trail (`GET /portal/audit`); `Admin` holds them all. */
export const AUDIT_ROLES: readonly OrganizationalRole[] = ["WorkspaceAdmin"];

/** The History section's views, as tabs under one heading; the audit trail only for the roles that may read it. */
export function HistoryHeader(props: { lead: string }) {
  const me = useMe();
  const url = useLocation();
  const tabs = [
    { href: `${BASE}/history`, label: "Decided approvals" },
    { href: `${BASE}/history/runs`, label: "Gamebook runs" },
    ...(hasRole(me, AUDIT_ROLES) ? [{ href: `${BASE}/history/audit`, label: "Audit trail" }] : []),
  ];
  const current = tabs.find((t) => t.href === url.pathname);
  return (
    <>
      <PageHeader title={current ? `History: ${current.label.toLowerCase()}` : "History"} />
      <nav class="tabs" aria-label="History">
        <ul>
          {tabs.map((t) => (
            <li>
              <Link href={t.href} aria-current={t === current ? "page" : undefined}>
                {t.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <p class="lead">{props.lead}</p>
    </>
  );
}

/** The workspaces the person sees, for a filter: their names by id, and the choices of a select (with "All"). */
export function useWorkspaceChoices(): { names: Map<string, string>; options: { value: string; label: string }[] } {
  const workspaces = useResource(async () => (await call(api.GET("/api/v2/portal/workspaces"))).data, []);
  const list = workspaces.value ?? [];
  return {
    names: new Map(list.map((w) => [w.id, w.name])),
    options: [{ value: "", label: "All workspaces" }, ...list.map((w) => ({ value: w.id, label: w.name }))],
  };
}

/** A workspace filter: the select of the workspaces the person sees. */
export function WorkspaceFilter(props: { value: string; onValue(value: string): void; options: { value: string; label: string }[] }) {
  // A workspace named in a shared link that this person does not see stays shown as chosen, by its id.
  const options = props.value && !props.options.some((o) => o.value === props.value) ? [...props.options, { value: props.value, label: props.value }] : props.options;
  return <Select label="Workspace" name="workspace" value={props.value} options={options} onValue={props.onValue} />;
}
