import type { GamebookRunFilter, GamebookRunRange, GamebookRunStore, IncidentStateStore, PlaybookCatalogueStore } from "../ports";
import { PLAYBOOK_CATALOGUE_ID } from "../../../model/gamebooks/playbook-catalogue-record";
import type { GamebookRunRecord } from "../../../model/gamebooks/gamebook-run";
import type { IncidentIndicators, IncidentStateRecord } from "../../../model/incidents/incident-state-record";
import type { PlaybookCatalogueRecord } from "../../../model/gamebooks/playbook-catalogue-record";
import type { Collection, Parameters } from "./collection";

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
      return states.queryVersioned(
        "SELECT * FROM c WHERE c.pk = @ws AND c.docType = 'incidentState' AND ARRAY_CONTAINS(@ids, c.id)",
        { "@ws": workspaceId, "@ids": [...new Set(stateIds)] },
        workspaceId,
      );
    },
    commit: (state, etag, outbox) => (etag === null ? states.create(state, outbox) : states.replace(state, etag, outbox)),
    async openWithIndicators(workspaceIds, since, limit) {
      const ids = [...new Set(workspaceIds)];
      if (limit <= 0 || ids.length === 0) return { items: [], truncated: false };
      // Across the workspaces asked for, only the fields shown (not the whole state), newest first on
      // the range index of `sla.startedAt` (the container indexes every path): each partition reads
      // its newest open incidents of the window and the query stops at the bound.
      const found = (await states.query(
        "SELECT TOP @top c.workspaceId, c.accountId, c.source, c.incidentId, c.title, c.severity, c.sla.startedAt AS createdAt, c.indicators FROM c " +
          "WHERE ARRAY_CONTAINS(@ws, c.pk) AND c.docType = 'incidentState' AND c.status != 'Closed' AND c.deletedAt = null " +
          "AND c.sla.startedAt >= @since AND ARRAY_LENGTH(c.indicators) > 0 ORDER BY c.sla.startedAt DESC",
        { "@ws": ids, "@since": since, "@top": limit + 1 },
        // One workspace is one partition: no fan-out.
        ids.length === 1 ? ids[0] : undefined,
      )) as unknown as IncidentIndicators[];
      return { items: found.slice(0, limit), truncated: found.length > limit };
    },
  };
}

export type StoredGamebookRun = GamebookRunRecord & { docType: "gamebookRun" };

/**
 * Gamebook runs live beside the workspace's incident state (`docType` tells them apart), so a run
 * and its outbox records are one transactional batch. Every listing is newest first on the composite
 * index (creationDate DESC, id DESC) of `containers.ts`, with a keyset cursor: a page costs its size,
 * however many runs the workspace holds. Per-incident lookups lead with the incident id, on the
 * index (incidentId, creationDate DESC, id DESC).
 */
