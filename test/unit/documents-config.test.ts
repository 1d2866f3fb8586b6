import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../shared/platform/config/config";

describe("configuration: the SOP document store", () => {
  it("defaults to no account, the sop-documents container and 10 MiB documents", () => {
    expect(loadConfig({}).documents).toEqual({ accountUrl: undefined, connectionString: undefined, container: "sop-documents", timeoutMs: 30_000, maxBytes: 10 * 1024 * 1024 });
  });

  it("reads the account URL, the connection string, the container, the deadline and the size limit", () => {
    expect(
      loadConfig({ SOP_BLOB_ACCOUNT_URL: "https://sopdocs.blob.core.windows.net", SOP_BLOB_CONTAINER: "sops-2", SOP_BLOB_TIMEOUT_MS: "5000", SOP_MAX_BYTES: "1048576" }).documents,
    ).toEqual({ accountUrl: "https://sopdocs.blob.core.windows.net", connectionString: undefined, container: "sops-2", timeoutMs: 5_000, maxBytes: 1_048_576 });
    const local = "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=a2V5;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;";
    expect(loadConfig({ SOP_BLOB_CONNECTION_STRING: local }).documents.connectionString).toBe(local);
  });

  it("refuses an account URL that is not HTTPS, both ways in at once, and container names Azure refuses", () => {
    expect(() => loadConfig({ SOP_BLOB_ACCOUNT_URL: "http://sopdocs.blob.core.windows.net" })).toThrow(ConfigError);
    expect(() => loadConfig({ SOP_BLOB_ACCOUNT_URL: "https://sopdocs.blob.core.windows.net", SOP_BLOB_CONNECTION_STRING: "UseDevelopmentStorage=true" })).toThrow(
      /SOP_BLOB_CONNECTION_STRING: set either SOP_BLOB_ACCOUNT_URL or SOP_BLOB_CONNECTION_STRING, not both/,
    );
    for (const container of ["ab", "SOPs", "sop--docs", "-sops", "sops-", "a".repeat(64)]) {
      expect(() => loadConfig({ SOP_BLOB_CONTAINER: container }), container).toThrow(ConfigError);
    }
    expect(() => loadConfig({ SOP_MAX_BYTES: "0" })).toThrow(ConfigError);
  });
});
