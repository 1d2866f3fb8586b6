import { ApiError } from "../../platform/errors/api-error";

/**
 * The port to the store of a workspace's SOP (standard operating procedure) documents: the files
 * analysts follow, kept as uploaded, byte for byte. Adapters: the simulated store (local default,
 * in memory) and Azure Blob Storage. Every method fails only with an ApiError: EXTENSION_NOT_ENABLED
 * when the deployment has no document store, VALIDATION_ERROR for an id or document the store cannot
 * hold, otherwise docs/contract.md §7's mapping of the storage service's answer.
 */
export interface DocumentStore {
  /** False when the deployment has no document store: every call answers EXTENSION_NOT_ENABLED. */
  readonly enabled: boolean;
  /** Stores the document, replacing one of the same id in the workspace, and returns it as stored. */
  put(doc: NewDocument, signal?: AbortSignal): Promise<DocumentInfo>;
  /** The document and its bytes; null when the workspace has no document of that id. */
  get(workspaceId: string, documentId: string, signal?: AbortSignal): Promise<{ info: DocumentInfo; bytes: Buffer } | null>;
  /** Every document of the workspace, newest upload first; equal upload times by id, ascending. */
  list(workspaceId: string, signal?: AbortSignal): Promise<DocumentInfo[]>;
  /** False when the workspace had no document of that id. */
  delete(workspaceId: string, documentId: string, signal?: AbortSignal): Promise<boolean>;
  /** Deletes every document of the workspace (offboarding) and answers how many there were. */
  deleteWorkspace(workspaceId: string, signal?: AbortSignal): Promise<number>;
}

export interface NewDocument {
  workspaceId: string;
  documentId: string;
  /** The name the file was uploaded under; any Unicode text. */
  fileName: string;
  /** The media type it is served back with ("application/pdf"). */
  contentType: string;
  bytes: Buffer;
  /** Who uploaded it (the actor's id or name). */
  uploadedBy: string;
  uploadedAt: string;
  /** Lowercase hex SHA-256 of `bytes`, computed by the caller, so that a download can be checked. */
  sha256: string;
}

export interface DocumentInfo {
  id: string;
  workspaceId: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  uploadedBy: string;
  uploadedAt: string;
}

/** The document store with none configured: every call is 400 EXTENSION_NOT_ENABLED naming the integration. */
export function disabledDocumentStore(): DocumentStore {
  const refuse = async (): Promise<never> => {
    throw documentsNotEnabled();
  };
  return { enabled: false, put: refuse, get: refuse, list: refuse, delete: refuse, deleteWorkspace: refuse };
}

export function documentsNotEnabled(): ApiError {
  return new ApiError("EXTENSION_NOT_ENABLED", "The SOP document store is not enabled for this deployment.", { target: "documents" });
}

/**
 * Workspace and document ids as a store can hold them: a blob's name is `<workspaceId>/<documentId>`,
 * so a "/" would let one workspace's prefix reach into another's, and blob names ending in "." or
 * holding "\" are rewritten by the storage service. The service's ids (GUIDs) always fit.
 */
const ID = /^[A-Za-z0-9_-]{1,128}$/;
const SHA256 = /^[0-9a-f]{64}$/;

export function isDocumentId(value: string): boolean {
  return ID.test(value);
}

export function checkDocumentId(name: "workspaceId" | "documentId", value: string): void {
  if (!isDocumentId(value)) invalid(name, "Must be 1 to 128 letters, digits, '-' or '_'.");
}

/**
 * The rules every adapter applies before storing (ids it can hold and the fields a download needs),
 * and what the stored document's info will be.
 */
export function checkNewDocument(doc: NewDocument): DocumentInfo {
  checkDocumentId("workspaceId", doc.workspaceId);
  checkDocumentId("documentId", doc.documentId);
  if (doc.fileName.trim() === "") invalid("fileName", "Must not be empty.");
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*;[\x20-\x7e]*)?$/.test(doc.contentType)) invalid("contentType", "Must be a media type.");
  if (!SHA256.test(doc.sha256)) invalid("sha256", "Must be 64 lowercase hex digits.");
  if (doc.uploadedBy === "") invalid("uploadedBy", "Must not be empty.");
  if (Number.isNaN(Date.parse(doc.uploadedAt))) invalid("uploadedAt", "Must be a timestamp.");
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

/** The one listing order of every adapter: newest upload first, then by id. */
export function compareDocuments(a: DocumentInfo, b: DocumentInfo): number {
  const byTime = Date.parse(b.uploadedAt) - Date.parse(a.uploadedAt);
  if (byTime !== 0) return byTime;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function invalid(field: string, message: string): never {
  throw new ApiError("VALIDATION_ERROR", `${field}: ${message}`, { target: field, errors: { [field]: [message] } });
}