export function cosmosGamebookRuns(runs: Collection<StoredGamebookRun>): GamebookRunStore {
  const stored = (run: GamebookRunRecord): StoredGamebookRun => ({ ...run, docType: "gamebookRun" });
  const plain = ({ docType: _docType, ...run }: StoredGamebookRun): GamebookRunRecord => run;
  const listForIncident: GamebookRunStore["listForIncident"] = async (workspaceId, incidentId, source, limit) => {
    if (limit <= 0) return [];
    const conditions = ["c.pk = @ws", "c.docType = 'gamebookRun'", "c.incidentId = @incidentId"];
    const parameters: Parameters = { "@ws": workspaceId, "@incidentId": incidentId, "@top": limit };
    if (source !== undefined) {
      conditions.push("c.source = @source");
      parameters["@source"] = source;
    }
    const found = await runs.query(
      `SELECT TOP @top * FROM c WHERE ${conditions.join(" AND ")} ORDER BY c.incidentId ASC, c.creationDate DESC, c.id DESC`,
      parameters,
      workspaceId,
    );
    return found.map(plain);
  };
  return {
    async get(workspaceId, runId) {
      const found = await runs.read(runId, workspaceId);
      // The partition also holds incident state and outbox records: only a run is a run.
      if (!found || found.value.docType !== "gamebookRun") return undefined;
      return { value: plain(found.value), etag: found.etag };
    },
    async create(run, outbox) {
      const saved = await runs.create(stored(run), outbox);
      return { value: plain(saved.value), etag: saved.etag };
    },
    async replace(run, etag, outbox = []) {
      const saved = await runs.replace(stored(run), etag, outbox);
      return { value: plain(saved.value), etag: saved.etag };
    },
    async list(workspaceId, filter, limit, cursor) {
      if (limit <= 0) return { items: [] };
      const { conditions, parameters } = historyConditions(workspaceId, filter, { before: cursor });
      parameters["@top"] = limit + 1;
      const found = await runs.query(
        `SELECT TOP @top * FROM c WHERE ${conditions.join(" AND ")} ORDER BY c.creationDate DESC, c.id DESC`,
        parameters,
        workspaceId,
      );
      const items = found.slice(0, limit).map(plain);
      const last = items.at(-1);
      return { items, next: found.length > limit && last ? { creationDate: last.creationDate, id: last.id } : undefined };
    },
    async span(workspaceId, filter, range) {
      const { conditions, parameters } = historyConditions(workspaceId, filter, range);
      // One partition, on the range index of creationDate: an index count, no document read.
      const [found] = (await runs.query(
        `SELECT COUNT(1) AS n, MIN(c.creationDate) AS oldest, MAX(c.creationDate) AS newest FROM c WHERE ${conditions.join(" AND ")}`,
        parameters,
        workspaceId,
      )) as unknown as { n?: number; oldest?: string; newest?: string }[];
      const count = found?.n ?? 0;
      return count === 0 ? { count } : { count, newest: found!.newest, oldest: found!.oldest };
    },
    listForIncident,
    async latestForIncident(workspaceId, source, incidentId) {
      const [latest] = await listForIncident(workspaceId, incidentId, source, 1);
      return latest;
    },
    async listAwaitingApproval(filter, page) {
      const limit = page.limit;
      if (limit <= 0 || filter.workspaceIds?.length === 0) return { items: [] };
      // Across workspaces by nature (the expiry sweep looks at every one): the filter on the run's
      // state keeps it to the runs waiting, and the order is the composite index (approval.expiresAt,
      // id) of containers.ts. A run without an expiry is not a string there and is left out.
      const conditions = ["c.docType = 'gamebookRun'", "c.status = 'Pending'", "c.isQueued = true", "IS_STRING(c.approval.expiresAt)"];
      const parameters: Parameters = { "@top": limit + 1 };
      if (filter.workspaceIds !== undefined) {
        conditions.push("ARRAY_CONTAINS(@ws, c.pk)");
        parameters["@ws"] = [...new Set(filter.workspaceIds)];
      }
      if (filter.expiresBefore !== undefined) {
        conditions.push("c.approval.expiresAt < @before");
        parameters["@before"] = filter.expiresBefore;
      }
      if (page.cursor) {
        conditions.push("(c.approval.expiresAt > @cAt OR (c.approval.expiresAt = @cAt AND c.id > @cId))");
        parameters["@cAt"] = page.cursor.expiresAt;
        parameters["@cId"] = page.cursor.id;
      }
      const workspaceIds = parameters["@ws"] as string[] | undefined;
      const found = await runs.query(
        `SELECT TOP @top * FROM c WHERE ${conditions.join(" AND ")} ORDER BY c.approval.expiresAt ASC, c.id ASC`,
        parameters,
        // One workspace is one partition: no fan-out.
        workspaceIds?.length === 1 ? workspaceIds[0] : undefined,
      );
      const items = found.slice(0, limit).map(plain);
      const last = items.at(-1);
      return { items, next: found.length > limit && last ? { expiresAt: last.approval.expiresAt!, id: last.id } : undefined };
    },
    async listDecided(workspaceIds, page) {
      const limit = page.limit;
      const ids = [...new Set(workspaceIds)];
      if (limit <= 0 || ids.length === 0) return { items: [] };
      // Across the workspaces asked for, in the order of the composite index (approval.decidedAt DESC,
      // id DESC) of containers.ts: each partition reads its newest decisions from the cursor on and
      // stops at the page, so a page costs its size per partition read, however long the history. A
      // run that never waited has no decision time (null) and is left out.
      const conditions = ["ARRAY_CONTAINS(@ws, c.pk)", "c.docType = 'gamebookRun'", "IS_STRING(c.approval.decidedAt)", "IS_STRING(c.approval.decision)"];
      const parameters: Parameters = { "@ws": ids, "@top": limit + 1 };
      if (page.cursor) {
        conditions.push("(c.approval.decidedAt < @cAt OR (c.approval.decidedAt = @cAt AND c.id < @cId))");
        parameters["@cAt"] = page.cursor.decidedAt;
        parameters["@cId"] = page.cursor.id;
      }
      const found = await runs.query(
        `SELECT TOP @top * FROM c WHERE ${conditions.join(" AND ")} ORDER BY c.approval.decidedAt DESC, c.id DESC`,
        parameters,
        // One workspace is one partition: no fan-out.
        ids.length === 1 ? ids[0] : undefined,
      );
      const items = found.slice(0, limit).map(plain);
      const last = items.at(-1);
      return { items, next: found.length > limit && last ? { decidedAt: last.approval.decidedAt!, id: last.id } : undefined };
    },
  };
}

