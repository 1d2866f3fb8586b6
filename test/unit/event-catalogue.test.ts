import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  agentInvestigationCompletedData,
  eventCatalogue,
  eventEnvelope,
  eventEnvelopeOf,
  gamebookRunData,
  incidentCommentAddedData,
} from "../../shared/model/events/event-catalogue";
import { eventTypes, type EventType } from "../../shared/model/events/event-types";
import { serviceActor, type Actor } from "../../shared/platform/actor";
import { assigneeEvent, incidentCreatedData, statusEvents } from "../../shared/domain/incidents/incident-events";
import { buildOpenApi } from "../../shared/platform/http/openapi";
import { allRoutes } from "../../shared/api/route-groups";
import type { VendorIncident } from "../../shared/model/incidents/incident";
import type { IncidentAssignee, IncidentStateRecord } from "../../shared/model/incidents/incident-state-record";
import type { OutboxEventRecord } from "../../shared/platform/events/outbox-record";
import { testEnvelope } from "../../shared/domain/webhooks/test-event";
import { signatureHeaders } from "../../shared/platform/delivery/signer";

const now = new Date("2026-09-01T10:00:00.000Z");
const accountId = "4a1d0f3e-2b7c-4c1e-9d2a-5e6f7a8b9c0d";
const workspaceId = "7c9e6679-7425-40de-944b-e07fc1f90ae7";

function vendorIncident(overrides: Partial<VendorIncident> = {}): VendorIncident {
  return {
    id: "INC-42",
    source: "SourceB",
    workspaceId,
    number: 42,
    title: "Impossible travel for j.doe",
    description: "Sign-ins from two countries within ten minutes.",
    severity: "High",
    status: "Active",
    classification: null,
    closingComment: null,
    owner: null,
    createdAt: "2026-08-31T08:00:00.000Z",
    lastModificationTime: "2026-09-01T09:30:00.000Z",
    lastActivityTime: "2026-09-01T09:00:00.000Z",
    entities: [{ id: "e1", kind: "Account", name: "j.doe@example.com", properties: {} }],
    alerts: [
      { id: "a1", title: "Impossible travel", severity: "High", timeGenerated: "2026-09-01T09:00:00.000Z", productName: "P", tactics: [], entityIds: ["e1"] },
    ],
    gamebookCatalog: {},
    // A SourceB incident right after creation: no SourceA block yet (docs/contract.md §6.5).
    vendorIdentifiers: { sourceB: { incidentId: "INC-42", incidentUrl: "https://console.source-b.example/incidents/INC-42" } },
    ...overrides,
  };
}

function state(overrides: Partial<IncidentStateRecord> = {}): IncidentStateRecord {
  return {
    id: "state-SourceB-SU5DLTQy",
    docType: "incidentState",
    workspaceId,
    accountId,
    source: "SourceB",
    incidentId: "INC-42",
    status: "Active",
    internalStatus: null,
    classification: null,
    assignee: null,
    sla: { startedAt: "2026-08-31T08:00:00.000Z", pausedAt: null, pausedMs: 0, stoppedAt: null },
    closeCount: 0,
    vendorLastModificationTime: "2026-09-01T09:30:00.000Z",
    ingestedAt: null,
    deletedAt: null,
    createdAt: "2026-08-31T08:00:00.000Z",
    updatedAt: "2026-09-01T09:30:00.000Z",
    ...overrides,
  };
}

const analyst: IncidentAssignee = { userId: "u-1", email: "analyst@example.com", name: "An Analyst", isAgent: false };
const agent: IncidentAssignee = { userId: null, email: null, name: "Triage agent", isAgent: true };
const viaApi: Actor = { origin: "api", serviceAccountId: "sa-1", name: "SOAR integration", accountId };
const upstream: Actor = serviceActor("upstream", "Reconciler");

/** Parses an outbox event's envelope with the catalogue: the typed envelope, the data schema, the generic envelope. */
function expectCatalogued(record: OutboxEventRecord): void {
  const envelope = record.message.envelope;
  const type = envelope.type as EventType;
  expect(eventTypes).toContain(type);
  const typed = eventEnvelopeOf(type).safeParse(envelope);
  expect(typed.error?.issues ?? [], type).toEqual([]);
  expect(eventCatalogue[type].data.safeParse(envelope.data).success).toBe(true);
  expect(eventEnvelope.safeParse(envelope).success).toBe(true);
}

function withExtra(value: unknown): unknown {
  return { ...(value as object), notInTheCatalogue: 1 };
}

