/**
 * The per-workspace certificate authority for secrets at egress (#18 item 3).
 * To put a secret into an HTTPS request the proxy must read and rewrite it, so
 * it terminates the job's TLS with a certificate for the host it asked for,
 * signed by this CA, which only the workspace's jobs trust (a bundle bound
 * read-only into the sandbox).
 *
 * Where the keys live: HEADSPACE_HOME/ca/<workspace id>/, a 0700 directory of
 * the engine's user (root on a root engine); ca-key.pem and leaf-key.pem are
 * 0600. Never in the workspace, never in a record, never inside the sandbox:
 * the sandbox gets the CA's certificate only (egress-session.ts writes the
 * bundle). One RSA leaf key for every host (made at create, so no job waits
 * on key generation); each host's leaf certificate is signed once per job's
 * proxy and cached for the rest of it.
 *
 * Keys come from Node's crypto; node-forge builds and signs the certificates
 * (Node has no X.509 writer). RSA because forge signs nothing else.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import forge from 'node-forge';

const CA_DAYS = 3650;
const LEAF_DAYS = 30;

export interface WorkspaceCa {
  /** The CA certificate (PEM): public, what the sandbox trusts. */
  certPem: string;
  /** A certificate for HOST (a name or IP literal) with the shared leaf key, cached per host. */
  leafFor(host: string): { cert: string; key: string };
}

/** This workspace's CA directory under the home (never under the workspace). */
export function caDir(home: string, workspaceId: string): string {
  return join(home, 'ca', workspaceId);
}

/** Makes the workspace's CA once (create); an existing one is kept. */
export function ensureWorkspaceCa(home: string, workspaceId: string): void {
  const dir = caDir(home, workspaceId);
  if (existsSync(join(dir, 'ca-cert.pem'))) return;
  mkdirSync(join(home, 'ca'), { recursive: true, mode: 0o700 });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const ca = rsaKeys();
  const leaf = rsaKeys();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(ca.publicKey);
  cert.serialNumber = certificateSerial();
  cert.validity.notBefore = new Date(Date.now() - 3600_000);
  cert.validity.notAfter = new Date(Date.now() + CA_DAYS * 86400_000);
  const subject = [
    { name: 'commonName', value: `headspace egress CA ${workspaceId}` },
    { name: 'organizationName', value: 'headspace (this workspace only)' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true, pathLenConstraint: 0 },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(ca.privateKey), forge.md.sha256.create());
  // Keys first, 0600 from the start (no window in which they are readable), the certificate last: its presence means complete.
  writeFileSync(join(dir, 'ca-key.pem'), ca.privateKey, { mode: 0o600 });
  writeFileSync(join(dir, 'leaf-key.pem'), leaf.privateKey, { mode: 0o600 });
  writeFileSync(join(dir, 'ca-cert.pem'), forge.pki.certificateToPem(cert), { mode: 0o644 });
}

/** Loads the workspace's CA for one job's proxy; its leaf certificates are cached for that proxy's life. */
export function loadWorkspaceCa(home: string, workspaceId: string): WorkspaceCa {
  const dir = caDir(home, workspaceId);
  const certPem = readFileSync(join(dir, 'ca-cert.pem'), 'utf8');
  const caCert = forge.pki.certificateFromPem(certPem);
  const caKey = forge.pki.privateKeyFromPem(readFileSync(join(dir, 'ca-key.pem'), 'utf8'));
  const leafKeyPem = readFileSync(join(dir, 'leaf-key.pem'), 'utf8');
  const leafPrivate = forge.pki.privateKeyFromPem(leafKeyPem) as forge.pki.rsa.PrivateKey;
  const leafPublic = forge.pki.setRsaPublicKey(leafPrivate.n, leafPrivate.e);
  const cache = new Map<string, { cert: string; key: string }>();
  return {
    certPem,
    leafFor(host) {
      const known = cache.get(host);
      if (known) return known;
      const cert = forge.pki.createCertificate();
      cert.publicKey = leafPublic;
      cert.serialNumber = certificateSerial();
      cert.validity.notBefore = new Date(Date.now() - 3600_000);
      cert.validity.notAfter = new Date(Date.now() + LEAF_DAYS * 86400_000);
      cert.setSubject([{ name: 'commonName', value: host.slice(0, 64) }]);
      cert.setIssuer(caCert.subject.attributes);
      const ip = isIP(host) !== 0;
      cert.setExtensions([
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: [ip ? { type: 7, ip: host } : { type: 2, value: host }] },
      ]);
      cert.sign(caKey, forge.md.sha256.create());
      const leaf = { cert: forge.pki.certificateToPem(cert), key: leafKeyPem };
      cache.set(host, leaf);
      return leaf;
    },
  };
}

/** Removed with its workspace (destroy): a CA outliving its workspace would be a key nobody needs. */
export function removeWorkspaceCa(home: string, workspaceId: string): void {
  const dir = caDir(home, workspaceId);
  // Most workspaces never had one: one lstat answers that, where rmSync's recursive walk cost ~3% of a fake create+run+destroy cycle (#20).
  try {
    lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
  }
  rmSync(dir, { recursive: true, force: true });
}

/** The system's bundle with the workspace CA appended: what SSL_CERT_FILE and friends name inside the sandbox. */
export function trustBundle(caCertPem: string, systemBundle = '/etc/ssl/certs/ca-certificates.crt'): string {
  let system: string;
  try {
    system = readFileSync(systemBundle, 'utf8');
  } catch {
    // No system bundle on this host: Node's own roots stand in, so public hosts still verify inside the job.
    system = rootCertificates.join('\n');
  }
  return `${system.trimEnd()}\n${caCertPem.trim()}\n`;
}

function rsaKeys() {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

export function certificateSerial(): string {
  // Unique per certificate, so a client's cache never mixes two leaves, and a DER INTEGER that parses: its
  // first byte 0x01..0x7f is positive and never a leading zero. A random first byte let node-forge write a
  // padded integer ("illegal padding") about once in a thousand leaves, which crashed the proxy's host (red team).
  const bytes = randomBytes(16);
  bytes[0] = 1 + (bytes[0]! % 0x7f);
  return bytes.toString('hex');
}
