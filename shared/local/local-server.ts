import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createPipeline, type ApiRequest, type RequestOutcome } from "../http/pipeline";
import { MAX_BODY_BYTES } from "../http/request-body";
import type { Route } from "../http/route";
import type { Services } from "../services";

export const LOCAL_CONTROLS_PREFIX = "/_local";

/**
 * Serves the route tables over node:http, as the Azure Functions host serves them in Azure.
 * Returns once listening; `close()` stops it.
 */
export async function startLocalServer(
  services: Services,
  routes: Route[],
  port: number,
  host = "127.0.0.1",
  localControls: Route[] = [],
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const api = createPipeline(routes, services);
  // The local controls (acting "in the vendor console", running a reconciler pass) live under
  // /_local, outside the API, and only this host serves them.
  const controls = createPipeline(localControls, services, LOCAL_CONTROLS_PREFIX);
  const handle: typeof api = (request) => (request.url.pathname.startsWith(LOCAL_CONTROLS_PREFIX + "/") ? controls(request) : api(request));
  const server = createServer((req, res) => {
    void serve(req, res);
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const aborted = new AbortController();
    // 'close' before the response finished means the client went away mid-request.
    res.once("close", () => {
      if (!res.writableFinished) aborted.abort();
    });
    const hostHeader = req.headers.host ?? `${host}:${port}`;
    const request: ApiRequest = {
      method: (req.method ?? "GET").toUpperCase(),
      url: new URL(req.url ?? "/", `http://${hostHeader}`),
      header: (name) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v.join(", ") : v;
      },
      body: () => readBody(req),
      clientAddress: req.socket.remoteAddress ?? "unknown",
      signal: aborted.signal,
    };
    let outcome: RequestOutcome | undefined;
    try {
      const result = await handle(request);
      outcome = result.outcome;
      if (aborted.signal.aborted) {
        outcome = { ...outcome, status: 499 };
        return;
      }
      const { status, headers, body } = result.response;
      // An explicit length: without it Node sends chunked encoding, an extra write per response.
      res.writeHead(status, { ...headers, "Content-Length": body === undefined ? 0 : Buffer.byteLength(body) });
      res.end(body);
    } catch (error) {
      // The pipeline turns every error into a problem; reaching here means the socket itself failed.
      services.logger.error("local host failed to answer", { error: String(error) });
      if (!res.headersSent) res.destroy();
    } finally {
      accessLog(services, outcome, aborted.signal.aborted);
    }
  }

  server.on("clientError", (_error, socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host === "0.0.0.0" ? "localhost" : host}:${address.port}`;
  return {
    server,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function accessLog(services: Services, outcome: RequestOutcome | undefined, aborted: boolean): void {
  if (!outcome) return;
  const entry = aborted ? { ...outcome, status: 499 } : outcome;
  services.logger.info("request", { ...entry });
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      // Keep one byte past the limit so the parser can say the body is too large, and stop buffering.
      if (size <= MAX_BODY_BYTES + 1) chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
    req.on("aborted", () => reject(new Error("client aborted")));
  });
}