describe("the event catalogue", () => {
  it("has one entry, with a summary and a data schema, per event type", () => {
    expect(Object.keys(eventCatalogue).sort()).toEqual([...eventTypes].sort());
    for (const type of eventTypes) {
      expect(eventCatalogue[type].summary.length, type).toBeGreaterThan(10);
      expect(eventCatalogue[type].data).toBeInstanceOf(z.ZodObject);
    }
  });

  it("describes every field of every schema", () => {
    const undescribed: string[] = [];
    const visit = (schema: z.ZodType, path: string): void => {
      if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return visit(schema.unwrap() as z.ZodType, path);
      if (schema instanceof z.ZodArray) return visit(schema.element as z.ZodType, `${path}[]`);
      if (schema instanceof z.ZodObject) {
        for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
          if (!field.description) undescribed.push(`${path}.${key}`);
          visit(field, `${path}.${key}`);
        }
      }
    };
    for (const type of eventTypes) visit(eventEnvelopeOf(type), type);
    expect(undescribed).toEqual([]);
  });
});

describe("the built events parse with their catalogue schemas", () => {
  it("incident.status.changed.v1, first transition", () => {
    const events = statusEvents(vendorIncident({ status: "New" }), state({ status: "New" }), state(), viaApi, null, now);
    expect(events.map((e) => e.message.envelope.type)).toEqual(["incident.status.changed.v1"]);
    events.forEach(expectCatalogued);
  });

  it("incident.status.changed.v1 into and out of an internal status", () => {
    const held = state({ internalStatus: "OnHold" });
    statusEvents(vendorIncident(), state(), held, viaApi, null, now).forEach(expectCatalogued);
    statusEvents(vendorIncident(), held, state(), viaApi, null, now).forEach(expectCatalogued);
  });

  it("a close through the API: incident.status.changed.v1 and incident.closed.v1 with a closing comment", () => {
    const closed = state({ status: "Closed", classification: "TruePositive", closeCount: 1 });
    const incident = vendorIncident({ status: "Closed", classification: "TruePositive", closingComment: "Confirmed." });
    const events = statusEvents(incident, state(), closed, viaApi, "Confirmed.", now);
    expect(events.map((e) => e.message.envelope.type)).toEqual(["incident.status.changed.v1", "incident.closed.v1"]);
    events.forEach(expectCatalogued);
  });

  it("a reconciled upstream close without a comment or a classification", () => {
    const closed = state({ status: "Closed", closeCount: 1 });
    const events = statusEvents(vendorIncident({ status: "Closed" }), state(), closed, upstream, null, now);
    expect(events).toHaveLength(2);
    events.forEach(expectCatalogued);
  });

  it("incident.assignee.changed.v1: first assignment, reassignment to an agent, unassignment", () => {
    expectCatalogued(assigneeEvent(vendorIncident(), null, state({ assignee: analyst }), viaApi, now));
    expectCatalogued(assigneeEvent(vendorIncident(), analyst, state({ assignee: agent }), viaApi, now));
    expectCatalogued(assigneeEvent(vendorIncident(), agent, state({ assignee: null }), viaApi, now));
  });

  it("incident.created.v1 with and without an owner (null fields omitted)", () => {
    const schema = eventCatalogue["incident.created.v1"].data;
    const unowned = incidentCreatedData(vendorIncident(), accountId, null);
    expect(unowned).not.toHaveProperty("owner");
    expect(schema.safeParse(unowned).error?.issues ?? []).toEqual([]);
    const owned = incidentCreatedData(vendorIncident(), accountId, analyst);
    expect(schema.safeParse(owned).error?.issues ?? []).toEqual([]);
    const envelope = { id: "0b8c7d44-3a53-4f5e-9b0a-6c1f1f0de001", type: "incident.created.v1", occurredAt: now.toISOString(), data: owned };
    expect(eventEnvelopeOf("incident.created.v1").safeParse(envelope).success).toBe(true);
    // A vendor without a latest-alert time: the builder omits the field, and the catalogue allows that.
    const noActivity = incidentCreatedData(vendorIncident({ lastActivityTime: null as unknown as string }), accountId, null);
    expect(noActivity).not.toHaveProperty("lastActivityAt");
    expect(schema.safeParse(noActivity).success).toBe(true);
  });

  it("webhook.test.v1: the test envelope, isTest included", () => {
    const envelope = testEnvelope(accountId, now);
    const parsed = eventEnvelopeOf("webhook.test.v1").safeParse(envelope);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(eventEnvelope.safeParse(envelope).success).toBe(true);
    const { isTest: _, ...withoutFlag } = envelope;
    expect(eventEnvelopeOf("webhook.test.v1").safeParse(withoutFlag).success).toBe(false);
    expect(eventEnvelopeOf("incident.created.v1").safeParse({ ...envelope, type: "incident.created.v1" }).success).toBe(false);
  });

  it("rejects a field the catalogue does not know, at the top, in nested blocks and in the envelope", () => {
    const [changed, closed] = statusEvents(
      vendorIncident({ status: "Closed" }),
      state(),
      state({ status: "Closed", classification: "FalsePositive", closeCount: 1 }),
      viaApi,
      "Noise.",
      now,
    );
    for (const { message } of [changed!, closed!]) {
      const type = message.envelope.type as EventType;
      expect(eventCatalogue[type].data.safeParse(withExtra(message.envelope.data)).success, type).toBe(false);
      expect(eventEnvelopeOf(type).safeParse(withExtra(message.envelope)).success, type).toBe(false);
    }
    const assigned = assigneeEvent(vendorIncident(), null, state({ assignee: analyst }), viaApi, now);
    const data = assigned.message.envelope.data as { assignee: unknown };
    const nested = { ...data, assignee: withExtra(data.assignee) };
    expect(eventCatalogue["incident.assignee.changed.v1"].data.safeParse(nested).success).toBe(false);
    const test = testEnvelope(accountId, now);
    expect(eventCatalogue["webhook.test.v1"].data.safeParse(withExtra(test.data)).success).toBe(false);
  });
});

