import { auditEvent } from "../support/audit-events";
import { describe, expect, it } from "vitest";
import { isApiError, type ErrorCode } from "../../shared/platform/errors/api-error";
import { outboxScope } from "../../shared/platform/store/outbox-scope";
import type { Stores } from "../../shared/platform/store/ports";
import type { AuditEventRecord, SequencedAuditEvent } from "../../shared/model/audit/audit-event";
import { auditTrailOf } from "../../shared/platform/store/audit-trail";
import type { OutboxAuditRecord } from "../../shared/platform/events/outbox-record";
import type { TicketLinkRecord } from "../../shared/model/tickets/ticket-link";
import type { WorkspaceIntegrationsRecord } from "../../shared/model/organizations/workspace-integrations";
import { PLAYBOOK_CATALOGUE_ID, type PlaybookCatalogueRecord } from "../../shared/model/gamebooks/playbook-catalogue-record";
import { AGENT_CONFIGURATION_ID, type AgentConfigurationRecord } from "../../shared/model/incidents/agent-configuration";
import type { SopRecord } from "../../shared/model/sops/sop";

/**
 * Store cases of the workspace data: the audit trail's sequences, integration switches, ticket
 * links, catalogue changes, agent configurations and SOP records. Called inside `describeStoreContract`, so they run on every adapter with fresh stores.
 */
