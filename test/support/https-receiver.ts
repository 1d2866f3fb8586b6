import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { createSelfSignedCertificate } from "../../scripts/webhook-receiver/self-signed-certificate";

/** What the receiver does with one request. Everything is optional; the default is 200 "ok". */
export interface ReceiverScript {
  status?: number;
  headers?: Record<string, string>;
  /** Written at once after the headers (unless `slowBody` or `hugeBody` is set). */
  body?: string;
  /** Wait this long before sending the status line and headers. */
  delayBeforeHeadersMs?: number;
  /** After the headers, write `chunk` every `intervalMs`, `count` times, then end. */
  slowBody?: { chunk: string; intervalMs: number; count: number };
  /** After the headers, stream `totalBytes` of filler as fast as the client reads it. */
  hugeBody?: { totalBytes: number; chunkBytes?: number };
  /** Read the request, then never answer. */
  hang?: boolean;
}

export interface ReceivedRequest {
  method: string;
  /** Path and query. */
  url: string;
  /** Node's parsed headers, lower-case names. */
  headers: IncomingHttpHeaders;
  /** Names and values as sent, in order. */
  rawHeaders: string[];
  rawBody: Buffer;
  /** `rawBody` as UTF-8. */
  body: string;
}

/** What the receiver managed to send back for one request. */
export interface ResponseRecord {
  bodyBytesWritten: number;
  /** The response was written to the end. */
  finished: boolean;
  /** Settles when the response is finished or the client went away. */
  closed: Promise<void>;
}

export interface HttpsReceiver {
  port: number;
  /** `https://127.0.0.1:<port>`. */
  origin: string;
  /** `https://<hostname>:<port><path>`; the certificate also names `receiver.test` and `localhost`. */
  url(path?: string, hostname?: string): string;
  /** PEM of the self-signed certificate, to be trusted by the client under test. */
  certificate: string;
  requests: ReceivedRequest[];
  responses: ResponseRecord[];
  /** The script for every request not covered by `enqueue`. */
  respondWith(script: ReceiverScript | ((request: ReceivedRequest) => ReceiverScript)): void;
  /** Scripts for the next requests, one each, in order, before falling back to `respondWith`. */
  enqueue(...scripts: ReceiverScript[]): void;
  /** Forgets requests, responses and scripts. */
  reset(): void;
  close(): Promise<void>;
}

/** The names the certificate is valid for. */
export const RECEIVER_HOSTNAME = "receiver.test";

/**
 * A real HTTPS server on 127.0.0.1 with a freshly generated self-signed certificate, whose answer to
 * each request is scripted: status, headers, a delay before the headers, a trickled or endless body,
 * or no answer at all. It records every request with its raw body and headers.
 */
export async function startHttpsReceiver(): Promise<HttpsReceiver> {
  const pems = await createSelfSignedCertificate({ commonName: RECEIVER_HOSTNAME, dnsNames: [RECEIVER_HOSTNAME] });

  const requests: ReceivedRequest[] = [];
  const responses: ResponseRecord[] = [];
  let queue: ReceiverScript[] = [];
  let fallback: ReceiverScript | ((request: ReceivedRequest) => ReceiverScript) = {};
  const timers = new Set<NodeJS.Timeout>();

  const later = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  async function answer(script: ReceiverScript, res: ServerResponse, record: ResponseRecord): Promise<void> {
    const gone = () => res.destroyed || res.writableEnded;
    if (script.hang) return;
    if (script.delayBeforeHeadersMs) await later(script.delayBeforeHeadersMs);
    if (gone()) return;
    res.writeHead(script.status ?? 200, script.headers ?? {});

    const write = (chunk: Buffer | string) => {
      record.bodyBytesWritten += Buffer.byteLength(chunk);
      return res.write(chunk);
    };
    if (script.slowBody) {
      res.flushHeaders();
      for (let i = 0; i < script.slowBody.count; i++) {
        if (gone()) return;
        write(script.slowBody.chunk);
        await later(script.slowBody.intervalMs);
      }
    } else if (script.hugeBody) {
      const chunk = Buffer.alloc(script.hugeBody.chunkBytes ?? 64 * 1024, "x");
      let left = script.hugeBody.totalBytes;
      while (left > 0) {
        if (gone()) return;
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        // Honour backpressure, so the count shows what the client actually pulled (plus buffers).
        if (!write(piece)) {
          await new Promise<void>((resolve) => {
            const done = () => {
              res.off("drain", done);
              res.off("close", done);
              resolve();
            };
            res.on("drain", done);
            res.on("close", done);
          });
        }
      }
    } else if (script.body !== undefined) {
      write(script.body);
    }
    if (!gone()) res.end(() => (record.finished = true));
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      const received: ReceivedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        rawBody,
        body: rawBody.toString("utf8"),
      };
      requests.push(received);
      let settle!: () => void;
      const record: ResponseRecord = {
        bodyBytesWritten: 0,
        finished: false,
        closed: new Promise<void>((resolve) => (settle = resolve)),
      };
      responses.push(record);
      res.on("close", () => settle());
      const script = queue.shift() ?? (typeof fallback === "function" ? fallback(received) : fallback);
      answer(script, res, record).catch(() => res.destroy());
    });
  }

  const server: Server = createServer({ key: pems.key, cert: pems.cert }, handle);
  // A client that aborts mid-handshake is part of the scenarios, not a failure of the helper.
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    port,
    origin: `https://127.0.0.1:${port}`,
    url: (path = "/hook", hostname = RECEIVER_HOSTNAME) => `https://${hostname}:${port}${path}`,
    certificate: pems.cert,
    requests,
    responses,
    respondWith(script) {
      fallback = script;
    },
    enqueue(...scripts) {
      queue.push(...scripts);
    },
    reset() {
      requests.length = 0;
      responses.length = 0;
      queue = [];
      fallback = {};
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        // Hanging responses and idle keep-alive sockets would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}
