// A Cosmos-protocol server (@vercel/cosmosdb-server, as the tests use: test/support/cosmos-server.ts)
// in a child process of its own, for scenarios that run the API host with STORE=cosmos under load: the
// server then has its own event loop, and neither the bench's load generator nor the host shares it.
// Started with startIpcChild (bench/lib.mjs); once listening it sends { type: "ready", endpoint }.
// It speaks HTTPS with a self-signed certificate (the host needs COSMOS_TRUST_SELF_SIGNED=true), does
// not check keys, and keeps everything in memory: it does not enforce TTL.

import { createHttpsServer } from "@vercel/cosmosdb-server";

const server = createHttpsServer();
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.send({ type: "ready", endpoint: `https://127.0.0.1:${server.address().port}` });
});
// The bench going away (its IPC channel closing) ends the server too.
process.on("disconnect", () => process.exit(0));