// Rules of the schemas whose events are built with live data (the API tests parse those deliveries).
describe("the comment, agent and gamebook event schemas", () => {
  const comment = {
    incidentId: "INC-42",
    source: "sourceb",
    workspaceId,
    accountId,
    comment: {
      id: "c-1",
      message: "Isolated the host.",
      createdTime: now.toISOString(),
      authorEmail: "agent@example.com",
      authorName: "Triage agent",
      isAgentComment: true,
      agentName: "Triage agent",
    },
    addedBy: { origin: "agent", serviceAccountId: null, name: "Triage agent" },
    incident: { incidentNumber: 42, title: "Impossible travel", severity: "High", sourceDisplayName: "SourceB", vendorIdentifiers: {} },
  };

  it("incident.comment.added.v1, with the incident block read or not", () => {
    expect(incidentCommentAddedData.safeParse(comment).error?.issues ?? []).toEqual([]);
    const unread = { ...comment, incident: { incidentNumber: null, title: null, severity: null, sourceDisplayName: null, vendorIdentifiers: null } };
    expect(incidentCommentAddedData.safeParse(unread).success).toBe(true);
    expect(incidentCommentAddedData.safeParse({ ...comment, incident: {} }).success).toBe(false);
    expect(incidentCommentAddedData.safeParse({ ...comment, source: "SourceB" }).success).toBe(false);
  });

  const verdictSample = (maliciousScore: unknown) => ({
    investigationId: "inv-1",
    incidentId: "INC-42",
    source: "sourceb",
    sourceDisplayName: "SourceB",
    workspaceId,
    accountId,
    incidentNumber: 42,
    title: "Impossible travel",
    severity: "High",
    agentName: "Triage agent",
    completedAt: now.toISOString(),
    classificationBucket: "BenignPositive",
    verdict: { maliciousScore, summary: null },
  });

  it("agent.investigation.completed.v1: a score from 0 to 100, or null, and always present", () => {
    for (const score of [0, 55, 100, null]) expect(agentInvestigationCompletedData.safeParse(verdictSample(score)).success, String(score)).toBe(true);
    for (const score of [-1, 101, 50.5, "80"]) expect(agentInvestigationCompletedData.safeParse(verdictSample(score)).success, String(score)).toBe(false);
    const missing = verdictSample(null);
    missing.verdict = { summary: null } as never;
    expect(agentInvestigationCompletedData.safeParse(missing).success).toBe(false);
    expect(agentInvestigationCompletedData.safeParse({ ...verdictSample(1), classificationBucket: "Benign" }).success).toBe(false);
  });

  it("gamebook.run.v1", () => {
    const run = {
      runId: "run-1",
      tracingId: "trace-1",
      incidentId: "INC-42",
      source: "sourceb",
      sourceDisplayName: "SourceB",
      workspaceId,
      accountId,
      incidentNumber: 42,
      incidentTitle: "Impossible travel",
      gamebookId: "gb-1",
      gamebookTitle: "Contain account",
      status: "Pending",
      isAutoRun: false,
      isRetryGamebook: false,
      triggeredBy: { origin: "api", serviceAccountId: "sa-1", name: "SOAR integration" },
      dispatchedAt: now.toISOString(),
      playbooks: [
        { id: "p-1", referenceId: "pb-1", name: "Disable user", entityType: "User", affectedEntity: "j.doe@example.com", sequence: 1, isAdminRequired: true, status: "Pending" },
      ],
    };
    expect(gamebookRunData.safeParse(run).error?.issues ?? []).toEqual([]);
    // Statuses and entity types are the service's own vocabularies, not free text.
    expect(gamebookRunData.safeParse({ ...run, status: "Completed" }).success).toBe(false);
    expect(gamebookRunData.safeParse({ ...run, playbooks: [{ ...run.playbooks[0], status: "Done" }] }).success).toBe(false);
    expect(gamebookRunData.safeParse({ ...run, playbooks: [{ ...run.playbooks[0], entityType: "Spaceship" }] }).success).toBe(false);
    expect(eventEnvelopeOf("gamebook.run.v1").safeParse({ id: "x", type: "gamebook.run.v1", occurredAt: now.toISOString(), data: run }).success).toBe(true);
  });
});

