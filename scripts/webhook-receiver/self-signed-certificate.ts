// Self-signed server certificates for HTTPS receivers on this machine: the webhook receiver of
// `npm run receiver`, the bench's receiver and the tests' scripted receiver. `selfsigned` is a
// devDependency: nothing the service itself runs loads this file.
import { createPrivateKey, X509Certificate } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generate } from "selfsigned";

export interface SelfSignedCertificate {
  /** PEM of the certificate: what a client trusts (NODE_EXTRA_CA_CERTS, a `ca` option). */
  cert: string;
  /** PEM of the private key. */
  key: string;
}

export interface SelfSignedCertificateOptions {
  commonName: string;
  /** DNS names besides `localhost`. */
  dnsNames?: string[];
  /** Default 365. */
  validDays?: number;
}

/** The names every certificate made here is valid for: the loopback name and both loopback addresses. */
export const LOOPBACK_NAMES = { dns: ["localhost"], ips: ["127.0.0.1", "::1"] } as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A fresh self-signed server certificate valid for `localhost`, 127.0.0.1 and ::1 (IP SANs: a
 * client connecting to an address checks the address, not a name) and any further DNS names.
 *
 * @example
 * const { cert, key } = await createSelfSignedCertificate({ commonName: "receiver.test", dnsNames: ["receiver.test"] });
 * https.createServer({ cert, key }, handler);
 */
export async function createSelfSignedCertificate(options: SelfSignedCertificateOptions): Promise<SelfSignedCertificate> {
  const notBefore = new Date(Date.now() - 60_000);
  const pems = await generate([{ name: "commonName", value: options.commonName }], {
    // An RSA key costs seconds to generate on a loaded machine; P-256 costs milliseconds.
    keyType: "ec",
    algorithm: "sha256",
    notBeforeDate: notBefore,
    notAfterDate: new Date(notBefore.getTime() + (options.validDays ?? 365) * DAY_MS),
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [
          ...[...new Set([...(options.dnsNames ?? []), ...LOOPBACK_NAMES.dns])].map((value) => ({ type: 2 as const, value })),
          ...LOOPBACK_NAMES.ips.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

export interface StoredCertificate extends SelfSignedCertificate {
  certPath: string;
  keyPath: string;
  /** True when it was made now rather than read from an earlier start. */
  created: boolean;
}

/**
 * The certificate kept in `dir` (`cert.pem`, `key.pem`), made there first when it is missing, does
 * not match its key, no longer covers the loopback names, or expires within a week. Keeping it lets
 * a client started with NODE_EXTRA_CA_CERTS pointing at it go on trusting the receiver across the
 * receiver's restarts.
 */
export async function loadOrCreateCertificate(dir: string, options: SelfSignedCertificateOptions): Promise<StoredCertificate> {
  const certPath = join(dir, "cert.pem");
  const keyPath = join(dir, "key.pem");
  const kept = readUsable(certPath, keyPath);
  if (kept) return { ...kept, certPath, keyPath, created: false };
  const made = await createSelfSignedCertificate(options);
  mkdirSync(dir, { recursive: true });
  writeFileSync(keyPath, made.key, { mode: 0o600 });
  chmodSync(keyPath, 0o600);
  writeFileSync(certPath, made.cert);
  return { ...made, certPath, keyPath, created: true };
}

function readUsable(certPath: string, keyPath: string): SelfSignedCertificate | undefined {
  try {
    const cert = readFileSync(certPath, "utf8");
    const key = readFileSync(keyPath, "utf8");
    const x509 = new X509Certificate(cert);
    const usable =
      x509.checkPrivateKey(createPrivateKey(key)) &&
      new Date(x509.validTo).getTime() - Date.now() > 7 * DAY_MS &&
      LOOPBACK_NAMES.dns.every((name) => x509.checkHost(name) !== undefined) &&
      LOOPBACK_NAMES.ips.every((ip) => x509.checkIP(ip) !== undefined);
    return usable ? { cert, key } : undefined;
  } catch {
    return undefined;
  }
}
