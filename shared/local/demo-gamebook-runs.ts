import type { Services } from "../services";
import type { GamebookRunRecord, PlaybookEntryRecord, WorkspaceRecord } from "../store/records";
import { demoId } from "./demo-data";

/**
 * A few finished gamebook runs on the newest SourceA incidents of the first demo workspaces, so
 * that `last-gamebook` has something to show before the gamebooks endpoints exist.
 */
export async function seedDemoGamebookRuns(services: Services, workspaces: readonly WorkspaceRecord[]): Promise<number> {
  let seeded = 0;
  for (const workspace of workspaces.slice(0, 2)) {
    const now = services.now();
    const page = await services.sources.gateway("SourceA").listIncidents({
      workspaceId: workspace.id,
      field: "createdAt",
      from: new Date(now.getTime() - 30 * 24 * 3600_000).toISOString(),
      to: now.toISOString(),
      limit: 3,
    });
    for (const incident of page.items) {
      const id = demoId(services.config.demoSeed, `gamebook-run/${workspace.id}/${incident.id}`);
      const started = new Date(Date.parse(incident.createdAt) + 5 * 60_000).toISOString();
      const finished = new Date(Date.parse(incident.createdAt) + 7 * 60_000).toISOString();
      const account = incident.entities.find((e) => e.kind === "Account");
      const playbook = (sequence: number, name: string, description: string): PlaybookEntryRecord => ({
        id: demoId(services.config.demoSeed, `playbook/${id}/${sequence}`),
        referenceId: `pb-${name.toLowerCase().replace(/\s+/g, "-")}`,
        entityId: account?.id ?? "",
        name,
        description,
        affectedEntity: account?.name ?? "",
        tracingId: id,
        userObjectId: "",
        userPrincipalName: account?.name ?? "",
        internetMessageId: "",
        entityType: "User",
        isRecommended: true,
        isAdminRequired: false,
        status: "Completed",
        errorMessage: "",
        sequence,
        modificationDate: finished,
        startingDate: started,
        finishingDate: finished,
        executionTime: "00:01:00",
        parameters: {},
      });
      const run: GamebookRunRecord = {
        id,
        tracingId: id,
        incidentId: incident.id,
        source: incident.source,
        incidentTitle: incident.title,
        incidentNumber: incident.number,
        isOcr: false,
        isRecover: false,
        isAdminRequired: false,
        isAutoRun: true,
        isRetryGamebook: false,
        isQueued: false,
        triggedByUserId: "automation",
        displayName: "Automation rule",
        modificationDate: finished,
        creationDate: started,
        status: "Completed",
        title: "Contain compromised account",
        summary: "Revoked the user's sessions and reset the password.",
        workspaceId: workspace.id,
        workspaceName: workspace.name,
        tenantId: workspace.tenantId,
        originalGamebookId: "gb-contain-account",
        originalGamebookTitle: "Contain compromised account",
        playbooks: [
          playbook(1, "Revoke sessions", "Signs the user out everywhere."),
          playbook(2, "Reset password", "Forces a password reset at next sign-in."),
        ],
      };
      await services.stores.gamebookRuns.upsert(run);
      seeded++;
    }
  }
  return seeded;
}
