import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the fake received it, body read to the end. */
export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Answers one request; `body` is the whole request body as UTF-8. */
export type FakeHandler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

export interface FakeHttpServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** Every request since the last `reset`, in arrival order. */
  requests: RecordedRequest[];
  /** The latest request; throws when there is none. */
  last(): RecordedRequest;
  /** Answers the next requests with `handler` instead of the fake's own routes, until `reset`. */
  override(handler: FakeHandler): void;
  /** Forgets the requests and any override. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * A plain-HTTP stand-in for an external API (a vendor bridge, the automation bridge, an ITSM bridge,
 * Microsoft Graph) on 127.0.0.1 and a free port. It reads each body to the end, records the request,
 * then hands it to the override if one is set and to `routes` otherwise.
 */
export async function startFakeHttpServer(routes: FakeHandler): Promise<FakeHttpServer> {
  const requests: RecordedRequest[] = [];
  let override: FakeHandler | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      void (override ?? routes)(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    last() {
      const request = requests[requests.length - 1];
      if (!request) throw new Error("the fake has received no request");
      return request;
    },
    override(handler) {
      override = handler;
    },
    reset() {
      override = undefined;
      requests.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Writes a JSON answer (or an empty one when `body` is undefined). */
export function sendJson(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, body === undefined ? headers : { "content-type": "application/json", ...headers });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}