export function workspaceDataCases(stores: () => Stores): void {
  describe("audit trail sequences", () => {
    /** As the relay records an event: stored, then its trail sequenced. */
    const record = async (event: AuditEventRecord) => {
      await stores().audit.append(event);
      await stores().audit.sequence([auditTrailOf(event)]);
    };
    /** Pages through the workspace's trail from `after`, `pageSize` at a time, to the end (a short page). */
    const follow = async (workspaceId: string, after: number, pageSize: number) => {
      const seen: SequencedAuditEvent[] = [];
      for (let page = await stores().audit.listWorkspaceTrail(workspaceId, after, pageSize); ; page = await stores().audit.listWorkspaceTrail(workspaceId, after, pageSize)) {
        seen.push(...page);
        after = page.at(-1)?.sequence ?? after;
        if (page.length < pageSize) return { seen, after };
      }
    };

    it("numbers a workspace's events 1, 2, 3… in the order they are recorded and pages after a sequence", async () => {
      for (const id of ["a1", "a2", "a3", "a4", "a5"]) await record(auditEventOf(id, "ws-1"));
      const all = await stores().audit.listWorkspaceTrail("ws-1", 0, 10);
      expect(all.map((e) => [e.sequence, e.event.id])).toEqual([[1, "a1"], [2, "a2"], [3, "a3"], [4, "a4"], [5, "a5"]]);
      expect((await stores().audit.listWorkspaceTrail("ws-1", 2, 2)).map((e) => e.event.id)).toEqual(["a3", "a4"]);
      expect(await stores().audit.listWorkspaceTrail("ws-1", 5, 10)).toEqual([]);
    });

    it("keeps each workspace's trail apart, and organization events out of every workspace's", async () => {
      await record(auditEventOf("w1", "ws-1"));
      await record(auditEventOf("org", null));
      await record(auditEventOf("w2", "ws-2"));
      expect((await stores().audit.listWorkspaceTrail("ws-1", 0, 10)).map((e) => [e.sequence, e.event.id])).toEqual([[1, "w1"]]);
      expect((await stores().audit.listWorkspaceTrail("ws-2", 0, 10)).map((e) => [e.sequence, e.event.id])).toEqual([[1, "w2"]]);
      // listRecent still covers every trail of the account.
      expect((await stores().audit.listRecent("acct-1", 10)).map((e) => e.id).sort()).toEqual(["org", "w1", "w2"]);
    });

    it("an event appended again keeps its first sequence and appears once", async () => {
      await record(auditEventOf("a1", "ws-1"));
      await record(auditEventOf("a2", "ws-1"));
      await record({ ...auditEventOf("a1", "ws-1"), metadata: '{"again":true}' });
      await record(auditEventOf("a3", "ws-1"));
      const trail = await stores().audit.listWorkspaceTrail("ws-1", 0, 10);
      expect(trail.map((e) => [e.sequence, e.event.id])).toEqual([[1, "a1"], [2, "a2"], [3, "a3"]]);
      expect(trail[0]!.event.metadata).toBe("{}");
      expect(await stores().audit.listRecent("acct-1", 10)).toHaveLength(3);
    });

    it("returns events exactly as appended, without the trail's bookkeeping", async () => {
      const event = auditEventOf("a1", "ws-1");
      await record(event);
      expect((await stores().audit.listWorkspaceTrail("ws-1", 0, 1))[0]!.event).toStrictEqual(event);
      expect(await stores().audit.listRecent("acct-1", 1)).toStrictEqual([event]);
    });

    it("listRecent shows an event as soon as it is stored, before its trail is sequenced", async () => {
      await stores().audit.append(auditEventOf("a1", "ws-1"));
      expect((await stores().audit.listRecent("acct-1", 10)).map((e) => e.id)).toEqual(["a1"]);
    });

    it("200 events recorded at once in one trail all land, each once, numbered 1 to 200 with no gap, and page through in that order", async () => {
      const ids = Array.from({ length: 200 }, (_, i) => `c${String(i).padStart(3, "0")}`);
      // Each writer appends and sequences, as the relay does; those that find the trail being
      // sequenced return at once, and the one sequencing it goes on to their events.
      await Promise.all(ids.map((id) => record(auditEventOf(id, "ws-1"))));
      const { seen } = await follow("ws-1", 0, 7);
      expect(seen.map((e) => e.sequence)).toEqual(ids.map((_, i) => i + 1));
      expect(seen.map((e) => e.event.id).sort()).toEqual(ids);
      // The same order however it is paged.
      expect((await stores().audit.listWorkspaceTrail("ws-1", 0, 1000)).map((e) => e.event.id)).toEqual(seen.map((e) => e.event.id));
    }, 60_000);

    it("a reader paging while writers record never misses or repeats an event", async () => {
      const written: string[] = [];
      const seen: SequencedAuditEvent[] = [];
      let after = 0;
      for (let round = 0; round < 8; round++) {
        const batch = [0, 1, 2].map((i) => `r${round}-${i}`);
        written.push(...batch);
        // A page is read while this round's writers are at work.
        const [page] = await Promise.all([stores().audit.listWorkspaceTrail("ws-1", after, 2), ...batch.map((id) => record(auditEventOf(id, "ws-1")))]);
        seen.push(...page);
        after = page.at(-1)?.sequence ?? after;
      }
      seen.push(...(await follow("ws-1", after, 2)).seen);
      expect(seen.map((e) => e.event.id).sort()).toEqual([...written].sort());
      expect(seen.map((e) => e.sequence)).toEqual(written.map((_, i) => i + 1));
    });

    it("an event generated long ago but recorded after a reader caught up is seen when it resumes", async () => {
      for (const id of ["a1", "a2"]) await record(auditEventOf(id, "ws-1"));
      const caughtUp = await follow("ws-1", 0, 10);
      expect(caughtUp.seen.map((e) => e.event.id)).toEqual(["a1", "a2"]);
      await record({ ...auditEventOf("late", "ws-1"), timeGenerated: "2024-12-01T08:00:00.000Z" });
      const resumed = await follow("ws-1", caughtUp.after, 10);
      expect(resumed.seen.map((e) => [e.sequence, e.event.id])).toEqual([[3, "late"]]);
      // startTime filters by when an event was generated; the order stays the trail's.
      expect((await stores().audit.listWorkspaceTrail("ws-1", 0, 10, "2025-01-01T00:00:00.000Z")).map((e) => e.event.id)).toEqual(["a1", "a2"]);
      expect((await stores().audit.listWorkspaceTrail("ws-1", 0, 10, "2024-01-01T00:00:00.000Z")).map((e) => e.event.id)).toEqual(["a1", "a2", "late"]);
    });

    it("sequenceWaiting finds the trails whose events were stored but never sequenced (a crash after the append), and sequences them", async () => {
      await stores().audit.append(auditEventOf("a1", "ws-1"));
      await stores().audit.append(auditEventOf("b1", "ws-2"));
      await stores().audit.sequenceWaiting();
      expect((await stores().audit.listWorkspaceTrail("ws-1", 0, 10)).map((e) => [e.sequence, e.event.id])).toEqual([[1, "a1"]]);
      expect((await stores().audit.listWorkspaceTrail("ws-2", 0, 10)).map((e) => [e.sequence, e.event.id])).toEqual([[1, "b1"]]);
      // Nothing is left waiting.
      expect(await stores().audit.sequenceWaiting()).toBe(0);
    });
  });

  describe("workspace integrations", () => {
    it("has no document until one is created; create of a second is CONFLICT; replace checks the etag", async () => {
      expect(await stores().integrations.get("ws-1")).toBeUndefined();
      const created = await stores().integrations.create(integrations("ws-1", false));
      expect((await stores().integrations.get("ws-1"))?.value).toStrictEqual(integrations("ws-1", false));
      await expectApiError(stores().integrations.create(integrations("ws-1", true)), "CONFLICT");
      const replaced = await stores().integrations.replace(integrations("ws-1", true), created.etag);
      expect((await stores().integrations.get("ws-1"))?.value.enabled.ticketing).toBe(true);
      await expectApiError(stores().integrations.replace(integrations("ws-1", false), created.etag), "CONFLICT");
      expect((await stores().integrations.get("ws-1"))?.etag).toBe(replaced.etag);
      expect(await stores().integrations.get("ws-2")).toBeUndefined();
    });

    it("commits its audit record with the write, in the workspace's scope", async () => {
      await stores().integrations.create(integrations("ws-1", false), [auditRecord("r-1", "ws-1")]);
      expect((await stores().outbox.list(outboxScope.workspace("ws-1"), 10)).map((r) => r.id)).toEqual(["outbox-r-1"]);
    });
  });

  describe("ticket links", () => {
    it("create then get, list by incident and by ticket; the same pair again is CONFLICT", async () => {
      await stores().ticketLinks.create(link("l-1", "ws-1", "inc-1", "t-1", 1), [auditRecord("r-1", "ws-1")]);
      await stores().ticketLinks.create(link("l-2", "ws-1", "inc-1", "t-2", 2));
      await stores().ticketLinks.create(link("l-3", "ws-1", "inc-2", "t-1", 3));
      await stores().ticketLinks.create(link("l-4", "ws-2", "inc-1", "t-1", 4));
      expect((await stores().ticketLinks.get("ws-1", "l-1"))?.value).toStrictEqual(link("l-1", "ws-1", "inc-1", "t-1", 1));
      expect((await stores().ticketLinks.listForIncident("ws-1", "SourceA", "inc-1")).map((l) => l.id)).toEqual(["l-1", "l-2"]);
      expect(await stores().ticketLinks.listForIncident("ws-1", "SourceB", "inc-1")).toEqual([]);
      expect((await stores().ticketLinks.listForTickets("ws-1", ["t-1"])).map((l) => l.id)).toEqual(["l-1", "l-3"]);
      expect(await stores().ticketLinks.listForTickets("ws-1", [])).toEqual([]);
      await expectApiError(stores().ticketLinks.create(link("l-1", "ws-1", "inc-1", "t-1", 9), [auditRecord("r-2", "ws-1")]), "CONFLICT");
      // The refused link wrote no audit record.
      expect((await stores().outbox.list(outboxScope.workspace("ws-1"), 10)).map((r) => r.id)).toEqual(["outbox-r-1"]);
    });

    it("delete checks the etag, removes the link and frees the pair; an unknown link is NOT_FOUND", async () => {
      const saved = await stores().ticketLinks.create(link("l-1", "ws-1", "inc-1", "t-1", 1));
      await expectApiError(stores().ticketLinks.delete("ws-1", "l-1", '"stale"'), "CONFLICT");
      await stores().ticketLinks.delete("ws-1", "l-1", saved.etag, [auditRecord("r-1", "ws-1")]);
      expect(await stores().ticketLinks.get("ws-1", "l-1")).toBeUndefined();
      expect((await stores().outbox.list(outboxScope.workspace("ws-1"), 10)).map((r) => r.id)).toEqual(["outbox-r-1"]);
      await expectApiError(stores().ticketLinks.delete("ws-1", "l-1", saved.etag), "NOT_FOUND");
      await stores().ticketLinks.create(link("l-1", "ws-1", "inc-1", "t-1", 2));
    });
  });

  describe("playbook catalogue changes", () => {
    it("reads a catalogue with its version; create is CONFLICT when one exists; replace checks the etag; both commit their records", async () => {
      expect(await stores().playbookCatalogues.read("ws-1")).toBeUndefined();
      const created = await stores().playbookCatalogues.create(catalogue("ws-1", ["pb-1"]), [auditRecord("r-1", "ws-1")]);
      expect(created.value).toStrictEqual(catalogue("ws-1", ["pb-1"]));
      expect(await stores().playbookCatalogues.read("ws-1")).toStrictEqual(created);
      await expectApiError(stores().playbookCatalogues.create(catalogue("ws-1", []), [auditRecord("r-x", "ws-1")]), "CONFLICT");
      const replaced = await stores().playbookCatalogues.replace(catalogue("ws-1", ["pb-1", "pb-2"]), created.etag, [auditRecord("r-2", "ws-1")]);
      expect(replaced.etag).not.toBe(created.etag);
      await expectApiError(stores().playbookCatalogues.replace(catalogue("ws-1", []), created.etag, [auditRecord("r-y", "ws-1")]), "CONFLICT");
      expect((await stores().playbookCatalogues.get("ws-1"))?.playbooks.map((p) => p.id)).toEqual(["pb-1", "pb-2"]);
      expect((await stores().outbox.list(outboxScope.workspace("ws-1"), 10)).map((r) => r.id)).toEqual(["outbox-r-1", "outbox-r-2"]);
      // What a seed puts is read back the same way, with a version.
      await stores().playbookCatalogues.put(catalogue("ws-2", ["pb-9"]));
      expect((await stores().playbookCatalogues.read("ws-2"))?.value).toStrictEqual(catalogue("ws-2", ["pb-9"]));
    });
  });

  describe("agent configurations", () => {
    it("one per workspace: none until created, create again is CONFLICT, replace checks the etag and commits its record", async () => {
      expect(await stores().agentConfigurations.get("ws-1")).toBeUndefined();
      const created = await stores().agentConfigurations.create(agentConfiguration("ws-1", ["wh-1"]), [auditRecord("r-1", "ws-1")]);
      expect(await stores().agentConfigurations.get("ws-1")).toStrictEqual(created);
      expect(created.value).toStrictEqual(agentConfiguration("ws-1", ["wh-1"]));
      await expectApiError(stores().agentConfigurations.create(agentConfiguration("ws-1", [])), "CONFLICT");
      await stores().agentConfigurations.replace(agentConfiguration("ws-1", ["wh-2"]), created.etag, [auditRecord("r-2", "ws-1")]);
      await expectApiError(stores().agentConfigurations.replace(agentConfiguration("ws-1", []), created.etag, [auditRecord("r-x", "ws-1")]), "CONFLICT");
      expect((await stores().agentConfigurations.get("ws-1"))?.value.cards[0]!.webhookIds).toEqual(["wh-2"]);
      expect(await stores().agentConfigurations.get("ws-2")).toBeUndefined();
      expect((await stores().outbox.list(outboxScope.workspace("ws-1"), 10)).map((r) => r.id)).toEqual(["outbox-r-1", "outbox-r-2"]);
    });
  });

  describe("SOP records", () => {
    it("lists a workspace's records newest upload first, then by id, and no other workspace's", async () => {
      await stores().sops.create(sop("s-b", "ws-1", 1), [auditRecord("r-1", "ws-1")]);
      await stores().sops.create(sop("s-a", "ws-1", 1));
      await stores().sops.create(sop("s-c", "ws-1", 2));
      await stores().sops.create(sop("s-d", "ws-2", 3));
      expect((await stores().sops.list("ws-1")).map((r) => r.id)).toEqual(["s-c", "s-a", "s-b"]);
      expect(await stores().sops.list("ws-3")).toEqual([]);
      expect((await stores().sops.get("ws-1", "s-a"))?.value).toStrictEqual(sop("s-a", "ws-1", 1));
      expect(await stores().sops.get("ws-2", "s-a")).toBeUndefined();
      await expectApiError(stores().sops.create(sop("s-a", "ws-1", 5), [auditRecord("r-x", "ws-1")]), "CONFLICT");
      expect((await stores().outbox.list(outboxScope.workspace("ws-1"), 10)).map((r) => r.id)).toEqual(["outbox-r-1"]);
    });

    it("delete checks the etag and commits its record; a record gone is NOT_FOUND", async () => {
      const saved = await stores().sops.create(sop("s-1", "ws-1", 1));
      await expectApiError(stores().sops.delete("ws-1", "s-1", '"stale"', [auditRecord("r-x", "ws-1")]), "CONFLICT");
      await stores().sops.delete("ws-1", "s-1", saved.etag, [auditRecord("r-1", "ws-1")]);
      expect(await stores().sops.get("ws-1", "s-1")).toBeUndefined();
      expect(await stores().sops.list("ws-1")).toEqual([]);
      expect((await stores().outbox.list(outboxScope.workspace("ws-1"), 10)).map((r) => r.id)).toEqual(["outbox-r-1"]);
      await expectApiError(stores().sops.delete("ws-1", "s-1", saved.etag), "NOT_FOUND");
    });
  });
}

