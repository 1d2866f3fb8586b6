import { promises as dns } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/** Resolves a host name to every address it has (A and AAAA), as the sender's connect would. */
export type HostResolver = (hostname: string) => Promise<string[]>;

export const resolveAllAddresses: HostResolver = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * True only for an address a customer endpoint may legitimately live on: a globally routable
 * unicast address. It is an allow-list (ipaddr.js classifies the special-purpose ranges and only
 * "unicast" passes), so a range we did not think of is refused rather than reached. IPv6 forms that
 * carry an IPv4 address are judged by that address, because the packets end up there.
 *
 * @example
 * isPublicAddress("93.184.215.14"); // true
 * isPublicAddress("169.254.169.254"); // false (cloud metadata)
 * isPublicAddress("::ffff:127.0.0.1"); // false (IPv4-mapped loopback)
 */
export function isPublicAddress(ip: string): boolean {
  // node:net is strict (dotted-quad decimal only), where ipaddr.js also takes "127.1" or
  // "0x7f000001": such spellings never come from a resolver, so they count as unparseable.
  const family = isIP(ip);
  if (family === 0) return false;
  try {
    if (family === 4) return isPublicIPv4(ipaddr.IPv4.parse(ip));
    // A scoped address (fe80::1%eth0) only means something on one link of this host.
    if (ip.includes("%")) return false;
    // ipaddr.js reads a dotted tail as IPv4-mapped ("::8.8.8.8" becomes ::ffff:808:808), where
    // RFC 4291 and the socket make it IPv4-compatible (::808:808); the URL parser's canonical form
    // has no dotted tail, so every form below is judged on the bits the socket would use.
    const canonical = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
    return isPublicIPv6(ipaddr.IPv6.parse(canonical));
  } catch {
    return false;
  }
}

function isPublicIPv4(address: ipaddr.IPv4): boolean {
  // Besides private, loopback, link-local, CGNAT, multicast, broadcast, 0/8 and the reserved and
  // documentation ranges, this also refuses AS112 and AMT relays: no webhook receiver lives there.
  return address.range() === "unicast";
}

function ipv4From(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function isPublicIPv6(address: ipaddr.IPv6): boolean {
  const p = address.parts as [number, number, number, number, number, number, number, number];
  const firstFiveZero = p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0;

  // ::ffff:a.b.c.d (IPv4-mapped) and ::ffff:0:a.b.c.d (SIIT-translated) reach the IPv4 address itself.
  if (firstFiveZero && p[5] === 0xffff) return isPublicIPv4(ipv4From(p[6], p[7]));
  if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0xffff && p[5] === 0) {
    return isPublicIPv4(ipv4From(p[6], p[7]));
  }
  // ::a.b.c.d (IPv4-compatible, deprecated by RFC 4291; also covers :: and ::1): never legitimate.
  if (firstFiveZero && p[5] === 0) return false;
  // NAT64 well-known prefix 64:ff9b::/96: the gateway forwards to the embedded IPv4 address.
  if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) {
    return isPublicIPv4(ipv4From(p[6], p[7]));
  }
  // NAT64 local-use prefix 64:ff9b:1::/48 (RFC 8215) is by definition an operator's own network.
  if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 1) return false;
  // 6to4 2002:AABB:CCDD::/48 tunnels to the IPv4 address AA.BB.CC.DD.
  if (p[0] === 0x2002) return isPublicIPv4(ipv4From(p[1], p[2]));
  // Teredo 2001:0::/32 tunnels through a relay to a host behind a NAT; no receiver needs it.
  if (p[0] === 0x2001 && p[1] === 0) return false;
  // Native IPv6: only the global unicast block 2000::/3 is allocated for the public internet; inside
  // it ipaddr.js names the documentation, benchmarking, ORCHID and other special ranges.
  if ((p[0] & 0xe000) !== 0x2000) return false;
  return address.range() === "unicast";
}

function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/** The URL host without the brackets around an IPv6 literal. */
export function bareHostname(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Said with every refusal of a loopback or private target: a developer trying the service against a
 * receiver on their own machine learns the setting's name from the error itself.
 */
const LOCAL_TARGETS_HINT = "To deliver to your own machine when testing locally, start the service with WEBHOOK_ALLOW_PRIVATE_TARGETS=true.";

export interface WebhookUrlCheckOptions {
  /**
   * Local development and tests only: allows IP literals, loopback names (`localhost`, `*.localhost`)
   * and names resolving to non-public addresses. HTTPS is still required.
   */
  allowPrivateTargets: boolean;
  /** Defaults to the system resolver (`dns.promises.lookup` with `all: true`). */
  resolve?: HostResolver;
}

/**
 * Configuration-time check of a webhook endpoint (docs/contract.md §6.6.6). Resolves to null when the URL is
 * acceptable, otherwise to a message for the caller. The sender checks the resolved addresses again
 * on every connection, since a name can be re-pointed after it was accepted here.
 *
 * @example
 * const problem = await checkWebhookUrl(body.url, { allowPrivateTargets: config.webhooks.allowPrivateTargets });
 * if (problem) throw new ApiError("VALIDATION_ERROR", problem, { target: "url", errors: { url: [problem] } });
 */
export async function checkWebhookUrl(raw: string, options: WebhookUrlCheckOptions): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "The URL must be an absolute HTTPS URL.";
  }
  if (url.protocol !== "https:") return "The URL must use HTTPS.";
  if (url.username || url.password) {
    return "The URL must not contain credentials; use the webhook's authentication settings instead.";
  }
  const host = bareHostname(url);
  if (isIP(host) !== 0) {
    if (options.allowPrivateTargets) return null;
    if (!isPublicAddress(host)) return `The URL must use a host name, not an IP address (${host} is not a public address). ${LOCAL_TARGETS_HINT}`;
    return "The URL must use a host name, not an IP address.";
  }
  // With private targets allowed, a loopback name is resolved like any other name (to loopback).
  if (isLocalhostName(host) && !options.allowPrivateTargets) return `The URL must not point to localhost. ${LOCAL_TARGETS_HINT}`;

  let addresses: string[];
  try {
    addresses = await (options.resolve ?? resolveAllAddresses)(host);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) return `The host name ${host} does not resolve.`;
  if (options.allowPrivateTargets) return null;
  if (!addresses.every(isPublicAddress)) {
    return `The host name ${host} resolves to a private or reserved address, which is not allowed. ${LOCAL_TARGETS_HINT}`;
  }
  return null;
}
