import { z } from "zod";
import type { UploadedFile } from "../../../platform/http/multipart-body";
import { EXAMPLE_USER, EXAMPLE_WORKSPACE_ID } from "../../../platform/http/examples";
import { ACCEPTED_SOP_TYPES, SOP_MEDIA_TYPES } from "../../../domain/sops/sop-content";

/** The demo SOP of `fabrikam-sentinel-prod` (the local host seeds it): what the read and delete examples name. */
export const EXAMPLE_SOP_ID = "eb54781b-ac21-8dad-8399-df867a227e6b";

const workspaceId = z.guid().describe("The workspace's id.").meta({ examples: [EXAMPLE_WORKSPACE_ID] });
export const workspaceParams = z.strictObject({ workspaceId });
export const sopParams = z.strictObject({ workspaceId, sopId: z.guid().describe("The SOP document's id.").meta({ examples: [EXAMPLE_SOP_ID] }) });

const isUploadedFile = (value: unknown): value is UploadedFile =>
  value !== null && typeof value === "object" && !Array.isArray(value) && Buffer.isBuffer((value as Partial<UploadedFile>).bytes);

/** An optional text field of the form: an empty one (an empty input) is as good as none. */
const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .optional()
    .transform((v) => (v === "" ? undefined : v));

export const uploadBody = z
  .strictObject({
    file: z
      .custom<UploadedFile>(isUploadedFile, "Send the document as one file part named file (with a file name).")
      .meta({ type: "string", format: "binary", description: `The document: ${ACCEPTED_SOP_TYPES}. Its type is judged from its bytes.` }),
    title: optionalText(200).describe("What people call it; default the file name without its extension."),
    description: optionalText(2000),
  })
  .meta({ examples: [{ file: "# Phishing triage\n\n1. Pull the message headers…", title: "Phishing triage", description: "First steps for a reported phishing email." }] });

const sopExample = {
  id: EXAMPLE_SOP_ID,
  workspaceId: EXAMPLE_WORKSPACE_ID,
  title: "Phishing triage",
  description: "First steps for a reported phishing email.",
  fileName: "phishing-triage.md",
  contentType: "text/markdown; charset=utf-8",
  sizeBytes: 1432,
  sha256: "9f2b5c1d0e8a7f6b3c4d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b",
  uploadedAt: "2026-03-02T09:00:00.000Z",
  uploadedBy: { userId: EXAMPLE_USER.id, name: EXAMPLE_USER.displayName },
};

export const sopView = z
  .object({
    id: z.guid(),
    workspaceId: z.guid(),
    title: z.string(),
    description: z.string(),
    fileName: z.string().describe("As uploaded; the download is offered under it."),
    contentType: z.string().describe("The media type recognised in its bytes, which the download is served with."),
    sizeBytes: z.int(),
    sha256: z.string().describe("Lowercase hex SHA-256 of the bytes."),
    uploadedAt: z.string(),
    uploadedBy: z.object({ userId: z.string().nullable(), name: z.string() }),
  })
  .meta({ examples: [sopExample] });

export const sopListView = z.array(sopView).describe("Newest upload first.").meta({ examples: [[sopExample]] });

/** The media types a download is served with (text with `; charset=utf-8`). */
export const downloadMediaTypes = Object.values(SOP_MEDIA_TYPES);
