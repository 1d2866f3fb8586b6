import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import type { Entity, VendorIncident } from "../../model/incidents/incident";
import type { IncidentStateRecord } from "../../model/incidents/incident-state-record";

/*
 * An incident's indicators: its entities, each as one key of its kind and normalised value
 * (`ip:192.0.2.7`, `host:web01.corp.contoso.example`), so that the same indicator in two customers'
 * incidents is the same string. Only what can name the same thing in two organizations becomes a
 * key: a bare host name ("DC01"), an account without a UPN ("administrator") or a private address
 * (10.0.0.5) is in every network, and a process is an instance on one machine; those are left out.
 */

/** The kinds of key, in the order an incident's keys are kept when it has more than the bound. */
export const indicatorKinds = ["sha256", "url", "domain", "ip", "mailbox", "account", "host"] as const;
export type IndicatorKind = (typeof indicatorKinds)[number];

/** Keys kept per incident: a state document stays small (docs/decisions.md, Incidents). */
export const MAX_INDICATORS_PER_INCIDENT = 20;
/** A longer key (a URL with a long query) is left out rather than cut: its domain still counts. */
export const MAX_INDICATOR_KEY_LENGTH = 256;

/** Address ranges every network reuses: the same address in two customers says nothing. */
const localRanges = new Set(["private", "loopback", "linkLocal", "unspecified", "broadcast", "multicast", "carrierGradeNat", "uniqueLocal"]);

/** `ip:` and the address in its canonical form (IPv4-mapped IPv6 as IPv4); undefined for a local address or none. */
function ipKey(value: string): string | undefined {
  const text = value.trim();
  // node:net's reading is strict (dotted-quad decimal only); ipaddr.js would also take "127.1".
  // A scoped address (fe80::1%eth0) names something on one link only.
  if (isIP(text) === 0 || text.includes("%")) return undefined;
  const address = ipaddr.process(text);
  return localRanges.has(address.range()) ? undefined : `ip:${address.toString()}`;
}

/** A DNS name, lower case, without a trailing dot; undefined unless it has at least two labels of DNS characters. */
function dnsName(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const name = value.trim().toLowerCase().replace(/\.$/, "");
  return /^[a-z0-9_-]+(\.[a-z0-9_-]+)+$/.test(name) && !/^[0-9.]+$/.test(name) ? name : undefined;
}

/** A mail address or UPN, lower case; undefined without a domain. */
function mailAddress(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const text = value.trim().toLowerCase();
  const at = text.lastIndexOf("@");
  return at > 0 && !/\s/.test(text) && dnsName(text.slice(at + 1)) ? text : undefined;
}

const nonEmpty = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined);

/** The host's fully qualified name: its own `fqdn`, its name with `dnsDomain`, or its name when qualified already. */
function hostName(entity: Entity): string | undefined {
  const p = entity.properties;
  const fqdn = dnsName(p.fqdn);
  if (fqdn) return fqdn;
  const name = nonEmpty(p.hostName) ?? nonEmpty(entity.name);
  if (!name) return undefined;
  const domain = dnsName(p.dnsDomain);
  return name.includes(".") ? dnsName(name) : domain ? dnsName(`${name}.${domain}`) : undefined;
}

/** A URL's key (scheme and host lower case, default port and fragment dropped) and its host's. */
function urlKeys(value: string): string[] {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return [];
  }
  if (!["http:", "https:", "ftp:"].includes(url.protocol)) return [];
  url.hash = "";
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const hostKey = isIP(host) !== 0 ? ipKey(host) : dnsName(host) && `domain:${dnsName(host)}`;
  return [`url:${url.href}`, ...(hostKey ? [hostKey] : [])];
}

/** The keys one entity gives: none, one, or a URL's and its host's. */
export function indicatorKeysOfEntity(entity: Entity): string[] {
  const p = entity.properties;
  switch (entity.kind) {
    case "Ip": {
      const key = ipKey(nonEmpty(p.address) ?? entity.name);
      return key ? [key] : [];
    }
    case "Host": {
      const name = hostName(entity);
      return name ? [`host:${name}`] : [];
    }
    case "Account": {
      const upn = mailAddress(p.upn) ?? mailAddress(p.userPrincipalName) ?? mailAddress(entity.name);
      return upn ? [`account:${upn}`] : [];
    }
    case "File": {
      const sha256 = typeof p.sha256 === "string" ? p.sha256.trim().toLowerCase() : "";
      return /^[0-9a-f]{64}$/.test(sha256) ? [`sha256:${sha256}`] : [];
    }
    case "Mailbox": {
      const mailbox = mailAddress(p.mailboxPrimaryAddress) ?? mailAddress(entity.name);
      return mailbox ? [`mailbox:${mailbox}`] : [];
    }
    case "Url":
      return urlKeys(nonEmpty(p.url) ?? entity.name);
    case "Process":
      return [];
  }
}

/**
 * An incident's indicator keys: every entity's, once each, at most `MAX_INDICATORS_PER_INCIDENT`,
 * the kinds that travel between organizations first (hashes, URLs, domains, addresses, then
 * mailboxes, accounts and hosts), in the entities' order within a kind.
 */
export function indicatorKeys(entities: readonly Entity[]): string[] {
  const keys = new Set<string>();
  for (const entity of entities) for (const key of indicatorKeysOfEntity(entity)) if (key.length <= MAX_INDICATOR_KEY_LENGTH) keys.add(key);
  const rank = (key: string) => indicatorKinds.indexOf(indicatorOf(key).kind);
  return [...keys].map((key, i) => ({ key, i })).sort((a, b) => rank(a.key) - rank(b.key) || a.i - b.i).slice(0, MAX_INDICATORS_PER_INCIDENT).map((k) => k.key);
}

/** A key's kind and value: `ip:192.0.2.7` → `{ kind: "ip", value: "192.0.2.7" }`. */
export function indicatorOf(key: string): { kind: IndicatorKind; value: string } {
  const at = key.indexOf(":");
  return { kind: key.slice(0, at) as IndicatorKind, value: key.slice(at + 1) };
}

/** What an incident's state keeps of it for the cross-customer comparison: its title, severity and indicator keys. */
export function indicatorFields(incident: Pick<VendorIncident, "title" | "severity" | "entities">): Required<Pick<IncidentStateRecord, "title" | "severity" | "indicators">> {
  return { title: incident.title, severity: incident.severity, indicators: indicatorKeys(incident.entities) };
}
