/**
 * How long an outbox record is kept once carried out (seconds): for diagnosis, then it expires (on
 * Cosmos its `ttl`, set when it is marked published). A record not yet carried out never expires: the
 * sweep must find it, however long that takes.
 */
export const PUBLISHED_OUTBOX_TTL_SECONDS = 7 * 24 * 3600;
