// The baseline for the API benchmark: the least a node:http server can do to answer a GET with
// the same bytes the API sends. The API is compared against this, not against an absolute number,
// so the result says "how much does our stack cost" on whatever machine the bench runs.
//
// Usage: node bench/bare-server.mjs [--port N] [--body-file PATH | --body-base64 B64] [--content-type T]
// or the same through env: PORT, BARE_BODY_FILE, BARE_BODY_BASE64, BARE_CONTENT_TYPE.
// Port 0 (the default) picks a free port. Prints one line, "bare-server ready http://127.0.0.1:<port>",
// once it is listening.

import { readFileSync } from "node:fs";
import http from "node:http";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    port: { type: "string" },
    "body-file": { type: "string" },
    "body-base64": { type: "string" },
    "content-type": { type: "string" },
  },
});

const port = Number(args.port ?? process.env.PORT ?? 0);
const bodyFile = args["body-file"] ?? process.env.BARE_BODY_FILE;
const bodyBase64 = args["body-base64"] ?? process.env.BARE_BODY_BASE64;
const contentType = args["content-type"] ?? process.env.BARE_CONTENT_TYPE ?? "application/json; charset=utf-8";

if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`bare-server: invalid port ${JSON.stringify(args.port ?? process.env.PORT)}`);
  process.exit(2);
}

// Base64 (or a file) rather than a plain string so the bytes served are exactly the captured
// ones, whatever the encoding or trailing whitespace of the API's body.
const body = bodyFile
  ? readFileSync(bodyFile)
  : bodyBase64 !== undefined
    ? Buffer.from(bodyBase64, "base64")
    : Buffer.from('{"data":{},"meta":{}}');

// Computed once: the baseline should do no per-request work beyond what node:http itself does.
const headers = { "Content-Type": contentType, "Content-Length": String(body.length) };

const server = http.createServer((req, res) => {
  if (req.method !== "GET") {
    res.writeHead(405, { Allow: "GET", "Content-Length": "0" });
    res.end();
    return;
  }
  res.writeHead(200, headers);
  res.end(body);
});

server.listen(port, "127.0.0.1", () => {
  console.log(`bare-server ready http://127.0.0.1:${server.address().port}`);
});

// Exit promptly and cleanly when the bench stops us.
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}
