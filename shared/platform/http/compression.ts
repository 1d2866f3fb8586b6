/// <reference path="./negotiator.d.ts" />
import Negotiator from "negotiator";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

/** The content codings this service answers in, best first: Brotli, then gzip (RFC 9110 8.4.1). */
export const CONTENT_CODINGS = ["br", "gzip"] as const;
export type ContentCoding = (typeof CONTENT_CODINGS)[number];

/**
 * The smallest body worth compressing: below it the saving is a few hundred bytes at most, less
 * than the CPU and the latency cost (Fastify's compress plugin and Cloudflare draw the line near
 * here). Counted in characters for a text body, which never exceed its bytes.
 */
export const COMPRESS_MIN_BYTES = 1024;

/**
 * Media types that compress: JSON (answers and problems), text (HTML, scripts, CSS, YAML) and SVG.
 * Images, PDFs and office documents are compressed already.
 */
const COMPRESSIBLE = /^(?:application\/(?:json|problem\+json|javascript|yaml)|text\/|image\/svg\+xml)\b/i;

// Brotli at quality 4 is as fast as gzip at level 6 and smaller for JSON (quality 11, the default,
// takes 50 times as long: for files compressed once, at build time, not for answers).
const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);
const BROTLI_ANSWER_QUALITY = 4;

/**
 * The coding to answer in for an `Accept-Encoding` header, among `offered` (in the server's order of
 * preference, which breaks the client's ties): null for the body as it is (`identity`), also when
 * the client accepts none of them.
 */
export function preferredCoding(acceptEncoding: string | undefined, offered: readonly ContentCoding[] = CONTENT_CODINGS): ContentCoding | null {
  if (!acceptEncoding) return null;
  const available = [...offered, "identity"];
  const chosen = new Negotiator({ headers: { "accept-encoding": acceptEncoding } }).encoding(available, { preferred: available });
  return chosen === "br" || chosen === "gzip" ? chosen : null;
}

/** Whether an answer of this media type and length is worth compressing. */
export function worthCompressing(contentType: string | undefined, length: number): boolean {
  return length >= COMPRESS_MIN_BYTES && contentType !== undefined && COMPRESSIBLE.test(contentType);
}

/** Adds `Accept-Encoding` to an answer's `Vary`: a cache must not hand one coding to a client that asked for another. */
export function varyOnEncoding(headers: Record<string, string>): void {
  const vary = headers.Vary;
  if (vary === undefined) headers.Vary = "Accept-Encoding";
  else if (!/(?:^|,)\s*(?:accept-encoding|\*)\s*(?:,|$)/i.test(vary)) headers.Vary = `${vary}, Accept-Encoding`;
}

/**
 * A Buffer body is content the service keeps and serves again (a document, a page, an asset): its
 * compressed forms are kept with it, by identity, and go when it goes. A text body is built per answer.
 */
const kept = new WeakMap<Buffer, Partial<Record<ContentCoding, Buffer>>>();

/** The body in `coding`: off the event loop (zlib's thread pool), so a large answer does not hold up the others. */
export async function encode(body: string | Buffer, coding: ContentCoding): Promise<Buffer> {
  const known = typeof body === "string" ? undefined : kept.get(body)?.[coding];
  if (known) return known;
  const length = Buffer.byteLength(body);
  // One chunk the size of the body (zlib's default is 16 KiB): one trip to the pool, not one per chunk.
  const chunkSize = Math.max(length + 1024, 16 * 1024);
  const out =
    coding === "br"
      ? await brotli(body, { chunkSize, params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_ANSWER_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: length } })
      : await gzipped(body, { chunkSize });
  if (typeof body !== "string") kept.set(body, { ...kept.get(body), [coding]: out });
  return out;
}
