import type { Config } from "../../platform/config/config";
import { createBlobDocumentStore } from "./blob/blob-documents";
import { disabledDocumentStore, type DocumentStore } from "./port";

/**
 * The SOP document store of the deployment: Azure Blob Storage when `SOP_BLOB_ACCOUNT_URL` or
 * `SOP_BLOB_CONNECTION_STRING` is set, otherwise `fallback`. In Azure the fallback is the port's
 * disabled store (a deployment never keeps documents in memory); the local host passes its
 * simulated store.
 */
export function createDocumentStore(config: Config, fallback: () => DocumentStore = disabledDocumentStore): DocumentStore {
  const { accountUrl, connectionString, container, timeoutMs } = config.documents;
  if (!accountUrl && !connectionString) return fallback();
  return createBlobDocumentStore({ accountUrl, connectionString, container, timeoutMs });
}