function catalogue(workspaceId: string, playbookIds: string[]): PlaybookCatalogueRecord {
  return {
    id: PLAYBOOK_CATALOGUE_ID,
    workspaceId,
    playbooks: playbookIds.map((id) => ({
      id,
      workspaceId,
      referenceId: `ref-${id}`,
      name: `Playbook ${id}`,
      description: "",
      entityType: "User",
      action: "automation",
      isAdminRequired: false,
      isRecommended: true,
      recoverPlaybookId: null,
      parameters: [{ name: "note", kind: "string", description: "", required: false, maxLength: 200 }],
      enabled: true,
    })),
    gamebooks: [],
    rules: playbookIds.map((playbookId) => ({ workspaceId, incidentTitle: "Malware detected on *", playbookId })),
    updatedAt: "2025-01-15T09:30:00.000Z",
  };
}

function agentConfiguration(workspaceId: string, webhookIds: string[]): AgentConfigurationRecord {
  return { id: AGENT_CONFIGURATION_ID, docType: "agentConfiguration", workspaceId, agentName: "Triage agent", cards: [{ classification: "TruePositive", webhookIds }], updatedAt: "2025-01-15T09:30:00.000Z" };
}

function sop(id: string, workspaceId: string, minute: number): SopRecord {
  return {
    id,
    docType: "sop",
    workspaceId,
    title: `Runbook ${id}`,
    description: "",
    fileName: `${id}.md`,
    contentType: "text/markdown; charset=utf-8",
    sizeBytes: 120,
    sha256: "0".repeat(64),
    uploadedAt: new Date(Date.UTC(2025, 0, 15, 9, minute)).toISOString(),
    uploadedBy: { userId: "u-1", name: "Amira Haddad" },
  };
}


