import { connect } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type RawOutcome =
  | { kind: "answered"; response: RawResponse; closed: boolean }
  /** The connection ended (or was reset) before a complete response arrived. */
  | { kind: "dropped"; received: string; error?: string }
  | { kind: "timeout"; received: string };

/**
 * Sends bytes over a fresh TCP connection and reads one HTTP/1.1 response (by its Content-Length),
 * for requests no HTTP client would send. `closed` says whether the server closed the connection.
 */
export function rawExchange(base: string, payload: string | Buffer, timeoutMs = 5_000): Promise<RawOutcome> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let response: RawResponse | undefined;
    let settled = false;
    const settle = (outcome: RawOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => {
      // A complete answer on a connection kept open is still an answer.
      if (response) settle({ kind: "answered", response, closed: false });
      else settle({ kind: "timeout", received: received.toString("latin1") });
    }, timeoutMs);
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      response ??= parseResponse(received);
      // Wait briefly for the close that Connection: close promises.
      if (response && !/close/i.test(response.headers.connection ?? "")) settle({ kind: "answered", response, closed: false });
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (response) settle({ kind: "answered", response, closed: true });
      else settle({ kind: "dropped", received: received.toString("latin1"), error: error.code ?? error.message });
    });
    socket.on("close", () => {
      if (response) settle({ kind: "answered", response, closed: true });
      else settle({ kind: "dropped", received: received.toString("latin1") });
    });
    socket.write(payload);
  });
}

/** One complete response at the start of the bytes, or undefined while incomplete. */
export function parseResponse(bytes: Buffer): RawResponse | undefined {
  const end = bytes.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const head = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? "")?.[1];
  if (!status) return undefined;
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers["content-length"] ?? 0);
  const body = bytes.subarray(end + 4);
  if (body.length < length) return undefined;
  return { status: Number(status), headers, body: body.subarray(0, length).toString("utf8") };
}
