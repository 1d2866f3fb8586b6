import { describe, expect, it } from "vitest";
import { disabledDocumentStore } from "../../shared/systems/documents/port";
import { createSimulatedDocumentStore } from "../../shared/systems/documents/simulated/simulated-documents";
import { apiErrorOf } from "../support/api-error-of";
import { describeDocumentsContract } from "./documents-contract";

describeDocumentsContract("simulated", async () => ({ store: createSimulatedDocumentStore(), teardown: async () => {} }));

describe("the disabled SOP document store", () => {
  it("refuses every call with EXTENSION_NOT_ENABLED naming the integration", async () => {
    const store = disabledDocumentStore();
    expect(store.enabled).toBe(false);
    const ws = "4f1e2d3c-b5a6-4978-8a9b-0c1d2e3f4a5b";
    const calls = [
      () => store.put({ workspaceId: ws, documentId: "d", fileName: "f", contentType: "text/plain", bytes: Buffer.alloc(0), uploadedBy: "u", uploadedAt: "2025-01-01T00:00:00.000Z", sha256: "0".repeat(64) }),
      () => store.get(ws, "d"),
      () => store.list(ws),
      () => store.delete(ws, "d"),
      () => store.deleteWorkspace(ws),
    ];
    for (const call of calls) {
      const error = await apiErrorOf(call);
      expect(error.code).toBe("EXTENSION_NOT_ENABLED");
      expect(error.status).toBe(400);
      expect(error.target).toBe("documents");
      expect(error.message).toMatch(/SOP document store is not enabled/);
    }
  });
});