function integrations(workspaceId: string, ticketing: boolean): WorkspaceIntegrationsRecord {
  return { id: "integrations", docType: "integrations", workspaceId, enabled: { ticketing, directoryLogs: true, logAnalytics: true }, updatedAt: "2025-01-15T09:30:00.000Z" };
}

function link(id: string, workspaceId: string, incidentId: string, ticketId: string, minute: number): TicketLinkRecord {
  return {
    id,
    docType: "ticketLink",
    workspaceId,
    source: "SourceA",
    incidentId,
    system: "ServiceNow",
    ticketId,
    ticketNumber: `INC00${ticketId}`,
    url: `https://contoso.service-now.example/nav_to.do?uri=incident.do%3Fsys_id%3D${ticketId}`,
    linkedAt: new Date(Date.UTC(2025, 0, 15, 9, minute)).toISOString(),
    linkedBy: { serviceAccountId: "sa-1", name: "SOAR connector" },
  };
}

function auditRecord(id: string, workspaceId: string): OutboxAuditRecord {
  return { id: `outbox-${id}`, docType: "outbox", kind: "audit", scope: outboxScope.workspace(workspaceId), createdAt: "2025-01-15T09:30:00.000Z", publishedAt: null, audit: auditEventOf(id, workspaceId) };
}

async function expectApiError(promise: Promise<unknown>, code: ErrorCode): Promise<void> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(isApiError(error) ? error.code : error).toBe(code);
}

function auditEventOf(id: string, workspaceId: string | null): AuditEventRecord {
  return auditEvent(id, { workspaceId });
}
