/**
 * Loopback "upstreams" for the network allow-list tests and bench (#18): an
 * HTTP and an HTTPS server on 127.0.0.1, the HTTPS one with a certificate
 * from a throwaway test CA (made with the openssl CLI, EC keys: tens of ms)
 * for the names given, so a client that trusts only that CA reaches them by
 * name through the egress proxy's test resolver map.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCa {
  dir: string;
  caPath: string;
  ca: string;
  key: string;
  cert: string;
}

export function makeTestCa(names: readonly string[]): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'hs-test-ca-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key');
  run('req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=headspace test CA', '-days', '2', '-out', 'ca.pem');
  run('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'server.key');
  run('req', '-new', '-key', 'server.key', '-subj', `/CN=${names[0]}`, '-out', 'server.csr');
  writeFileSync(join(dir, 'ext.cnf'), `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}\n`);
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'ext.cnf', '-out', 'server.pem');
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return { dir, caPath: join(dir, 'ca.pem'), ca: read('ca.pem'), key: read('server.key'), cert: read('server.pem') };
}

export interface Upstreams {
  httpPort: number;
  httpsPort: number;
  /** Requests each server saw, as "METHOD path host". */
  seen: string[];
  /** Each request's headers and body as the server got them (secrets at egress, #18 item 3: what reached the upstream). */
  heard: Array<{ url: string; headers: Record<string, string | string[] | undefined>; body: string }>;
  close(): Promise<void>;
}

/** GET /size/N answers N bytes of 'x'; anything else answers `hello from upstream`. */
export async function startUpstreams(ca: TestCa): Promise<Upstreams> {
  const seen: string[] = [];
  const heard: Upstreams['heard'] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url} ${req.headers.host}`);
    if (req.method === 'POST') {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c));
      req.on('end', () => {
        heard.push({ url: req.url ?? '', headers: { ...req.headers }, body: Buffer.concat(parts).toString('utf8') });
        res.end('posted\n');
      });
      return;
    }
    heard.push({ url: req.url ?? '', headers: { ...req.headers }, body: '' });
    const size = /^\/size\/(\d+)$/.exec(req.url ?? '');
    if (size) {
      res.writeHead(200, { 'content-length': size[1] });
      res.end(Buffer.alloc(Number(size[1]), 'x'));
    } else res.end('hello from upstream\n');
  };
  const http = createHttpServer(handler);
  const https = createHttpsServer({ key: ca.key, cert: ca.cert }, handler);
  const listen = (s: Server) => new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)));
  const [httpPort, httpsPort] = [await listen(http), await listen(https)];
  return {
    httpPort,
    httpsPort,
    seen,
    heard,
    close: async () => {
      for (const s of [http, https]) {
        s.closeAllConnections();
        await new Promise((resolve) => s.close(resolve));
      }
      rmSync(ca.dir, { recursive: true, force: true });
    },
  };
}

/** One HTTPS test host answering `handler`, its names mapped to loopback, and the native engine environment that reaches it in test mode. */
export interface SecretHost {
  port: number;
  /** HEADSPACE_PROVIDER=native, the resolver map for the names and the test CA: what a run needs to reach the host by name. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startSecretHost(names: readonly string[], handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<SecretHost> {
  const ca = makeTestCa(names);
  const server = createHttpsServer({ key: ca.key, cert: ca.cert }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    env: {
      HEADSPACE_PROVIDER: 'native',
      HEADSPACE_TEST_RESOLVER_MAP: JSON.stringify(Object.fromEntries(names.map((n) => [n, '127.0.0.1']))),
      HEADSPACE_TEST_UPSTREAM_CA: ca.ca,
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(ca.dir, { recursive: true, force: true });
    },
  };
}
