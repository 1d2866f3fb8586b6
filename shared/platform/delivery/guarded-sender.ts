import type { LookupAddress, LookupOptions } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { performance } from "node:perf_hooks";
import { rootCertificates } from "node:tls";
import type { Agent } from "undici";
import { errorChain, isTimeout } from "../upstream/transport-errors";
import { bareHostname, isPublicAddress, resolveAllAddresses, type HostResolver } from "./address-policy";

/** The result of one delivery attempt; `retry-policy.ts` decides what happens next. */
export type SendOutcome =
  | {
      kind: "response";
      status: number;
      /** Lower-case names; repeated headers joined with ", ". */
      headers: Record<string, string>;
      durationMs: number;
      /**
       * Start of the response body as UTF-8 text, decoded from at most `RESPONSE_HEAD_BYTES` bytes: the
       * delivery log keeps an excerpt of it for test deliveries (`response-excerpt.ts`).
       */
      snippet: string;
      /** Body bytes read, never more than `maxResponseBytes`. */
      responseBytesRead: number;
      /** The body was longer than `maxResponseBytes`; the rest was not read. */
      truncated: boolean;
    }
  | { kind: "error"; error: SendErrorKind; message: string; durationMs: number };

export type SendErrorKind = "timeout" | "connection" | "blocked-address" | "invalid-url" | "tls";

export interface SendRequest {
  url: string;
  /** Sent as given (signature headers, content type, endpoint credentials); nothing is added. */
  headers: Record<string, string>;
  body: string;
}

export interface GuardedSender {
  /** POSTs the body. Never throws: every failure is an outcome. */
  send(request: SendRequest): Promise<SendOutcome>;
  /** Closes the sender's connections; pending sends finish first. */
  close(): Promise<void>;
}

export interface GuardedSenderOptions {
  /** One budget for connect, headers and the whole body (contract: 30 s). */
  timeoutMs: number;
  /** Response body bytes read before the rest is dropped unread (contract: 1 MB). */
  maxResponseBytes: number;
  /** Local development and tests only: skips the address checks. HTTPS is still required. */
  allowPrivateTargets: boolean;
  /** Name resolution used at connect time; defaults to the system resolver. Tests inject one. */
  lookup?: HostResolver;
  /**
   * Extra trusted CA certificates, added to Node's bundled roots for this sender only. For tests
   * against a self-signed receiver; a deployment adds private roots with NODE_EXTRA_CA_CERTS.
   */
  ca?: string | Buffer | Array<string | Buffer>;
}

/**
 * Response bytes kept as `snippet`: the 2 KiB a test delivery's log entry keeps, and room beyond it to
 * see whole any credential the receiver echoes back that starts within them (a token is at most
 * 4096 characters, 5.4 kB as Basic's base64), so that it is masked rather than cut in half.
 */
export const RESPONSE_HEAD_BYTES = 8 * 1024;

/** Raised from the connect-time lookup; it travels through the socket error to the request. */
class BlockedAddressError extends Error {
  readonly code = "ERR_BLOCKED_ADDRESS";
  constructor(hostname: string, address: string) {
    super(`${hostname} resolves to ${address}, which is not a public address.`);
    this.name = "BlockedAddressError";
  }
}

/**
 * The `lookup` of every socket the sender opens. Checking here, rather than resolving once before the
 * request, closes the DNS-rebinding gap: the address checked is the address connected to, on every
 * new connection. Every address of the name must be public, since the socket may try any of them.
 */
function guardedLookup(resolve: HostResolver, allowPrivateTargets: boolean): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : options.family;
    const pick = (resolved: string[]): LookupAddress[] => {
      if (!allowPrivateTargets) {
        const blocked = resolved.find((address) => !isPublicAddress(address));
        if (blocked !== undefined) throw new BlockedAddressError(hostname, blocked);
      }
      const entries = resolved
        .map((address) => ({ address, family: isIP(address) }))
        .filter((entry) => entry.family !== 0 && (!family || entry.family === family));
      if (entries.length === 0) {
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname });
      }
      return entries;
    };
    resolve(hostname).then(
      (resolved) => {
        let entries: LookupAddress[];
        try {
          entries = pick(resolved);
        } catch (error) {
          callback(error as NodeJS.ErrnoException, "", 0);
          return;
        }
        if (options.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 0),
    );
  };
}

// OpenSSL verification codes as Node reports them, besides the ERR_TLS_* / ERR_SSL_* families.
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$|INVALID_CA$|PATH_LENGTH_EXCEEDED$|INVALID_PURPOSE$)/;

