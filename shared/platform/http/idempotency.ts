import { createHash, type Hash } from "node:crypto";
import type { PlatformServices } from "../services";
import type { Principal } from "../auth/principal";
import type { Person } from "../auth/person";
import { ApiError, isApiError } from "../errors/api-error";
import { isLostRace } from "../store/conflict";
import type { Versioned } from "../store/ports";
import type { IdempotencyRecord } from "../store/idempotency-record";
import type { Deadline } from "../concurrency/deadline";

/** An answer as the pipeline sends it (its `ApiResponse`, which imports this module). */
interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  cookies?: string[];
  body?: string | Buffer;
}

/**
 * `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header, as Stripe and Svix use it): a POST
 * that creates or starts something (`Route.idempotencyKey`), sent again with the same key by the
 * same caller, is carried out once. While the first is still running, a repeat is answered 409
 * `IDEMPOTENCY_KEY_IN_USE` (the draft's answer; a request that waited would hold an instance's place
 * and its own deadline for nothing the client cannot do by retrying); after it succeeded, a repeat
 * gets its answer again (status, body, `Location` and the handler's other headers, with
 * `Idempotent-Replayed: true`) for 24 hours; the key with another request is 422
 * `IDEMPOTENCY_KEY_REUSED`. A request refused before it changed anything leaves nothing behind (a
 * unit of work commits all or nothing), so its retry runs afresh; one that failed after a change
 * keeps its problem as its answer.
 */

/** How long a key holds its answer, from its first request. */
export const IDEMPOTENCY_KEY_LIFETIME_MS = 24 * 3_600_000;
/** The longest key, as Stripe's. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** The request header; lower-case, as the pipeline reads headers. */
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
/** Set on an answer given again: the client can tell a replay from the first answer. */
export const REPLAYED_HEADER = "Idempotent-Replayed";
/** What a client waits before sending a request again while its key is in use. */
const IN_USE_RETRY_AFTER_SECONDS = 1;
/** Attempts at claiming a key that others keep releasing or taking over meanwhile. */
const CLAIM_ATTEMPTS = 3;

const TARGET = "Idempotency-Key";

/**
 * The key of the header's value: an RFC 8941 string (`"…"`, as the draft writes it) or the bare
 * characters (as Stripe's clients send it), of 1 to 255 printable ASCII characters. Anything else is
 * 400 VALIDATION_ERROR naming the header: a key the service would have to guess at is no protection.
 */
export function parseIdempotencyKey(value: string): string {
  const key = value.startsWith('"') ? unquoted(value) : value;
  if (key === undefined) throw invalidKey("Send the key as a string, quoted (\"…\", with \\\" and \\\\ escaped) or bare.");
  if (key.length === 0 || key.trim().length === 0) throw invalidKey("The key is empty.");
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) throw invalidKey(`The key is longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`);
  if (!PRINTABLE_ASCII.test(key)) throw invalidKey("The key may hold printable ASCII characters only (a UUID is a good key).");
  return key;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/** An sf-string's characters, or undefined when it is not one. */
function unquoted(value: string): string | undefined {
  if (value.length < 2 || !value.endsWith('"')) return undefined;
  let out = "";
  for (let i = 1; i < value.length - 1; i++) {
    const c = value[i]!;
    if (c === '"') return undefined;
    if (c === "\\") {
      const next = value[++i];
      if (next !== '"' && next !== "\\") return undefined;
      out += next;
    } else out += c;
  }
  return out;
}

function invalidKey(message: string): ApiError {
  return new ApiError("VALIDATION_ERROR", `The Idempotency-Key header is not a usable key. ${message}`, { target: TARGET, errors: { [TARGET]: [message] } });
}

/**
 * Whose keys these are: the service account or the person, within their organization. A key names a
 * record only together with its caller, so no caller can meet, let alone replay, another's answer.
 */
export function idempotencyScope(caller: Principal | Person): string {
  return "serviceAccountId" in caller ? `service-account:${caller.accountId}:${caller.serviceAccountId}` : `person:${caller.accountId}:${caller.userId}`;
}

/**
 * The request a key came with, digested: its method, path, query, and its body as the route read it
 * (its fields in a fixed order, a file's bytes as they are), so that two sendings of one request match
 * however their JSON was spaced or ordered.
 */
export function requestFingerprint(method: string, target: string, body: unknown): string {
  const hash = createHash("sha256").update(method).update(" ").update(target).update("\n");
  digestValue(hash, body);
  return hash.digest("base64url");
}

function digestValue(hash: Hash, value: unknown): void {
  if (value instanceof Uint8Array) {
    hash.update(`b${value.length}:`).update(value);
  } else if (Array.isArray(value)) {
    hash.update("[");
    for (const item of value) {
      digestValue(hash, item);
      hash.update(",");
    }
    hash.update("]");
  } else if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    hash.update("{");
    for (const name of Object.keys(value).sort()) {
      const item = (value as Record<string, unknown>)[name];
      if (item === undefined) continue;
      hash.update(JSON.stringify(name)).update(":");
      digestValue(hash, item);
      hash.update(",");
    }
    hash.update("}");
  } else {
    hash.update(value === undefined ? "~" : JSON.stringify(value));
  }
}

/** The record's id: the key digested, so that any key is a valid, fixed-length document id. */
function recordId(key: string): string {
  return createHash("sha256").update(key).digest("base64url");
}

export interface IdempotentCall {
  key: string;
  caller: Principal | Person;
  fingerprint: string;
}

type Services = Pick<PlatformServices, "stores" | "now" | "secretBox" | "logger" | "config">;

