import { checkDocumentId, checkNewDocument, compareDocuments, type DocumentInfo, type DocumentStore } from "../port";

interface Stored {
  info: DocumentInfo;
  bytes: Buffer;
}

/**
 * SOP documents held in this process's memory, one map per workspace: the local host's store when no
 * Blob Storage account is configured. It starts empty and forgets everything on restart.
 */
export function createSimulatedDocumentStore(): DocumentStore {
  const workspaces = new Map<string, Map<string, Stored>>();

  // Bytes are copied in and out: a caller reusing its buffer must not change what is stored.
  const copy = (stored: Stored) => ({ info: { ...stored.info }, bytes: Buffer.from(stored.bytes) });

  return {
    enabled: true,

    async put(doc) {
      const info = checkNewDocument(doc);
      const documents = workspaces.get(doc.workspaceId) ?? new Map<string, Stored>();
      documents.set(doc.documentId, { info, bytes: Buffer.from(doc.bytes) });
      workspaces.set(doc.workspaceId, documents);
      return { ...info };
    },

    async get(workspaceId, documentId) {
      checkDocumentId("workspaceId", workspaceId);
      checkDocumentId("documentId", documentId);
      const stored = workspaces.get(workspaceId)?.get(documentId);
      return stored ? copy(stored) : null;
    },

    async list(workspaceId) {
      checkDocumentId("workspaceId", workspaceId);
      return [...(workspaces.get(workspaceId)?.values() ?? [])].map((s) => ({ ...s.info })).sort(compareDocuments);
    },

    async delete(workspaceId, documentId) {
      checkDocumentId("workspaceId", workspaceId);
      checkDocumentId("documentId", documentId);
      return workspaces.get(workspaceId)?.delete(documentId) ?? false;
    },

    async deleteWorkspace(workspaceId) {
      checkDocumentId("workspaceId", workspaceId);
      const count = workspaces.get(workspaceId)?.size ?? 0;
      workspaces.delete(workspaceId);
      return count;
    },
  };
}
