import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxEvents } from "../support/outbox";
import { startTestHost, type TestHost } from "../support/test-host";
import { json } from "../support/json";

/*
 * Contract 6.5: events carry the incident's `sourceDisplayName`. The deployment names its sources
 * (SOURCE_<X>_DISPLAY_NAME); the local host names the ones it simulates; `SourceA`… stays the path
 * value and the events' `source`.
 */
let host: TestHost;
let ws: string;
beforeAll(async () => {
  host = await startTestHost({ env: { SOURCE_C_DISPLAY_NAME: "Contoso Mail Gateway" } });
  ws = host.demo.workspaces[0]!.id;
});
afterAll(async () => host?.close());

describe("source display names, configured per deployment", () => {
  it("the portal is told each source's name: the deployment's setting wins, the demo names the sources it simulates", async () => {
    const person = await host.person({ organizationalRole: "Member" });
    const { data } = await json(await host.portal(person, "GET", "/portal/me"));
    expect(data.sourceDisplayNames).toEqual({
      SourceA: "Northwatch SIEM",
      SourceB: "Falconridge XDR",
      SourceC: "Contoso Mail Gateway",
      SourceD: "Skylens Cloud Posture",
      SourceE: "Keystone Identity Protection",
      SourceF: "Tidewater Network Detection",
      SourceG: "Ledgerline DLP",
    });
  });

  it("events carry the display name as sourceDisplayName, and the path value as source; the path takes the path value", async () => {
    const incident = host.simulated.vendors.createIncident("SourceC", ws, { title: "Credential phishing wave", severity: "Medium" });
    const path = `/workspaces/${ws}/incidents/SourceC/${encodeURIComponent(incident.id)}`;
    expect((await host.call("PUT", `${path}/status`, { body: { status: "Active" } })).status).toBe(204);
    const comment = await host.call("POST", `${path}/comments`, { body: { message: "Looking into it." } });
    expect(comment.status).toBe(201);
    const events = (await outboxEvents(host.services, ws)).filter((e) => e.data.incidentId === incident.id);
    const changed = events.find((e) => e.type === "incident.status.changed.v1")!;
    expect(changed.data).toMatchObject({ source: "sourcec", sourceDisplayName: "Contoso Mail Gateway" });
    const added = events.find((e) => e.type === "incident.comment.added.v1")!;
    expect(added.data).toMatchObject({ source: "sourcec", incident: { sourceDisplayName: "Contoso Mail Gateway" } });
    // A display name is not a path value.
    expect((await json(await host.call("GET", `/workspaces/${ws}/incidents/${encodeURIComponent("Contoso Mail Gateway")}/${incident.id}`))).code).toBe("VALIDATION_ERROR");
  });
});
