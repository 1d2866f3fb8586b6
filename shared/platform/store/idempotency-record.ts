/**
 * What the service keeps of a request sent with an `Idempotency-Key` (`platform/http/idempotency.ts`):
 * one record per caller and key, in the caller's partition, while the first request runs and then
 * for the rest of the key's lifetime with the answer it got.
 */
export interface IdempotencyRecord {
  /** The key's digest (base64url SHA-256): a fixed-length id, whatever the characters of the key. */
  id: string;
  /** Who sent it (`idempotencyScope`): keys are the caller's own, so nobody meets another's record. */
  scope: string;
  /** The request the key was first sent with (method, target and body), digested. */
  fingerprint: string;
  /** ISO 8601 UTC. */
  createdAt: string;
  /** When the key may be used afresh (ISO 8601 UTC): its lifetime from `createdAt`. */
  expiresAt: string;
  /**
   * While the first request runs: until when it holds the key. Past it the request is taken to have
   * died with its instance, and a retry runs afresh.
   */
  lockedUntil?: string;
  /** The first request's answer, once it succeeded: what a retry is answered again. */
  response?: StoredAnswer;
}

export interface StoredAnswer {
  status: number;
  /** The handler's headers (`Location`, `ETag`, `Content-Type`…); the pipeline's own are set afresh. */
  headers: Record<string, string>;
  /** The body, sealed (`SecretBox`): a creation's answer may hold a secret shown once. Absent on a 204. */
  sealedBody?: string;
}