function classify(error: unknown, timedOut: boolean, timeoutMs: number): { error: SendErrorKind; message: string } {
  const chain = errorChain(error);
  const blocked = chain.find((e) => e instanceof BlockedAddressError);
  if (blocked) return { error: "blocked-address", message: blocked.message ?? "blocked address" };
  if (timedOut || isTimeout(error)) {
    return { error: "timeout", message: `The endpoint did not answer within ${timeoutMs} ms.` };
  }
  const tls = chain.find((e) => typeof e.code === "string" && TLS_CODE.test(e.code));
  if (tls) return { error: "tls", message: `TLS failure: ${tls.message ?? tls.code}` };
  const first = chain[0];
  return { error: "connection", message: first?.message || first?.code || String(error) };
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

/**
 * The HTTP client of webhook delivery: HTTPS only, no redirects, connect-time address checks, one
 * timeout for the whole exchange and a capped, discarded response body (docs/contract.md §6.6.6).
 *
 * @example
 * const sender = createGuardedSender({ timeoutMs: 30_000, maxResponseBytes: 1024 * 1024, allowPrivateTargets: false });
 * const outcome = await sender.send({ url: webhook.url, headers, body });
 * const next = decideRetry({ outcome, attempt, firstAttemptAt, now: new Date() });
 */
export function createGuardedSender(options: GuardedSenderOptions): GuardedSender {
  const { timeoutMs, maxResponseBytes, allowPrivateTargets } = options;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new TypeError("timeoutMs must be a positive integer");
  if (!Number.isInteger(maxResponseBytes) || maxResponseBytes < 0) {
    throw new TypeError("maxResponseBytes must be a non-negative integer");
  }
  const extraCa = options.ca === undefined ? [] : Array.isArray(options.ca) ? options.ca : [options.ca];

  // One agent per sender, so its connect options (the guarded lookup) apply to every socket it opens
  // and nothing else in the process shares them. undici's Agent follows no redirects unless a
  // redirect interceptor is composed in, and none is. undici is loaded, and the agent built, on the
  // first send: building the services (every request does) does not pay for the HTTP client.
  let agent: Agent | undefined;
  const undici = (): typeof import("undici") => require("undici") as typeof import("undici");
  const agentOnFirstUse = (): Agent =>
    (agent ??= new (undici().Agent)({
      connect: {
        lookup: guardedLookup(options.lookup ?? resolveAllAddresses, allowPrivateTargets),
        timeout: timeoutMs,
        ...(extraCa.length > 0 ? { ca: [...rootCertificates, ...extraCa] } : {}),
      },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    }));

  async function send({ url, headers, body }: SendRequest): Promise<SendOutcome> {
    const started = performance.now();
    const durationMs = () => Math.round(performance.now() - started);
    const fail = (error: SendErrorKind, message: string): SendOutcome => ({ kind: "error", error, message, durationMs: durationMs() });

    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return fail("invalid-url", "The URL is not an absolute URL.");
    }
    if (target.protocol !== "https:") return fail("invalid-url", "The URL must use HTTPS.");
    if (target.username || target.password) return fail("invalid-url", "The URL must not contain credentials.");
    // The socket does not call lookup for an IP literal, so literals are checked here.
    const host = bareHostname(target);
    if (!allowPrivateTargets && isIP(host) !== 0 && !isPublicAddress(host)) {
      return fail("blocked-address", `${host} is not a public address.`);
    }

    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const dispatcher = agentOnFirstUse();
      const response = await undici().request(target, {
        dispatcher,
        method: "POST",
        headers,
        body,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });

      let bytesRead = 0;
      let truncated = false;
      const head: Buffer[] = [];
      let headBytes = 0;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        const kept = chunk.length > maxResponseBytes - bytesRead ? chunk.subarray(0, maxResponseBytes - bytesRead) : chunk;
        bytesRead += kept.length;
        if (headBytes < RESPONSE_HEAD_BYTES && kept.length > 0) {
          const piece = kept.subarray(0, RESPONSE_HEAD_BYTES - headBytes);
          head.push(Buffer.from(piece));
          headBytes += piece.length;
        }
        if (kept.length < chunk.length) {
          truncated = true;
          break;
        }
      }
      // Leaving the loop early destroys the stream, which closes the connection instead of reading
      // the rest; said again here so that does not hinge on iterator semantics.
      if (truncated) response.body.destroy();

      return {
        kind: "response",
        status: response.statusCode,
        headers: flattenHeaders(response.headers),
        durationMs: durationMs(),
        snippet: Buffer.concat(head).toString("utf8"),
        responseBytesRead: bytesRead,
        truncated,
      };
    } catch (error) {
      const { error: kind, message } = classify(error, signal.aborted, timeoutMs);
      return fail(kind, message);
    }
  }

  return { send, close: async () => agent?.close() };
}
