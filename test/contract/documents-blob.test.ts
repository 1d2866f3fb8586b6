import { createHash } from "node:crypto";
import { BlobServiceClient } from "@azure/storage-blob";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBlobDocumentStore } from "../../shared/systems/documents/blob/blob-documents";
import type { NewDocument } from "../../shared/systems/documents/port";
import { startAzurite, type Azurite } from "../support/azurite";
import { describeDocumentsContract } from "./documents-contract";

// The Blob Storage adapter over real HTTP, against Azurite (the storage service's emulator) in a
// child process: the same behaviour as the simulated store, wire, metadata and container creation
// included. Each test gets a container of its own, created by the adapter on first use.
let azurite: Azurite | undefined;
let containers = 0;

beforeAll(async () => {
  azurite = await startAzurite();
});
afterAll(async () => {
  await azurite?.stop();
});

describeDocumentsContract("Azure Blob Storage (Azurite)", async () => ({
  store: createBlobDocumentStore({ connectionString: azurite!.connectionString, container: `sop-contract-${++containers}`, timeoutMs: 10_000 }),
  teardown: async () => {},
}));

const WS = "4f1e2d3c-b5a6-4978-8a9b-0c1d2e3f4a5b";

function doc(documentId: string, text: string, extra: Partial<NewDocument> = {}): NewDocument {
  const bytes = Buffer.from(text);
  return {
    workspaceId: WS,
    documentId,
    fileName: `${documentId}.txt`,
    contentType: "text/plain",
    bytes,
    uploadedBy: "analyst@contoso.example",
    uploadedAt: "2025-01-01T00:00:00.000Z",
    sha256: createHash("sha256").update(bytes).digest("hex"),
    ...extra,
  };
}

describe("Azure Blob Storage SOP documents: the storage layout", () => {
  const containerOf = (name: string) => BlobServiceClient.fromConnectionString(azurite!.connectionString).getContainerClient(name);

  it("writes one blob per document, named <workspaceId>/<documentId>, with its content type and ASCII metadata", async () => {
    const store = createBlobDocumentStore({ connectionString: azurite!.connectionString, container: "sop-layout", timeoutMs: 10_000 });
    const stored = doc("sop-a", "hello", { fileName: "Übung 1 – 日本.txt", uploadedBy: "Zoë", contentType: "text/plain; charset=utf-8" });
    await store.put(stored);
    const blobs = [];
    for await (const blob of containerOf("sop-layout").listBlobsFlat({ includeMetadata: true })) blobs.push(blob);
    expect(blobs.map((b) => b.name)).toEqual([`${WS}/sop-a`]);
    expect(blobs[0]!.properties.contentType).toBe("text/plain; charset=utf-8");
    expect(blobs[0]!.properties.contentLength).toBe(5);
    expect(blobs[0]!.metadata).toEqual({
      filename: encodeURIComponent("Übung 1 – 日本.txt"),
      uploadedby: "Zo%C3%AB",
      uploadedat: "2025-01-01T00:00:00.000Z",
      sha256: stored.sha256,
    });
  });

  it("creates the container again when it was deleted behind the store, and answers as an empty store", async () => {
    const store = createBlobDocumentStore({ connectionString: azurite!.connectionString, container: "sop-recreated", timeoutMs: 10_000 });
    await store.put(doc("sop-a", "before"));
    await containerOf("sop-recreated").delete();
    expect(await store.get(WS, "sop-a")).toBeNull();
    await containerOf("sop-recreated").delete();
    expect(await store.list(WS)).toEqual([]);
    await containerOf("sop-recreated").delete();
    await store.put(doc("sop-b", "after"));
    expect((await store.get(WS, "sop-b"))!.bytes.toString()).toBe("after");
  });

  it("serves documents across adapters sharing one container, as the instances of one deployment do", async () => {
    const options = { connectionString: azurite!.connectionString, container: "sop-shared", timeoutMs: 10_000 };
    const first = createBlobDocumentStore(options);
    const second = createBlobDocumentStore(options);
    // Both create the container on their first call, at the same time.
    await Promise.all([first.list(WS), second.list(WS)]);
    await first.put(doc("sop-a", "shared"));
    expect((await second.get(WS, "sop-a"))!.bytes.toString()).toBe("shared");
    expect(await second.delete(WS, "sop-a")).toBe(true);
    expect(await first.get(WS, "sop-a")).toBeNull();
  });

  it("answers a storage failure as an ApiError naming the operation, without the SDK's text", async () => {
    const wrongKey = azurite!.connectionString.replace(/AccountKey=[^;]+/, `AccountKey=${Buffer.alloc(64).toString("base64")}`);
    const store = createBlobDocumentStore({ connectionString: wrongKey, container: "sop-refused", timeoutMs: 10_000 });
    const error = await store.list(WS).then(
      () => undefined,
      (e: unknown) => e as { code?: string; message?: string },
    );
    expect(error?.code).toBe("UPSTREAM_ERROR");
    expect(error?.message).toBe("Azure Blob Storage refused the service's credential (status 403) while creating the container sop-refused.");
  });
});
