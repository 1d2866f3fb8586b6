import type { TokenCredential } from "@azure/identity";
import type { BlobItem, BlobServiceClient, ContainerClient } from "@azure/storage-blob";
import { lazyDefaultAzureCredential } from "../../../platform/upstream/azure-credential";
import { sdkCall, sdkErrorCode, sdkErrorStatus } from "../../../platform/upstream/sdk-call";
import { mapLimited } from "../../../platform/concurrency/map-limited";
import { checkDocumentId, checkNewDocument, compareDocuments, isDocumentId, type DocumentInfo, type DocumentStore } from "../port";

/**
 * SOP documents as block blobs in one container of an Azure Storage account, named
 * `<workspaceId>/<documentId>`, so that a workspace is one prefix to list or delete. The content type
 * is the blob's own `Content-Type`; the file name, uploader, upload time and SHA-256 travel as blob
 * metadata, which the service sends as HTTP headers and so holds ASCII only: the file name and the
 * uploader are stored percent-encoded (`encodeURIComponent`).
 *
 * In Azure the account is reached by its blob endpoint with the service's managed identity
 * (`DefaultAzureCredential`; the identity needs Storage Blob Data Contributor on the account);
 * locally and in tests by a connection string (Azurite). The SDK is loaded when the first call
 * builds the client, and the container is created, if missing, once per process on first use.
 */
export interface BlobDocumentStoreOptions {
  /** The account's blob endpoint ("https://<account>.blob.core.windows.net"), signed in as the managed identity. */
  accountUrl?: string;
  /** A storage connection string (Azurite, a developer's account), in place of `accountUrl`. */
  connectionString?: string;
  container: string;
  /** The deadline of each storage call. */
  timeoutMs: number;
  /** Default: DefaultAzureCredential, loaded on the first token request. */
  credential?: TokenCredential;
  now?: () => Date;
}

const SYSTEM = "Azure Blob Storage";
/** Deletes in flight at once when a workspace is offboarded. */
const DELETE_CONCURRENCY = 8;

const META = { fileName: "filename", uploadedBy: "uploadedby", uploadedAt: "uploadedat", sha256: "sha256" } as const;

