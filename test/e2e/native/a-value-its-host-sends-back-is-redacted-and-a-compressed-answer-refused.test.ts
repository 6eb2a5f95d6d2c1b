/**
 * Reflection on native (#18 follow-up), end to end through the built bin:
 * the secret's host gets the value and sends it back — in a response
 * header, a Content-Length body and a chunked body — and curl inside the
 * job reads none of it: the header holds the placeholder, the bodies an
 * equal-length mask, and the network line counts the redaction by name.
 * curl --compressed still gets an uncompressed answer (the proxy asked the
 * host for identity); a host that compresses anyway is refused (502),
 * recorded, never passed unscanned.
 */
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { makeTestCa, type TestCa } from '../../helpers/tls-upstream.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const home = makeHome();
const VALUE = `reflected-${process.pid}-kept-from-the-job`;
const MASK = `[hs-redacted TOKEN]${'*'.repeat(VALUE.length)}`.slice(0, VALUE.length);
let ca: TestCa;
let server: Server;
let port = 0;
const acceptEncodings: string[] = [];
let env: Record<string, string>;

beforeAll(async () => {
  ca = makeTestCa(['api.test']);
  server = createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const auth = String(req.headers.authorization ?? '');
    acceptEncodings.push(String(req.headers['accept-encoding'] ?? ''));
    if (req.url === '/gzip-always') {
      const body = gzipSync(auth);
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': body.length });
      return res.end(body);
    }
    if (req.url === '/chunked') {
      res.writeHead(200, { 'x-echo': auth });
      res.write(auth.slice(0, 12));
      setTimeout(() => res.end(`${auth.slice(12)}\n`), 30);
      return;
    }
    const body = `you sent: ${auth}\n`;
    res.writeHead(200, { 'x-echo': auth, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  env = {
    HEADSPACE_PROVIDER: 'native',
    HEADSPACE_TEST_RESOLVER_MAP: JSON.stringify({ 'api.test': '127.0.0.1' }),
    HEADSPACE_TEST_UPSTREAM_CA: ca.ca,
    TOKEN: VALUE,
  };
});
afterAll(async () => {
  await home.cleanup();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  // Its CA directory, as startUpstreams and startSecretHost remove theirs (CI runs left it in /tmp).
  if (ca as TestCa | undefined) rmSync(ca.dir, { recursive: true, force: true });
});

const findings = (stdout: string) => (JSON.parse(stdout) as { key_findings: string[] }).key_findings;
const run = (script: string) => cliAsync(home.home, ['run', '--json', '--secret', `TOKEN@api.test:${port}`, 'refl', 'sh', '-c', script], env);
const curl = (path: string, extra = '') => `curl -sS -i ${extra} -H "Authorization: Bearer $TOKEN" https://api.test:${port}${path}; echo`;

describe.runIf(readiness.ready && process.getuid?.() === 0)(`a reflected secret on native (needs a ready native host as root: ${readiness.reason})`, () => {
  it('reaches the job as the placeholder in headers and a mask in bodies, counted by name', async () => {
    expect(cli(home.home, ['create', '--workspace-id', 'refl', '--network', `allow=api.test:${port}`], env).code).toBe(0);
    const ran = await run(`${curl('/echo', '--compressed')}; ${curl('/chunked')}`);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const text = ran.stdout + ran.stderr;
    expect(text).not.toContain(VALUE);
    expect(text).toMatch(/x-echo: Bearer hs-secret-TOKEN-[0-9a-f]{32}/i);
    expect(text).toContain(`you sent: Bearer ${MASK}`);
    expect(text).toContain(`Bearer ${MASK}`.slice(0, 12));
    expect(acceptEncodings.slice(0, 2)).toEqual(['identity', 'identity']);
    expect(findings(ran.stdout).find((f) => f.startsWith('network:'))).toMatch(/secrets redacted from responses: TOKEN ← api\.test ×\d+/);
  });

  it('refuses a compressed answer after the value went out, recorded, never passed unscanned', async () => {
    const ran = await run(curl('/gzip-always', '--compressed'));
    expect(ran.stdout + ran.stderr).not.toContain(VALUE);
    expect(ran.stdout).toContain('502 Bad Gateway');
    expect(findings(ran.stdout).find((f) => f.startsWith('network:'))).toContain('response refused (compressed: gzip)');
  });
});
