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
 * on key generation); each host's leaf certificate is signed by a worker
 * thread of the job's proxy (never on the event loop) and kept in a bounded
 * LRU cache for the rest of it.
 *
 * Keys come from Node's crypto; node-forge builds and signs the certificates
 * (Node has no X.509 writer). RSA because forge signs nothing else.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as Tls from 'node:tls';
import type * as WorkerThreads from 'node:worker_threads';
import type Forge from 'node-forge';
import { lazyRequire } from '../lazy-require.js';

const require = createRequire(import.meta.url);
// Loaded when a CA is made or used, not with every create and run that imports this module (#20).
const forgeModule = lazyRequire<typeof Forge>('node-forge');
const tlsModule = lazyRequire<typeof Tls>('node:tls');
const workerThreads = lazyRequire<typeof WorkerThreads>('node:worker_threads');

const CA_DAYS = 3650;

export interface WorkspaceCa {
  /** The CA certificate (PEM): public, what the sandbox trusts. */
  certPem: string;
  /**
   * A certificate for HOST (a name or IP literal) with the shared leaf key. Signed off the event loop (a
   * worker thread: ~25 ms of RSA signing each, which on the main thread stalled every tunnel of the proxy
   * and, for detached runs, the shared supervisor), cached per host in a bounded LRU (LEAF_CACHE_MAX).
   */
  leafFor(host: string): Promise<{ cert: string; key: string }>;
  /** Ends the signing worker (the proxy's close); a later leafFor starts another. */
  close(): Promise<void>;
}

/** Hosts whose leaves one job's proxy keeps: a wildcard allow-list lets a job ask for any number of names. */
export const LEAF_CACHE_MAX = 256;

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
  const forge = forgeModule();
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

/** Loads the workspace's CA for one job's proxy; its leaf certificates are signed by a worker and cached (LRU). */
export function loadWorkspaceCa(home: string, workspaceId: string, options: { cacheMax?: number } = {}): WorkspaceCa {
  const dir = caDir(home, workspaceId);
  const certPem = readFileSync(join(dir, 'ca-cert.pem'), 'utf8');
  const leafKeyPem = readFileSync(join(dir, 'leaf-key.pem'), 'utf8');
  const signer = new LeafSigner({
    forgePath: require.resolve('node-forge'),
    caCertPem: certPem,
    caKeyPem: readFileSync(join(dir, 'ca-key.pem'), 'utf8'),
    leafKeyPem,
  });
  const cache = new LruCache<string, Promise<{ cert: string; key: string }>>(options.cacheMax ?? LEAF_CACHE_MAX);
  return {
    certPem,
    leafFor(host) {
      const known = cache.get(host);
      if (known) return known;
      // The promise is cached, so concurrent tunnels to one new host share one signing; a failure is not kept.
      const leaf = signer.sign(host).then((cert) => ({ cert, key: leafKeyPem }));
      cache.set(host, leaf);
      leaf.catch(() => cache.delete(host));
      return leaf;
    },
    close: () => signer.close(),
  };
}

/**
 * Builds and signs one leaf certificate. Self-contained on purpose (only its parameters, no imports or
 * closures): the worker runs this very function from its source text, so the main thread and the worker
 * cannot sign differently. `serial` comes from certificateSerial().
 */
export function signLeaf(
  pki: typeof Forge.pki,
  md: typeof Forge.md,
  ca: { cert: Forge.pki.Certificate; key: Forge.pki.rsa.PrivateKey; leafPublic: Forge.pki.PublicKey },
  host: string,
  serial: string,
  ip: boolean,
  now: number,
): string {
  const cert = pki.createCertificate();
  cert.publicKey = ca.leafPublic;
  cert.serialNumber = serial;
  cert.validity.notBefore = new Date(now - 3600_000);
  cert.validity.notAfter = new Date(now + 30 * 86400_000);
  cert.setSubject([{ name: 'commonName', value: host.slice(0, 64) }]);
  cert.setIssuer(ca.cert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: [ip ? { type: 7, ip: host } : { type: 2, value: host }] },
  ]);
  cert.sign(ca.key, md.sha256.create());
  return pki.certificateToPem(cert);
}

/** The CA as signLeaf takes it, from PEM (in the worker, and for a caller that signs on its own thread: the bench). */
export function parseCaForSigning(caCertPem: string, caKeyPem: string, leafKeyPem: string) {
  const forge = forgeModule();
  const leafPrivate = forge.pki.privateKeyFromPem(leafKeyPem) as Forge.pki.rsa.PrivateKey;
  return {
    cert: forge.pki.certificateFromPem(caCertPem),
    key: forge.pki.privateKeyFromPem(caKeyPem) as Forge.pki.rsa.PrivateKey,
    leafPublic: forge.pki.setRsaPublicKey(leafPrivate.n, leafPrivate.e),
  };
}

