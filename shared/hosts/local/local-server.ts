import { randomUUID } from "node:crypto";
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { ApiError } from "../../platform/errors/api-error";
import { createPipeline, unmetExpectation, type ApiRequest, type ApiResponse, type RequestOutcome } from "../../platform/http/pipeline";
import { PROBLEM_CONTENT_TYPE, toProblem } from "../../platform/http/problem";
import { bodyTooLarge } from "../../platform/http/request-body";
import { bodyLimitOf, type Route } from "../../platform/http/route";
import { API_PREFIX, Router } from "../../platform/http/router";
import type { Services } from "../../domain/services";
import { requestOrigin, requestTarget, requestUrl } from "./request-url";
import { PortalPage } from "../../platform/http/portal-page";

export const LOCAL_CONTROLS_PREFIX = "/_local";

/**
 * After refusing a request, at most this much of its unread body is read and thrown away before the
 * answer, so the answer is not lost to a reset when the connection closes; past it, the connection
 * is closed at once.
 */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
const DRAIN_MAX_MS = 10_000;

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
  const isControl = (pathname: string) => pathname === LOCAL_CONTROLS_PREFIX || pathname.startsWith(LOCAL_CONTROLS_PREFIX + "/");
  const handle: typeof api = (request) => (isControl(request.path) ? controls(request) : api(request));
  // A body is judged against its route's limit: found here for `Expect: 100-continue` (before the
  // client sends the body), and by the pipeline for every other request.
  const router = new Router(routes);
  const limitFor = (method: string | undefined, url: URL) => {
    const match = url.pathname.startsWith(API_PREFIX + "/") ? router.match((method ?? "GET").toUpperCase(), url.pathname.slice(API_PREFIX.length)) : undefined;
    return match?.kind === "found" ? bodyLimitOf(match.route, services.config) : services.config.maxRequestBodyBytes;
  };
  // A request without a Host header, or with one that is no host, is taken as addressed to this host
  // (Node would otherwise answer it with an empty 400 of its own).
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    void serve(req, res);
  });
  let fallbackHost = `${host}:${port}`;
  // The portal page's files, served as the app's `portal-page` function serves them in Azure.
  const portalPage = new PortalPage();

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The path and query alone, without a URL object: this runs before every request (two URL parses cost more than the router's match).
    const target = requestTarget(req.url);
    const pathname = target.path;
    if (PortalPage.owns(pathname)) {
      const page = portalPage.respond(req.method ?? "GET", pathname, String(req.headers["accept-encoding"] ?? ""));
      res.writeHead(page.status, page.headers);
      res.end(req.method === "HEAD" ? undefined : page.body);
      services.logger.info("request", { method: req.method, path: pathname, status: page.status });
      return;
    }
    const request = new NodeRequest(req, res, fallbackHost, target);
    let outcome: RequestOutcome | undefined;
    try {
      const result = await handle(request);
      outcome = result.outcome;
      if (request.clientGone()) {
        outcome.status = 499;
        return;
      }
      // A request read to its end (every GET) is answered at once; otherwise its unread input is drained first.
      if (req.complete && !request.bodyTooLarge) write(res, result.response, false);
      else await answer(req, res, result.response, request.bodyTooLarge);
    } catch (error) {
      // The pipeline turns every error into a problem; reaching here means the socket itself failed.
      services.logger.error("local host failed to answer", { error: String(error) });
      if (!res.headersSent) res.destroy();
    } finally {
      if (outcome) {
        if (request.clientGone()) outcome.status = 499;
        services.logger.info("request", outcome);
      }
    }
  }

  /**
   * A problem answered outside the pipeline (an unmet expectation, a body announced too large), then
   * the connection is closed. `unread`: what becomes of the body the client may still send — none
   * will come (it waits for 100 Continue), it is drained before the answer, or the answer goes at
   * once and the body is drained after it, before the connection closes.
   */
  function refuse(req: IncomingMessage, res: ServerResponse, error: ApiError, unread: "none" | "drainFirst" | "answerFirst" = "drainFirst"): void {
    const url = requestUrl(req.url, req.headers.host, fallbackHost);
    const requestId = randomUUID();
    const problem = toProblem(error, { origin: url.origin, instance: url.pathname + url.search, requestId, now: services.now() });
    services.logger.info("request", { requestId, method: req.method, path: url.pathname, status: error.status, code: error.code });
    const response: ApiResponse = {
      status: error.status,
      headers: { "Content-Type": PROBLEM_CONTENT_TYPE, "X-Request-Id": requestId, "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" },
      body: JSON.stringify(problem),
    };
    const sent = unread === "answerFirst" ? answerThenDrain(req, res, response) : answer(req, res, response, true, unread === "drainFirst");
    void sent.catch(() => res.destroy());
  }

  // `Expect: 100-continue` with a body announced over the limit is refused before the client sends it.
  server.on("checkContinue", (req, res) => {
    // The client waits for 100 Continue before it sends the body: nothing to drain.
    const limit = limitFor(req.method, requestUrl(req.url, req.headers.host, fallbackHost));
    if (Number(req.headers["content-length"]) > limit) return refuse(req, res, bodyTooLarge(limit), "none");
    res.writeContinue();
    void serve(req, res);
  });
  // Any other expectation is refused at once, whether or not the client goes on to send the body.
  server.on("checkExpectation", (req, res) => {
    refuse(req, res, unmetExpectation(), "answerFirst");
  });

  /** A problem written straight to the socket, for requests that never became a request object. */
  function refuseRaw(socket: Socket, error: ApiError, instance: string, fields: Record<string, unknown>): void {
    const requestId = randomUUID();
    const problem = toProblem(error, { origin: `http://${fallbackHost}`, instance, requestId, now: services.now() });
    const json = JSON.stringify(problem);
    services.logger.info("request", { requestId, status: error.status, code: error.code, ...fields });
    socket.end(
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? "Bad Request"}\r\n` +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(json)}\r\n` +
        `X-Request-Id: ${requestId}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${json}`,
    );
  }

  // Requests Node's parser rejects (a malformed request line, header or chunk) never reach the
  // pipeline; they still get a problem document, then the connection is closed.
  server.on("clientError", (error: ParserError, socket: Socket) => {
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    refuseRaw(socket, protocolError(error), rawRequestTarget(error.rawPacket), { parserError: error.code });
  });
  // Without a listener Node drops a CONNECT request's connection without a word.
  server.on("connect", (req: IncomingMessage, socket: Socket) => {
    refuseRaw(socket, new ApiError("BAD_REQUEST", "CONNECT is not supported: this service is not a proxy."), "/", { method: "CONNECT" });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host === "0.0.0.0" ? "localhost" : host}:${address.port}`;
  fallbackHost = new URL(url).host;
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

/**
 * Writes a response. Any part of the request body still unread is read and discarded first (up to
 * DRAIN_MAX_BYTES), because closing a socket with unread input resets it and the client would lose
 * the answer. `close` asks for the connection to be closed after the answer; so does an answer given
 * without draining (`drainFirst` false) or with input still unread.
 */
async function answer(req: IncomingMessage, res: ServerResponse, response: ApiResponse, close: boolean, drainFirst = true): Promise<void> {
  const drained = drainFirst ? await drain(req) : false;
  if (res.destroyed) return;
  write(res, response, close || !drained);
}

/**
 * Writes a response whole at once, announcing `Connection: close`, then reads and discards what is
 * still coming of the request body (as `answer` does before it) and only then closes the connection:
 * the client has the answer without sending the body, and one that sends it anyway is not reset.
 */
async function answerThenDrain(req: IncomingMessage, res: ServerResponse, response: ApiResponse): Promise<void> {
  const { status, headers, body } = response;
  headers["Content-Length"] = String(body === undefined ? 0 : Buffer.byteLength(body));
  headers.Connection = "close";
  res.writeHead(status, headers);
  // Sent now, with its length: `end` waits for the drain, since it lets the server close the connection.
  res.write(body ?? "");
  await drain(req);
  if (!res.destroyed) res.end();
}

function write(res: ServerResponse, response: ApiResponse, close: boolean): void {
  const { status, headers, body, cookies } = response;
  // An explicit length: without it Node sends chunked encoding, an extra write per response.
  headers["Content-Length"] = String(body === undefined ? 0 : Buffer.byteLength(body));
  if (close) headers.Connection = "close";
  // Each cookie is its own Set-Cookie line (they cannot be joined with commas).
  if (cookies) res.setHeader("Set-Cookie", cookies);
  res.writeHead(status, headers);
  res.end(body);
}

function drain(req: IncomingMessage): Promise<boolean> {
  if (req.complete || req.readableEnded) return Promise.resolve(true);
  if (Number(req.headers["content-length"]) > DRAIN_MAX_BYTES) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const done = (drained: boolean) => {
      clearTimeout(timer);
      req.off("data", onData).off("end", onEnd).off("close", onClose).off("error", onClose);
      resolve(drained);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_MAX_BYTES) done(false);
    };
    const onEnd = () => done(true);
    const onClose = () => done(req.complete);
    const timer = setTimeout(() => done(false), DRAIN_MAX_MS);
    req.on("data", onData).once("end", onEnd).once("close", onClose).once("error", onClose);
    req.resume();
  });
}

/**
 * A node:http request as the pipeline sees it. What a request may not need is worked out when first
 * read: the origin (from the Host header), the client's address, the abort signal.
 */
class NodeRequest implements ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly search: string;
  /** Set when the body was refused as too large: the answer then closes the connection. */
  bodyTooLarge = false;
  private originOfRequest?: string;
  private aborted?: AbortController;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly fallbackHost: string,
    target: { path: string; search: string },
  ) {
    this.method = (req.method ?? "GET").toUpperCase();
    this.path = target.path;
    this.search = target.search;
  }

  /** Asked of the socket only when needed (public routes, failed authentication): it is a system call. */
  get clientAddress(): string {
    return this.req.socket.remoteAddress ?? "unknown";
  }

  get origin(): string {
    return (this.originOfRequest ??= requestOrigin(this.req.headers.host, this.fallbackHost));
  }

  get signal(): AbortSignal {
    if (!this.aborted) {
      const aborted = (this.aborted = new AbortController());
      // 'close' before the response finished means the client went away mid-request.
      if (this.clientGone()) aborted.abort();
      else this.res.once("close", () => this.clientGone() && aborted.abort());
    }
    return this.aborted.signal;
  }

  /** Whether the client went away before the answer was written. */
  clientGone(): boolean {
    return this.res.destroyed && !this.res.writableFinished;
  }

  header(name: string): string | undefined {
    const v = this.req.headers[name];
    return Array.isArray(v) ? v.join(", ") : v;
  }

  body(maxBytes: number): Promise<Buffer> {
    return readBody(this.req, maxBytes, this);
  }
}

/**
 * The body, or 413 BAD_REQUEST as soon as it is known to be over the limit: from Content-Length
 * before anything is read, or from the bytes received. The rest is drained by `answer`.
 */
function readBody(req: IncomingMessage, maxBytes: number, state: { bodyTooLarge: boolean }): Promise<Buffer> {
  if (Number(req.headers["content-length"]) > maxBytes) {
    state.bodyTooLarge = true;
    return Promise.reject(bodyTooLarge(maxBytes));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => req.off("data", onData).off("end", onEnd).off("error", onError).off("aborted", onAborted);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        stop();
        state.bodyTooLarge = true;
        reject(bodyTooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onAborted = () => onError(new Error("client aborted"));
    req.on("data", onData).on("end", onEnd).on("error", onError).on("aborted", onAborted);
  });
}

/** What Node's parser reports: its code (`HPE_*`, `ERR_HTTP_REQUEST_TIMEOUT`), reason and the bytes it stopped at. */
type ParserError = Error & { code?: string; reason?: string; rawPacket?: Buffer };

function protocolError(error: ParserError): ApiError {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return new ApiError("BAD_REQUEST", "The request headers are too large.", { status: 431 });
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return new ApiError("BAD_REQUEST", "The chunk extensions of the request body are too large.", { status: 413 });
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new ApiError("BAD_REQUEST", "The request was not received in time.", { status: 408 });
    default: {
      const reason = (error.reason ?? error.code ?? "malformed request").replace(/[^\x20-\x7e]/g, "");
      return new ApiError("BAD_REQUEST", `The request is not valid HTTP/1.1: ${reason}.`);
    }
  }
}

/** The path of the failing request when its request line is readable; "/" otherwise. */
function rawRequestTarget(raw: Buffer | undefined): string {
  const line = raw?.subarray(0, 2048).toString("latin1").split("\r\n", 1)[0] ?? "";
  const target = /^[A-Za-z]+ (\/[\x21-\x7e]*) HTTP\/1\.[01]$/.exec(line)?.[1];
  return target ?? "/";
}