describe("the OpenAPI document's webhooks", () => {
  const doc = buildOpenApi(allRoutes(), "https://api.example.com") as Record<string, any>;

  it("has an entry per event type whose body is the envelope with that type's data", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...eventTypes].sort());
    for (const type of eventTypes) {
      const post = doc.webhooks[type].post;
      expect(post.summary).toBe(eventCatalogue[type].summary);
      const schema = post.requestBody.content["application/json"].schema;
      expect(schema.properties.type.const).toBe(type);
      expect(schema.required).toEqual(expect.arrayContaining(["id", "type", "occurredAt", "data"]));
      expect(Object.keys(schema.properties.data.properties).sort()).toEqual(
        Object.keys((eventCatalogue[type].data as z.ZodObject).shape).sort(),
      );
      // Reusable parameters, one per header, in the document's components.
      const parameters = post.parameters.map((p: { $ref: string }) => doc.components.parameters[p.$ref.replace("#/components/parameters/", "")]);
      const headers = parameters.map((p: { name: string }) => p.name);
      expect(parameters.every((p: { in: string; example?: string }) => p.in === "header" && typeof p.example === "string")).toBe(true);
      for (const name of ["User-Agent", "X-Svc-Timestamp", "X-Svc-Signature", "webhook-id", "webhook-timestamp", "webhook-signature", "X-Svc-Event-Id", "X-Svc-Event-Type", "X-Svc-Schema", "X-Svc-Test"]) {
        expect(headers, `${type} ${name}`).toContain(name);
      }
      expect(post.description).toContain('v1=<hex HMAC-SHA256(key, "<ts>.<raw body>")>');
      expect(post.description).toContain("Authorization: Bearer");
      expect(post.description).toContain("X-Api-Key");
    }
    expect(doc.webhooks["webhook.test.v1"].post.requestBody.content["application/json"].schema.required).toContain("isTest");
  });

  it("documents each delivery header in a form the signer's own headers have, with an example of that form", () => {
    const documented = Object.values<{ name: string; in: string; required: boolean; schema: { pattern?: string }; example: string }>(doc.components.parameters).filter((p) =>
      p.name.startsWith("X-Svc-") || p.name.startsWith("webhook-"),
    );
    expect(documented.length).toBe(9);
    const base = { eventId: "8a0c7d4e-1f2b-4c3d-9e8f-7a6b5c4d3e2f", eventType: "webhook.test.v1", timestamp: 1_772_442_904, body: '{"id":"x"}', isTest: true };
    // One key, and two during a rotation.
    for (const keys of [[Buffer.alloc(32, 1)], [Buffer.alloc(32, 1), Buffer.from("an-override-signing-token")]]) {
      const sent = signatureHeaders({ ...base, keys });
      for (const header of documented) {
        const value = sent[header.name];
        if (header.required) expect(value, header.name).toBeDefined();
        if (header.schema.pattern) {
          expect(new RegExp(header.schema.pattern).test(value!), `${header.name}: ${value}`).toBe(true);
          expect(new RegExp(header.schema.pattern).test(header.example), `${header.name} example`).toBe(true);
        }
      }
    }
  });

  it("is still a valid OpenAPI 3.1 document", async () => {
    // An ES module; the tests compile as CommonJS, so it is loaded dynamically.
    const { Validator } = await import("@seriousme/openapi-schema-validator");
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });
});
