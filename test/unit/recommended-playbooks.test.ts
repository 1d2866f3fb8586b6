import { describe, expect, it } from "vitest";
import { runnableGamebookCatalog } from "../../shared/domain/gamebooks/recommended-playbooks";
import type { CataloguePlaybook } from "../../shared/model/gamebooks/playbook-catalogue-record";

const playbook = (referenceId: string, entityType: CataloguePlaybook["entityType"], extra: Partial<CataloguePlaybook> = {}): CataloguePlaybook => ({
  id: `id-${referenceId}`,
  workspaceId: "w",
  referenceId,
  name: `Name of ${referenceId}`,
  description: "",
  entityType,
  action: entityType === "Incident" ? "incident.comment" : "automation",
  isAdminRequired: false,
  isRecommended: true,
  recoverPlaybookId: null,
  parameters: [],
  ...extra,
});

const catalogue = [playbook("disable-account", "User", { isAdminRequired: true }), playbook("isolate-host", "Host", { enabled: false }), playbook("block-ip", "Ip"), playbook("add-comment", "Incident")];
const incident = {
  id: "inc-1",
  entities: [
    { id: "acct-1", kind: "Account" as const, name: "a@b.example", properties: {} },
    { id: "acct-2", kind: "Account" as const, name: "c@d.example", properties: {} },
    { id: "host-1", kind: "Host" as const, name: "H1", properties: {} },
  ],
};

describe("the vendor's recommendations, as the workspace runs them", () => {
  it("gives each under its catalogue id with the entity it acts on; what cannot run is listed apart, with why", () => {
    const given = {
      catalogVersion: "2024.11",
      recommended: [
        { id: "disable-account", name: "Disable account", entityType: "User", entityId: "acct-2" },
        { id: "isolate-host", name: "Isolate host", entityType: "Host", entityId: "host-1" },
        { id: "block-ip", name: "Block IP", entityType: "Ip", entityId: null },
        { id: "purge-email", name: "Purge phishing email", entityType: "Mailbox", entityId: null },
        { id: "id-add-comment", name: "Comment" },
        // The vendor's entity does not fit: the first one that does is taken.
        { id: "disable-account", name: "Disable account", entityType: "User", entityId: "host-1" },
      ],
    };
    expect(runnableGamebookCatalog(given, catalogue, incident)).toEqual({
      catalogVersion: "2024.11",
      recommended: [
        { id: "id-disable-account", referenceId: "disable-account", name: "Name of disable-account", description: "", entityType: "User", entityId: "acct-2", isAdminRequired: true },
        { id: "id-add-comment", referenceId: "add-comment", name: "Name of add-comment", description: "", entityType: "Incident", entityId: "inc-1", isAdminRequired: false },
      ],
      unavailable: [
        { referenceId: "isolate-host", name: "Name of isolate-host", reason: "SwitchedOff" },
        { referenceId: "block-ip", name: "Name of block-ip", reason: "NoEntity" },
        { referenceId: "purge-email", name: "Purge phishing email", reason: "NotInCatalogue" },
      ],
    });
    const wrongEntity = runnableGamebookCatalog({ recommended: [{ id: "disable-account", entityId: "host-1" }] }, catalogue, incident);
    expect((wrongEntity.recommended as { entityId: string }[])[0]!.entityId).toBe("acct-1");
  });

  it("leaves a catalogue of another shape as the vendor gave it", () => {
    const shapes = [{ "reset-password": { name: "Reset" } }, { recommended: "none" }, { recommended: [{ name: "no id" }] }];
    for (const shape of shapes) expect(runnableGamebookCatalog(shape, catalogue, incident)).toBe(shape);
  });
});