/** The WHERE conditions of a workspace's history: its runs, the filter, and a range of the listing's order. */
function historyConditions(workspaceId: string, filter: GamebookRunFilter, range: GamebookRunRange): { conditions: string[]; parameters: Parameters } {
  const conditions = ["c.pk = @ws", "c.docType = 'gamebookRun'"];
  const parameters: Parameters = { "@ws": workspaceId };
  if (filter.text !== undefined) {
    conditions.push("CONTAINS(c.searchText, @text)");
    parameters["@text"] = filter.text;
  }
  if (filter.statuses && filter.statuses.length > 0) {
    conditions.push("ARRAY_CONTAINS(@statuses, c.status)");
    parameters["@statuses"] = [...filter.statuses];
  }
  if (range.since !== undefined) {
    conditions.push("c.creationDate >= @since");
    parameters["@since"] = range.since;
  }
  if (range.before) {
    conditions.push("(c.creationDate < @cAt OR (c.creationDate = @cAt AND c.id < @cId))");
    parameters["@cAt"] = range.before.creationDate;
    parameters["@cId"] = range.before.id;
  }
  return { conditions, parameters };
}

export type StoredPlaybookCatalogue = PlaybookCatalogueRecord & { docType: "playbookCatalogue" };

/**
 * A workspace's playbook catalogue: one document in its partition, read with a point read; a change
 * commits its audit event beside it.
 */
export function cosmosPlaybookCatalogues(catalogues: Collection<StoredPlaybookCatalogue>): PlaybookCatalogueStore {
  const stored = (catalogue: PlaybookCatalogueRecord): StoredPlaybookCatalogue => ({ ...catalogue, id: PLAYBOOK_CATALOGUE_ID, docType: "playbookCatalogue" });
  const plain = ({ docType: _docType, ...catalogue }: StoredPlaybookCatalogue): PlaybookCatalogueRecord => catalogue;
  const read = async (workspaceId: string) => {
    const found = await catalogues.read(PLAYBOOK_CATALOGUE_ID, workspaceId);
    return found && found.value.docType === "playbookCatalogue" ? { value: plain(found.value), etag: found.etag } : undefined;
  };
  return {
    async get(workspaceId) {
      return (await read(workspaceId))?.value;
    },
    async put(catalogue) {
      await catalogues.upsert(stored(catalogue));
    },
    read,
    async create(catalogue, outbox = []) {
      const saved = await catalogues.create(stored(catalogue), outbox);
      return { value: plain(saved.value), etag: saved.etag };
    },
    async replace(catalogue, etag, outbox = []) {
      const saved = await catalogues.replace(stored(catalogue), etag, outbox);
      return { value: plain(saved.value), etag: saved.etag };
    },
  };
}
