import { createHash, randomUUID } from "node:crypto";
import { ApiError, notFound } from "../../../platform/errors/api-error";
import { auditRecord, type AuditEntry } from "../../../platform/events/audit-record";
import { personWorkspaceRoute, type PersonWorkspaceInput } from "../../route-kinds";
import type { RouteGroup } from "../../../platform/http/route";
import type { Actor } from "../../../platform/actor";
import { commit } from "../../../platform/store/commit";
import { outboxScope } from "../../../platform/store/outbox-scope";
import { documentsNotEnabled } from "../../../systems/documents/port";
import { sopContentOf } from "../../../domain/sops/sop-content";
import type { SopRecord } from "../../../model/sops/sop";
import type { WorkspaceRecord } from "../../../model/organizations/workspace";
import { downloadMediaTypes, sopListView, sopParams, sopView, uploadBody, workspaceParams } from "./sop-schemas";

const tag = "Portal: SOPs";
const EDITORS = ["AgentAdmin"] as const;
const base = "/portal/workspaces/{workspaceId}/sops";
/** Room in an upload's body for the form's own parts (boundaries, headers, title, description) beside the file. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

type SopInput = PersonWorkspaceInput<{ workspaceId: string; sopId: string }, unknown, unknown>;

function viewOf(record: SopRecord) {
  const { docType: _docType, ...view } = record;
  return view;
}

async function recordOf(input: SopInput): Promise<{ value: SopRecord; etag: string }> {
  const found = await input.stores.sops.get(input.workspace.id, input.params.sopId.toLowerCase());
  if (!found) throw notFound("The SOP document", "sopId");
  return found;
}

function sopAudit(actor: Actor, workspace: WorkspaceRecord, record: SopRecord, activityAction: AuditEntry["activityAction"], now: Date) {
  return auditRecord(
    actor,
    {
      activityType: "SopDocument",
      activityAction,
      targetResourceType: "SopDocument",
      targetResourceId: record.id,
      targetResourceName: record.title,
      metadata: { fileName: record.fileName, contentType: record.contentType, sizeBytes: record.sizeBytes, sha256: record.sha256 },
      workspaceId: workspace.id,
      accountId: workspace.accountId,
    },
    outboxScope.workspace(workspace.id),
    now,
  );
}

/** The name a download is offered under: the uploaded name without a client's path or control characters. */
function cleanFileName(name: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it strips
  const base = (name.split(/[\\/]/).pop() ?? "").replace(/[\u0000-\u001f\u007f]/g, "").trim();
  return (base || "document").slice(0, 255);
}

/**
 * `Content-Disposition` for a download (RFC 6266): an ASCII fallback name for old clients and the
 * exact name in `filename*`, percent-encoded UTF-8 (RFC 8187), which no name can break out of.
 */
