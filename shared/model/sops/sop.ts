/**
 * The service's record of one SOP (standard operating procedure) document of a workspace: what the
 * portal lists and the audit trail names. The bytes are in the document store under the same id; the
 * record is written after them and removed before them, so a listed document can always be read.
 */
export interface SopRecord {
  /** A GUID; the document's id in the document store too. */
  id: string;
  docType: "sop";
  workspaceId: string;
  /** What people call it; the file name without its extension unless given. */
  title: string;
  description: string;
  /** As uploaded. */
  fileName: string;
  /** The media type the service recognised in its bytes, which it is served back with. */
  contentType: string;
  sizeBytes: number;
  /** Lowercase hex SHA-256 of the bytes. */
  sha256: string;
  uploadedAt: string;
  uploadedBy: { userId: string | null; name: string };
}