export function createBlobDocumentStore(options: BlobDocumentStoreOptions): DocumentStore {
  if (!options.connectionString && !options.accountUrl) throw new Error("The blob document store needs an account URL or a connection string.");
  const now = options.now ?? (() => new Date());
  const { timeoutMs } = options;
  let containerClient: ContainerClient | undefined;
  let ready: Promise<void> | undefined;

  function container(): ContainerClient {
    if (!containerClient) {
      // Loaded here, on first use, not at import: every cold start pays for what the function modules import.
      const { BlobServiceClient } = require("@azure/storage-blob") as typeof import("@azure/storage-blob");
      // One try: a throttled or failing call reaches the caller at once instead of the SDK sleeping
      // through its backoff inside the request (platform/upstream/sdk-call.ts).
      const pipeline = { retryOptions: { maxTries: 1 } };
      const service: BlobServiceClient = options.connectionString
        ? BlobServiceClient.fromConnectionString(options.connectionString, pipeline)
        : new BlobServiceClient(options.accountUrl!, options.credential ?? lazyDefaultAzureCredential(), pipeline);
      containerClient = service.getContainerClient(options.container);
    }
    return containerClient;
  }

  /**
   * The container, created on the first call of the process; a failed attempt is tried again by the
   * next call. Calls arriving meanwhile wait on the same attempt, so it runs under its own deadline
   * only: one caller going away must not fail the others.
   */
  function ensureContainer(): Promise<void> {
    ready ??= sdkCall({ system: SYSTEM, what: `creating the container ${options.container}`, timeoutMs, now }, async (abortSignal) => {
      await container().createIfNotExists({ abortSignal });
    }).catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  }

  /**
   * Runs a call on the container. A container deleted behind the service's back (an operator's
   * clean-up) is created again and the call made once more: an empty store, not a failure.
   */
  async function onContainer<T>(what: string, signal: AbortSignal | undefined, run: (client: ContainerClient, abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    await ensureContainer();
    const attempt = () => sdkCall({ system: SYSTEM, what, timeoutMs, signal, now }, (abortSignal) => run(container(), abortSignal));
    try {
      return await attempt();
    } catch (error) {
      if (sdkErrorCode((error as Error).cause) !== "ContainerNotFound") throw error;
      ready = undefined;
      await ensureContainer();
      return attempt();
    }
  }

  const blobName = (workspaceId: string, documentId: string) => `${workspaceId}/${documentId}`;

  return {
    enabled: true,

    async put(doc, signal) {
      const info = checkNewDocument(doc);
      await onContainer(`storing document ${doc.documentId} of workspace ${doc.workspaceId}`, signal, (client, abortSignal) =>
        client.getBlockBlobClient(blobName(doc.workspaceId, doc.documentId)).uploadData(doc.bytes, {
          abortSignal,
          blobHTTPHeaders: { blobContentType: doc.contentType },
          metadata: {
            [META.fileName]: encodeURIComponent(doc.fileName),
            [META.uploadedBy]: encodeURIComponent(doc.uploadedBy),
            [META.uploadedAt]: doc.uploadedAt,
            [META.sha256]: doc.sha256,
          },
        }),
      );
      return info;
    },

    async get(workspaceId, documentId, signal) {
      checkDocumentId("workspaceId", workspaceId);
      checkDocumentId("documentId", documentId);
      return onContainer(`reading document ${documentId} of workspace ${workspaceId}`, signal, async (client, abortSignal) => {
        try {
          const response = await client.getBlobClient(blobName(workspaceId, documentId)).download(0, undefined, { abortSignal });
          const bytes = await readAll(response.readableStreamBody);
          const info = infoOf(workspaceId, documentId, { metadata: response.metadata, contentType: response.contentType, sizeBytes: bytes.length });
          return { info, bytes };
        } catch (error) {
          if (sdkErrorStatus(error) === 404 && sdkErrorCode(error) === "BlobNotFound") return null;
          throw error;
        }
      });
    },

    async list(workspaceId, signal) {
      checkDocumentId("workspaceId", workspaceId);
      const blobs = await listWorkspace(workspaceId, signal);
      return blobs.map((b) => b.info).sort(compareDocuments);
    },

    async delete(workspaceId, documentId, signal) {
      checkDocumentId("workspaceId", workspaceId);
      checkDocumentId("documentId", documentId);
      return deleteBlob(workspaceId, documentId, signal);
    },

    async deleteWorkspace(workspaceId, signal) {
      checkDocumentId("workspaceId", workspaceId);
      const blobs = await listWorkspace(workspaceId, signal);
      const deleted = await mapLimited(blobs, DELETE_CONCURRENCY, (b, each) => deleteBlob(workspaceId, b.info.id, each), signal);
      return deleted.filter(Boolean).length;
    },
  };

  async function deleteBlob(workspaceId: string, documentId: string, signal?: AbortSignal): Promise<boolean> {
    return onContainer(`deleting document ${documentId} of workspace ${workspaceId}`, signal, async (client, abortSignal) => {
      const response = await client.getBlobClient(blobName(workspaceId, documentId)).deleteIfExists({ abortSignal, deleteSnapshots: "include" });
      return response.succeeded;
    });
  }

  /** Every document blob under the workspace's prefix, all pages, within one deadline. */
  async function listWorkspace(workspaceId: string, signal?: AbortSignal): Promise<{ info: DocumentInfo }[]> {
    const prefix = `${workspaceId}/`;
    return onContainer(`listing the documents of workspace ${workspaceId}`, signal, async (client, abortSignal) => {
      const out: { info: DocumentInfo }[] = [];
      for await (const blob of client.listBlobsFlat({ prefix, includeMetadata: true, abortSignal })) {
        const documentId = blob.name.slice(prefix.length);
        // Only names this store writes: anything else under the prefix is not a document of the workspace.
        if (!isDocumentId(documentId)) continue;
        out.push({ info: infoOf(workspaceId, documentId, itemParts(blob)) });
      }
      return out;
    });
  }
}

interface BlobParts {
  metadata?: Record<string, string>;
  contentType?: string;
  sizeBytes: number;
}

function itemParts(blob: BlobItem): BlobParts {
  return { metadata: blob.metadata, contentType: blob.properties.contentType, sizeBytes: blob.properties.contentLength ?? 0 };
}

/** A document's description from its blob; a blob written without metadata still reads as a document. */
function infoOf(workspaceId: string, documentId: string, blob: BlobParts): DocumentInfo {
  const meta = Object.fromEntries(Object.entries(blob.metadata ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const uploadedAt = meta[META.uploadedAt];
  return {
    id: documentId,
    workspaceId,
    fileName: decoded(meta[META.fileName]) ?? documentId,
    contentType: blob.contentType ?? "application/octet-stream",
    sizeBytes: blob.sizeBytes,
    sha256: meta[META.sha256] ?? "",
    uploadedBy: decoded(meta[META.uploadedBy]) ?? "",
    // A time that does not parse would leave the listing without an order.
    uploadedAt: uploadedAt !== undefined && !Number.isNaN(Date.parse(uploadedAt)) ? uploadedAt : new Date(0).toISOString(),
  };
}

function decoded(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

async function readAll(stream: NodeJS.ReadableStream | undefined): Promise<Buffer> {
  if (!stream) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}
