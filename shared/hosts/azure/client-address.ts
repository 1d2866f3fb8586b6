import { isIP } from "node:net";

/**
 * The caller's address behind the App Service front end, for the per-address rate limit. Only
 * values the platform writes count: `client-ip` (`ip:port`), which the front end sets and overwrites
 * if a caller sent one, then the last `X-Forwarded-For` entry, the hop the front end appends. The
 * first `X-Forwarded-For` entry is whatever the caller wrote, so it is never used.
 */
export function platformClientAddress(header: (name: string) => string | undefined): string {
  const fromClientIp = addressOf(header("client-ip"));
  if (fromClientIp) return fromClientIp;
  const hops = header("x-forwarded-for")?.split(",") ?? [];
  return addressOf(hops[hops.length - 1]) ?? "unknown";
}

/** `1.2.3.4`, `1.2.3.4:5678`, `[2001:db8::1]:5678` or `2001:db8::1` → the address; anything else: undefined. */
export function addressOf(value: string | undefined): string | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  let address = v;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(v);
  if (bracketed) address = bracketed[1]!;
  else if (v.split(":").length === 2) address = v.slice(0, v.indexOf(":"));
  return isIP(address) ? address.toLowerCase() : undefined;
}
