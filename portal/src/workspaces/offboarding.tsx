import { api, call, csrf } from "../api/client";
import { DeleteZone } from "../confirmation";
import { setFlash } from "../flash";
import { BASE, navigate } from "../router";
import { useAction } from "../ui";
import type { Workspace } from "./workspace-model";

/** Offboarding, behind a confirmation that names the workspace and says what it does. */
export function Offboarding({ workspace: w }: { workspace: Workspace }) {
  const offboard = useAction(async () => {
    const result = (await call(api.DELETE("/api/v2/portal/workspaces/{workspaceId}", { params: { path: { workspaceId: w.id }, header: csrf() } }))).data;
    setFlash(
      `Workspace ${w.name} is offboarded: ${result.runsDenied} run(s) waiting for approval denied, ${result.runsCancelled} dispatched or running cancelled. Its audit trail stays exportable by its organization's Admins.`,
    );
    navigate(`${BASE}/workspaces`);
  });
  return (
    <DeleteZone
      headingId="offboard-heading"
      heading="Offboard this workspace"
      lead="The workspace leaves every listing and route. Its audit trail stays."
      action={offboard}
      name="offboard"
      question={`Offboard ${w.name}?`}
      confirmLabel={`Offboard ${w.name}`}
      busyLabel="Offboarding…"
      problemTitle="The workspace was not offboarded"
      opener={`Offboard ${w.name}…`}
    >
      <ul>
        <li>Runs of {w.name} waiting for approval are denied, and runs dispatched or running are cancelled (a playbook already in the automation backend is not called back).</li>
        <li>From then on {w.name} answers “not found” everywhere: it leaves the workspace listings, the cross-workspace listings and the reconciler.</li>
        <li>Its incidents stay where they were in their sources, untouched.</li>
        <li>Its audit trail stays for its retention, exportable by its organization's Admins.</li>
      </ul>
      <p>
        <strong>This cannot be undone from the portal.</strong>
      </p>
    </DeleteZone>
  );
}
