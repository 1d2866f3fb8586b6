import type { GamebookRunStore, IncidentStateStore } from "../ports";
import type { GamebookRunRecord, IncidentStateRecord } from "../records";
import type { Collection } from "./collection";

/**
 * Incident state in the `workspaceItems` container, partitioned by workspace, so that a state change
 * and its outbox records are one transactional batch.
 */
export function cosmosIncidents(states: Collection<IncidentStateRecord>): IncidentStateStore {
  return {
    async get(workspaceId, stateId) {
      return states.read(stateId, workspaceId);
    },
    async getMany(workspaceId, stateIds) {
      if (stateIds.length === 0) return [];
      return states.query(
        "SELECT * FROM c WHERE c.pk = @ws AND c.docType = 'incidentState' AND ARRAY_CONTAINS(@ids, c.id)",
        { "@ws": workspaceId, "@ids": [...new Set(stateIds)] },
        workspaceId,
      );
    },
    commit: (state, etag, outbox) => (etag === null ? states.create(state, outbox) : states.replace(state, etag, outbox)),
  };
}

/** Gamebook runs live beside the workspace's incident state (`docType` tells them apart). */
export function cosmosGamebookRuns(runs: Collection<GamebookRunRecord & { docType: "gamebookRun" }>): GamebookRunStore {
  return {
    async latestForIncident(workspaceId, source, incidentId) {
      const [latest] = await runs.query(
        "SELECT TOP 1 * FROM c WHERE c.pk = @ws AND c.docType = 'gamebookRun' AND c.source = @source AND c.incidentId = @incidentId ORDER BY c.creationDate DESC",
        { "@ws": workspaceId, "@source": source, "@incidentId": incidentId },
        workspaceId,
      );
      if (!latest) return undefined;
      const { docType: _docType, ...run } = latest;
      return run;
    },
    async upsert(run) {
      await runs.upsert({ ...run, docType: "gamebookRun" });
    },
  };
}
