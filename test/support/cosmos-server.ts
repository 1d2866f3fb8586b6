import type { AddressInfo } from "node:net";
import { createHttpsServer } from "@vercel/cosmosdb-server";

/** The Cosmos emulator's published key. cosmosdb-server does not check keys; the SDK needs base64. */
export const cosmosEmulatorKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

export interface CosmosServer {
  endpoint: string;
  key: string;
  close(): Promise<void>;
}

/**
 * Starts `@vercel/cosmosdb-server` in this process on an ephemeral port. It speaks HTTPS with a
 * self-signed certificate, so its clients need `trustSelfSigned`. It starts empty; it does not
 * enforce TTL, and its transactional batch is not atomic.
 */
export async function startCosmosServer(): Promise<CosmosServer> {
  // Keep-alive: by default the server closes the connection after each answer, and every request
  // of the SDK pays a TLS handshake (creating a database of eleven containers took 0.5-1 s instead of
  // 0.05-0.2 s). With no idle timeout, a connection the client holds is never closed under it as it
  // sends (ECONNRESET on a loaded machine); close() below ends them all.
  const server = createHttpsServer({ keepAlive: true });
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // An IPv4 literal, not "localhost", which may resolve to ::1 on one side and 127.0.0.1 on the
    // other. The server advertises the address it listens on as its region endpoint.
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `https://127.0.0.1:${port}`,
    key: cosmosEmulatorKey,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Idle keep-alive sockets of the client would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}