/**
 * Serves a request sent with a key: its stored answer when the key has one, a refusal when the key is
 * in use or came with another request, else `run`'s answer, kept for the key's lifetime. `run` is the
 * handler and the rendering of its answer; `problemOf` renders what it throws, as the pipeline would.
 * `deadline` is the request's: whether it changed anything decides what a failure keeps. The key's own
 * record is the service's bookkeeping, written whatever is left of the deadline.
 */
export async function serveIdempotently(
  services: Services,
  call: IdempotentCall,
  deadline: Deadline,
  run: () => Promise<ApiResponse>,
  problemOf: (error: unknown) => ApiResponse,
): Promise<ApiResponse> {
  const claimed = await claim(services, call);
  if ("answer" in claimed) return claimed.answer;
  let response: ApiResponse;
  try {
    response = await run();
  } catch (error) {
    // A request that failed after it changed something (its write made, then a read refused) keeps
    // its problem as its answer: run again, it would make the change twice.
    const changed = deadline.commitState !== "none";
    await (changed ? keep(services, claimed.record, problemOf(error)) : release(services, claimed.record));
    throw error;
  }
  // A cookie is never kept (no route that takes a key sets one).
  await (response.cookies ? release(services, claimed.record) : keep(services, claimed.record, response));
  return response;
}

/**
 * The key for this request: a new record (or one expired, or left by a request that died), or the
 * answer the key already has. Creating first, reading only when the key is taken: the first sending,
 * the usual case, costs one write.
 */
async function claim(services: Services, call: IdempotentCall): Promise<{ record: Versioned<IdempotencyRecord> } | { answer: ApiResponse }> {
  const store = services.stores.idempotencyKeys;
  const scope = idempotencyScope(call.caller);
  const id = recordId(call.key);
  for (let attempt = 1; ; attempt++) {
    const now = services.now().getTime();
    const fresh: IdempotencyRecord = {
      id,
      scope,
      fingerprint: call.fingerprint,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + IDEMPOTENCY_KEY_LIFETIME_MS).toISOString(),
      lockedUntil: new Date(now + lockMs(services)).toISOString(),
    };
    try {
      return { record: await store.create(fresh) };
    } catch (error) {
      if (!isLostRace(error) || attempt >= CLAIM_ATTEMPTS) throw error;
    }
    const found = await store.get(scope, id);
    // Released or dropped since: claim it again.
    if (!found) continue;
    const record = found.value;
    if (Date.parse(record.expiresAt) <= now || (!record.response && Date.parse(record.lockedUntil ?? record.expiresAt) <= now)) {
      try {
        return { record: await store.replace(fresh, found.etag) };
      } catch (error) {
        // Taken over by another repeat, or dropped since it was read: claim it again.
        if (!(isLostRace(error) || (isApiError(error) && error.code === "NOT_FOUND")) || attempt >= CLAIM_ATTEMPTS) throw error;
        continue;
      }
    }
    if (record.fingerprint !== call.fingerprint) {
      throw new ApiError("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was sent with another request (method, path, query or body) in the last 24 hours; nothing was done. Use a new key for a new request.", {
        target: TARGET,
      });
    }
    if (!record.response) {
      throw new ApiError("IDEMPOTENCY_KEY_IN_USE", `A request with this Idempotency-Key is still in progress; nothing was done for this one. Send it again after ${IN_USE_RETRY_AFTER_SECONDS} s to get its answer.`, {
        target: TARGET,
        headers: { "Retry-After": String(IN_USE_RETRY_AFTER_SECONDS) },
      });
    }
    const { status, headers, sealedBody } = record.response;
    return {
      answer: {
        status,
        headers: Object.assign({}, headers, { [REPLAYED_HEADER]: "true" }),
        body: sealedBody === undefined ? undefined : services.secretBox.open(sealedBody),
      },
    };
  }
}

/**
 * How long a first request holds its key: its whole deadline, twice over for the writes it may still
 * finish after its caller was answered 504. Past it, the request is taken to have died with its
 * instance.
 */
function lockMs(services: Pick<PlatformServices, "config">): number {
  return 2 * services.config.requestDeadlineMs;
}

/** The answer, kept with the key for the rest of its lifetime. */
async function keep(services: Services, claimed: Versioned<IdempotencyRecord>, response: ApiResponse): Promise<void> {
  const { lockedUntil: _lockedUntil, ...record } = claimed.value;
  const body = response.body === undefined ? undefined : typeof response.body === "string" ? response.body : response.body.toString("utf8");
  try {
    await services.stores.idempotencyKeys.replace(
      { ...record, response: { status: response.status, headers: response.headers, sealedBody: body === undefined ? undefined : services.secretBox.seal(body) } },
      claimed.etag,
    );
  } catch (error) {
    // The change is made and its caller answered; a repeat within the lock is told the key is in
    // use, and after it runs afresh. Nothing better can be done here than to say so.
    services.logger.error("idempotency answer not kept", { scope: record.scope, error: error instanceof Error ? error.message : String(error) });
  }
}

/** The key, free again: the request changed nothing, so sending it again is safe. */
async function release(services: Services, claimed: Versioned<IdempotencyRecord>): Promise<void> {
  try {
    await services.stores.idempotencyKeys.delete(claimed.value.scope, claimed.value.id, claimed.etag);
  } catch (error) {
    // The lock runs out by itself.
    services.logger.warn("idempotency key not released", { scope: claimed.value.scope, error: error instanceof Error ? error.message : String(error) });
  }
}
