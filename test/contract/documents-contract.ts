import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DocumentInfo, DocumentStore, NewDocument } from "../../shared/systems/documents/port";
import { apiErrorOf } from "../support/api-error-of";

const WS = "4f1e2d3c-b5a6-4978-8a9b-0c1d2e3f4a5b";
/** WS's id is a prefix of this one's: a listing by prefix must not reach across. */
const WS_LONGER = `${WS}0`;
const OTHER_WS = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";

/** Every byte value, a NUL run and bytes that are not UTF-8: nothing may be read as text on the way. */
const BINARY = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.alloc(64), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1])]);
/** Non-ASCII, "%", spaces, a quote and an emoji: blob metadata takes ASCII only, so the adapter must carry it intact. */
const UNICODE_NAME = "Verfahren – Phishing «Übernahme» 100% \"final\" 日本語 😀.pdf";

export interface DocumentsFixture {
  /** The adapter under test, over an empty store. */
  store: DocumentStore;
  teardown(): Promise<void>;
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

function newDocument(workspaceId: string, documentId: string, extra: Partial<NewDocument> = {}): NewDocument {
  const bytes = extra.bytes ?? Buffer.from(`SOP ${documentId}\n`);
  return {
    workspaceId,
    documentId,
    fileName: `${documentId}.md`,
    contentType: "text/markdown; charset=utf-8",
    uploadedBy: "analyst@contoso.example",
    uploadedAt: "2025-01-15T09:30:00.000Z",
    sha256: sha256(bytes),
    ...extra,
    bytes,
  };
}

function infoOf(doc: NewDocument): DocumentInfo {
  return {
    id: doc.documentId,
    workspaceId: doc.workspaceId,
    fileName: doc.fileName,
    contentType: doc.contentType,
    sizeBytes: doc.bytes.length,
    sha256: doc.sha256,
    uploadedBy: doc.uploadedBy,
    uploadedAt: doc.uploadedAt,
  };
}

/**
 * The behaviour every DocumentStore adapter must have, pinned once and run against each adapter.
 * `setup` gives every test an empty store behind its adapter.
 */
export function describeDocumentsContract(name: string, setup: () => Promise<DocumentsFixture>): void {
  describe(`${name} SOP documents`, () => {
    let store: DocumentStore;
    let teardown: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      ({ store, teardown } = await setup());
    });
    afterEach(async () => {
      await teardown?.();
      teardown = undefined;
    });

    it("is enabled", () => {
      expect(store.enabled).toBe(true);
    });

    describe("put and get", () => {
      it("stores binary bytes and a non-ASCII file name, and gives both back exactly", async () => {
        const doc = newDocument(WS, "sop-phishing", {
          fileName: UNICODE_NAME,
          contentType: "application/pdf",
          bytes: BINARY,
          uploadedBy: "Zoë Øvergård <zoe@contoso.example>",
          uploadedAt: "2025-02-01T08:00:00.000Z",
        });
        expect(await store.put(doc)).toEqual(infoOf(doc));

        const got = await store.get(WS, "sop-phishing");
        expect(got).not.toBeNull();
        expect(got!.info).toEqual(infoOf(doc));
        expect(Buffer.isBuffer(got!.bytes)).toBe(true);
        expect(got!.bytes.equals(BINARY)).toBe(true);
        expect(sha256(got!.bytes)).toBe(got!.info.sha256);
      });

      it("keeps what was stored when the caller reuses its buffers", async () => {
        const bytes = Buffer.from("original");
        await store.put(newDocument(WS, "sop-a", { bytes }));
        bytes.fill(0);
        const first = await store.get(WS, "sop-a");
        first!.bytes.fill(1);
        expect((await store.get(WS, "sop-a"))!.bytes.toString()).toBe("original");
      });

      it("stores an empty document", async () => {
        const doc = newDocument(WS, "sop-empty", { bytes: Buffer.alloc(0) });
        await store.put(doc);
        const got = await store.get(WS, "sop-empty");
        expect(got!.info).toEqual({ ...infoOf(doc), sizeBytes: 0 });
        expect(got!.bytes.length).toBe(0);
      });

      it("replaces a document put again under the same id", async () => {
        await store.put(newDocument(WS, "sop-a", { bytes: Buffer.from("version one, longer") }));
        const second = newDocument(WS, "sop-a", { bytes: Buffer.from("v2"), fileName: "renamed.txt", contentType: "text/plain", uploadedAt: "2025-03-01T00:00:00.000Z" });
        expect(await store.put(second)).toEqual(infoOf(second));
        const got = await store.get(WS, "sop-a");
        expect(got!.info).toEqual(infoOf(second));
        expect(got!.bytes.toString()).toBe("v2");
        expect(await store.list(WS)).toEqual([infoOf(second)]);
      });

      it("answers null for a document that does not exist, in an empty or a populated workspace", async () => {
        expect(await store.get(WS, "sop-missing")).toBeNull();
        await store.put(newDocument(WS, "sop-a"));
        expect(await store.get(WS, "sop-missing")).toBeNull();
        expect(await store.get(OTHER_WS, "sop-a")).toBeNull();
      });
    });

    describe("list", () => {
      it("lists newest upload first, equal times by id", async () => {
        const docs = [
          newDocument(WS, "sop-c", { uploadedAt: "2025-01-10T00:00:00.000Z" }),
          newDocument(WS, "sop-b", { uploadedAt: "2025-01-12T00:00:00.000Z" }),
          newDocument(WS, "sop-z", { uploadedAt: "2025-01-11T00:00:00.000Z" }),
          newDocument(WS, "sop-a", { uploadedAt: "2025-01-11T00:00:00.000Z" }),
          newDocument(WS, "sop-m", { uploadedAt: "2025-01-11T00:00:00.000Z" }),
        ];
        for (const doc of docs) await store.put(doc);
        const listed = await store.list(WS);
        expect(listed.map((d) => d.id)).toEqual(["sop-b", "sop-a", "sop-m", "sop-z", "sop-c"]);
        expect(listed).toEqual(["sop-b", "sop-a", "sop-m", "sop-z", "sop-c"].map((id) => infoOf(docs.find((d) => d.documentId === id)!)));
      });

      it("describes each document as get does, without its bytes", async () => {
        const doc = newDocument(WS, "sop-phishing", { fileName: UNICODE_NAME, contentType: "application/pdf", bytes: BINARY });
        await store.put(doc);
        const [listed] = await store.list(WS);
        expect(listed).toEqual(infoOf(doc));
        expect(listed).toEqual((await store.get(WS, "sop-phishing"))!.info);
        expect(listed).not.toHaveProperty("bytes");
      });

      it("keeps each workspace's documents to itself, even where one id is a prefix of another", async () => {
        await store.put(newDocument(WS, "sop-a"));
        await store.put(newDocument(WS_LONGER, "sop-b"));
        await store.put(newDocument(OTHER_WS, "sop-a", { bytes: Buffer.from("other workspace") }));
        expect((await store.list(WS)).map((d) => [d.workspaceId, d.id])).toEqual([[WS, "sop-a"]]);
        expect((await store.list(WS_LONGER)).map((d) => [d.workspaceId, d.id])).toEqual([[WS_LONGER, "sop-b"]]);
        expect((await store.get(WS, "sop-a"))!.bytes.toString()).toBe("SOP sop-a\n");
        expect((await store.get(OTHER_WS, "sop-a"))!.bytes.toString()).toBe("other workspace");
      });

      it("lists a workspace without documents as empty", async () => {
        expect(await store.list(WS)).toEqual([]);
      });
    });

    describe("delete", () => {
      it("answers true when it deleted the document and false when there was none", async () => {
        await store.put(newDocument(WS, "sop-a"));
        await store.put(newDocument(WS, "sop-b"));
        await store.put(newDocument(OTHER_WS, "sop-a"));
        expect(await store.delete(WS, "sop-a")).toBe(true);
        expect(await store.get(WS, "sop-a")).toBeNull();
        expect(await store.delete(WS, "sop-a")).toBe(false);
        expect(await store.delete(WS, "sop-never")).toBe(false);
        expect((await store.list(WS)).map((d) => d.id)).toEqual(["sop-b"]);
        expect(await store.get(OTHER_WS, "sop-a")).not.toBeNull();
      });

      it("deletes every document of a workspace and counts them, leaving the others", async () => {
        for (const id of ["sop-a", "sop-b", "sop-c"]) await store.put(newDocument(WS, id));
        await store.put(newDocument(WS_LONGER, "sop-a"));
        await store.put(newDocument(OTHER_WS, "sop-a"));
        expect(await store.deleteWorkspace(WS)).toBe(3);
        expect(await store.list(WS)).toEqual([]);
        expect(await store.get(WS, "sop-b")).toBeNull();
        expect(await store.deleteWorkspace(WS)).toBe(0);
        expect((await store.list(WS_LONGER)).map((d) => d.id)).toEqual(["sop-a"]);
        expect((await store.list(OTHER_WS)).map((d) => d.id)).toEqual(["sop-a"]);
      });

      it("counts nothing for a workspace that never had documents", async () => {
        expect(await store.deleteWorkspace(OTHER_WS)).toBe(0);
      });
    });

    describe("what the store refuses", () => {
      it("refuses ids that could reach outside their workspace, before storing anything", async () => {
        for (const [workspaceId, documentId] of [
          [`${WS}/sop-a`, "x"],
          [WS, "../sop-a"],
          [WS, "a/b"],
          ["", "sop-a"],
          [WS, ""],
        ] as const) {
          const error = await apiErrorOf(store.put(newDocument(workspaceId, documentId)));
          expect(error.code, `${workspaceId} ${documentId}`).toBe("VALIDATION_ERROR");
        }
        expect((await apiErrorOf(store.get(WS, "a/b"))).code).toBe("VALIDATION_ERROR");
        expect((await apiErrorOf(store.list(`${WS}/`))).code).toBe("VALIDATION_ERROR");
        expect((await apiErrorOf(store.delete(WS, "a/b"))).code).toBe("VALIDATION_ERROR");
        expect((await apiErrorOf(store.deleteWorkspace(""))).code).toBe("VALIDATION_ERROR");
        expect(await store.list(WS)).toEqual([]);
      });

      it("refuses a document without a media type, a SHA-256 or an upload time", async () => {
        for (const extra of [{ contentType: "pdf" }, { contentType: "text/plain; charset=ü" }, { sha256: "abc" }, { uploadedAt: "yesterday" }, { fileName: " " }, { uploadedBy: "" }]) {
          const error = await apiErrorOf(store.put(newDocument(WS, "sop-a", extra)));
          expect(error.code, JSON.stringify(extra)).toBe("VALIDATION_ERROR");
          expect(error.target).toBe(Object.keys(extra)[0]);
        }
        expect(await store.list(WS)).toEqual([]);
      });
    });
  });
}