/**
 * The worker's program, run with `eval` (CommonJS, `require` available) so it works the same from the
 * sources under test, the per-file build and the CLI bundle: none has to find a worker file beside it.
 * node-forge is required by the absolute path the parent resolved.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { randomBytes } = require('node:crypto');
const { isIP } = require('node:net');
const forge = require(workerData.forgePath);
const signLeaf = ${signLeaf.toString()};
const certificateSerial = ${certificateSerial.toString()};
const leafPrivate = forge.pki.privateKeyFromPem(workerData.leafKeyPem);
const ca = {
  cert: forge.pki.certificateFromPem(workerData.caCertPem),
  key: forge.pki.privateKeyFromPem(workerData.caKeyPem),
  leafPublic: forge.pki.setRsaPublicKey(leafPrivate.n, leafPrivate.e),
};
parentPort.on('message', ({ id, host }) => {
  try {
    parentPort.postMessage({ id, cert: signLeaf(forge.pki, forge.md, ca, host, certificateSerial(randomBytes), isIP(host) !== 0, Date.now()) });
  } catch (error) {
    parentPort.postMessage({ id, error: (error && error.name) || 'Error' });
  }
});
`;

/** One worker thread signing leaves in order; started on construction (warm by the first TLS), unref'd. */
class LeafSigner {
  private worker: WorkerThreads.Worker | null = null;
  private closed = false;
  private next = 0;
  private readonly pending = new Map<number, { resolve: (cert: string) => void; reject: (error: Error) => void }>();
  private readonly data: { forgePath: string; caCertPem: string; caKeyPem: string; leafKeyPem: string };
  constructor(data: { forgePath: string; caCertPem: string; caKeyPem: string; leafKeyPem: string }) {
    this.data = data;
    this.start();
  }

  private start(): WorkerThreads.Worker {
    const worker = new (workerThreads().Worker)(WORKER_SOURCE, { eval: true, workerData: this.data });
    worker.unref();
    worker.on('message', (m: { id: number; cert?: string; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.cert !== undefined) p.resolve(m.cert);
      else p.reject(Object.assign(new Error('the leaf could not be signed'), { name: m.error ?? 'Error' }));
    });
    // A worker that dies fails what it held; the next leaf starts another. Never thrown: this runs in the proxy's host.
    const died = () => {
      if (this.worker === worker) this.worker = null;
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        p.reject(Object.assign(new Error('the leaf signer stopped'), { name: 'SignerStopped' }));
      }
    };
    worker.on('error', died);
    worker.on('exit', died);
    this.worker = worker;
    return worker;
  }

  sign(host: string): Promise<string> {
    if (this.closed) return Promise.reject(Object.assign(new Error('the proxy is closed'), { name: 'SignerStopped' }));
    const worker = this.worker ?? this.start();
    const id = (this.next += 1);
    return new Promise<string>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, host });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }
}

/** A Map bounded to `max` entries, the least recently used going first. */
export class LruCache<K, V> {
  private readonly map = new Map<K, V>();
  private readonly max: number;
  constructor(max: number) {
    this.max = max;
  }
  get size(): number {
    return this.map.size;
  }
  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
  }
  delete(key: K): void {
    this.map.delete(key);
  }
}

/** Removed with its workspace (destroy): a CA outliving its workspace would be a key nobody needs. */
export function removeWorkspaceCa(home: string, workspaceId: string): void {
  const dir = caDir(home, workspaceId);
  // Most workspaces never had one: one lstat answers that, where rmSync's recursive walk cost ~3% of a fake create+run+destroy cycle (#20).
  // Asked not to throw when it is absent: building the ENOENT error (its message and stack) cost more than the lstat itself (#20).
  try {
    if (lstatSync(dir, { throwIfNoEntry: false }) === undefined) return;
  } catch {
    // Unreadable for another reason: rmSync below reports what it cannot remove.
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
    system = tlsModule().rootCertificates.join('\n');
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

export function certificateSerial(random: (n: number) => Buffer = randomBytes): string {
  // Unique per certificate, so a client's cache never mixes two leaves, and a DER INTEGER that parses: its
  // first byte 0x01..0x7f is positive and never a leading zero. A random first byte let node-forge write a
  // padded integer ("illegal padding") about once in a thousand leaves, which crashed the proxy's host (red team).
  const bytes = random(16);
  bytes[0] = 1 + (bytes[0]! % 0x7f);
  return bytes.toString('hex');
}