function attachment(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * A workspace's SOPs (standard operating procedures): documents analysts and agents follow, kept
 * byte for byte in the document store, with the service's record of each beside the workspace's
 * other items. `AgentAdmin` uploads and deletes; anyone who may act on the workspace reads them.
 */
export const portalSopRoutes: RouteGroup = {
  name: "portal-sops",
  routes: [
    personWorkspaceRoute({
      method: "POST",
      path: base,
      idempotencyKey: true,
      responseHeaders: ["Location"],
      summary: "Upload an SOP document",
      description:
        "`multipart/form-data` with one file part, `file`, and optional `title` and `description` fields. Its type is judged from its bytes: PDF, Word " +
        "(.docx), Markdown or plain UTF-8 text; a declared type or a file extension that contradicts them, or any other content, is 415. Larger than the " +
        "deployment's limit (`SOP_MAX_BYTES`, 10 MiB by default) is 413; an empty file 400. The answer carries the SHA-256 of what was stored. Audited. " +
        "400 `EXTENSION_NOT_ENABLED` when the deployment has no document store.",
      tag,
      roles: EDITORS,
      params: workspaceParams,
      multipart: true,
      maxBodyBytes: (config) => config.documents.maxBytes + FORM_OVERHEAD_BYTES,
      body: uploadBody,
      response: sopView,
      successStatus: 201,
      problems: ["EXTENSION_NOT_ENABLED"],
      async handler(input) {
        const { workspace, body, person } = input;
        if (!input.documents.enabled) throw documentsNotEnabled();
        const { file } = body;
        const maxBytes = input.config.documents.maxBytes;
        if (file.bytes.length > maxBytes) {
          throw new ApiError("BAD_REQUEST", `The file is ${file.bytes.length} bytes; an SOP document may have at most ${maxBytes}.`, { status: 413, target: "file" });
        }
        if (file.bytes.length === 0) {
          throw new ApiError("VALIDATION_ERROR", "The file is empty.", { target: "file", errors: { file: ["The file is empty."] } });
        }
        const fileName = cleanFileName(file.fileName);
        const content = sopContentOf(file.bytes, fileName, file.contentType);
        if (!content.ok) throw new ApiError("UNSUPPORTED_MEDIA_TYPE", content.why, { target: "file" });
        const now = input.now();
        const record: SopRecord = {
          id: randomUUID(),
          docType: "sop",
          workspaceId: workspace.id,
          title: body.title ?? (fileName.replace(/\.[A-Za-z0-9]+$/, "") || fileName),
          description: body.description ?? "",
          fileName,
          contentType: content.contentType,
          sizeBytes: file.bytes.length,
          sha256: createHash("sha256").update(file.bytes).digest("hex"),
          uploadedAt: now.toISOString(),
          uploadedBy: { userId: person.userId, name: person.name },
        };
        // The bytes first, then the record with its audit event: a listed document can always be read.
        await input.documents.put(
          {
            workspaceId: workspace.id,
            documentId: record.id,
            fileName,
            contentType: record.contentType,
            bytes: file.bytes,
            uploadedBy: person.userId,
            uploadedAt: record.uploadedAt,
            sha256: record.sha256,
          },
          input.signal,
        );
        try {
          await commit({
            deadline: input.deadline,
            read: async () => ({ value: record, etag: null }),
            change: () => [sopAudit(input.actor, workspace, record, "Create", now)],
            write: (draft, _etag, outbox) => input.stores.sops.create(draft, outbox),
            outbox: input.events.outbox,
            // A fresh id conflicts with nothing but itself.
            maxAttempts: 1,
          });
        } catch (error) {
          // Nothing lists the bytes without their record: take them back rather than leave them unreachable.
          await input.documents.delete(workspace.id, record.id).catch((cleanup: unknown) => {
            input.logger.warn("SOP document left without its record", { workspaceId: workspace.id, documentId: record.id, error: String(cleanup) });
          });
          throw error;
        }
        return {
          status: 201,
          data: viewOf(record),
          headers: { Location: `${input.origin}/api/v2/portal/workspaces/${workspace.id}/sops/${record.id}` },
        };
      },
    }),
    personWorkspaceRoute({
      method: "GET",
      path: base,
      summary: "The workspace's SOP documents",
      tag,
      roles: "any",
      params: workspaceParams,
      response: sopListView,
      async handler(input) {
        return { data: (await input.stores.sops.list(input.workspace.id)).map(viewOf) };
      },
    }),
    personWorkspaceRoute({
      method: "GET",
      path: `${base}/{sopId}`,
      summary: "One SOP document's details",
      tag,
      roles: "any",
      params: sopParams,
      response: sopView,
      async handler(input) {
        return { data: viewOf((await recordOf(input)).value) };
      },
    }),
    personWorkspaceRoute({
      method: "GET",
      path: `${base}/{sopId}/content`,
      responseHeaders: ["ETag", "Content-Security-Policy"],
      summary: "Download an SOP document, byte for byte",
      description:
        "Served as an attachment in the media type recognised at upload, with `X-Content-Type-Options: nosniff` and a sandboxing content security policy, so " +
        "that no browser runs it in the portal's origin. A document whose bytes no longer hash to its recorded SHA-256 is not served (502).",
      tag,
      roles: "any",
      params: sopParams,
      rawMediaTypes: downloadMediaTypes,
      problems: ["EXTENSION_NOT_ENABLED"],
      async handler(input) {
        const { value: record } = await recordOf(input);
        const stored = await input.documents.get(input.workspace.id, record.id, input.signal);
        if (!stored) throw new ApiError("UPSTREAM_ERROR", "The SOP document's bytes are missing from the document store.");
        if (createHash("sha256").update(stored.bytes).digest("hex") !== record.sha256) {
          throw new ApiError("UPSTREAM_ERROR", "The SOP document's bytes in the document store are not those uploaded (their SHA-256 differs).");
        }
        return {
          raw: stored.bytes,
          contentType: record.contentType,
          headers: {
            "Content-Disposition": attachment(record.fileName),
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "default-src 'none'; sandbox",
            ETag: `"${record.sha256}"`,
          },
        };
      },
    }),
    personWorkspaceRoute({
      method: "DELETE",
      path: `${base}/{sopId}`,
      summary: "Delete an SOP document",
      description: "Its record goes first, with the audit event, then its bytes. 404 when it is not there.",
      tag,
      roles: EDITORS,
      params: sopParams,
      successStatus: 204,
      async handler(input) {
        const { workspace } = input;
        const now = input.now();
        const deleted = await commit({
          deadline: input.deadline,
          read: () => recordOf(input),
          change: (record) => [sopAudit(input.actor, workspace, record, "Delete", now)],
          write: async (record, etag, outbox) => {
            await input.stores.sops.delete(workspace.id, record.id, etag!, outbox);
            return record;
          },
          outbox: input.events.outbox,
        });
        await input.documents.delete(workspace.id, deleted.id, input.signal).catch((error: unknown) => {
          // The record is gone, so nothing lists or serves the bytes; a store's lifecycle rule or the workspace's offboarding removes them.
          input.logger.warn("SOP document bytes not deleted", { workspaceId: workspace.id, documentId: deleted.id, error: String(error) });
        });
        return { status: 204 };
      },
    }),
  ],
};
