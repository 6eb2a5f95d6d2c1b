/**
 * Secrets at egress on native (#18 item 3), end to end through the built bin:
 * `run --secret TOKEN@api.test` gives the job only a placeholder; curl inside
 * sends it in a header over HTTPS through the proxy, which terminates TLS
 * with the workspace's CA (trusted inside through SSL_CERT_FILE & co.),
 * verifies the upstream against the test CA (HEADSPACE_TEST_UPSTREAM_CA,
 * test mode) and puts the value in the header: the loopback upstream gets the
 * value, the job never sees it. The same placeholder to another allowed host
 * is blocked and reported; over plain HTTP it is blocked; an upstream whose
 * certificate the test CA did not sign is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { makeTestCa, startUpstreams, type TestCa, type Upstreams } from '../../helpers/tls-upstream.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const home = makeHome();
const VALUE = `real-value-${process.pid}-kept-from-the-job`;
let ca: TestCa;
let rogue: TestCa;
let up: Upstreams;
let tampered: Upstreams;
let env: Record<string, string>;

beforeAll(async () => {
  ca = makeTestCa(['api.test', 'other.test']);
  // Same name, but signed by a CA the proxy was not told to trust: a tampered (or intercepted) upstream.
  rogue = makeTestCa(['tampered.test']);
  up = await startUpstreams(ca);
  tampered = await startUpstreams(rogue);
  env = {
    HEADSPACE_PROVIDER: 'native',
    HEADSPACE_TEST_RESOLVER_MAP: JSON.stringify({ 'api.test': '127.0.0.1', 'other.test': '127.0.0.1', 'tampered.test': '127.0.0.1' }),
    HEADSPACE_TEST_UPSTREAM_CA: ca.ca,
    TOKEN: VALUE,
  };
});
afterAll(async () => {
  await home.cleanup();
  await up?.close();
  await tampered?.close();
});

const parsed = (stdout: string) => JSON.parse(stdout) as { key_findings: string[]; evidence: unknown };
const network = (stdout: string) => parsed(stdout).key_findings.find((f) => f.startsWith('network:')) ?? '';
const output = (stdout: string) => JSON.stringify(parsed(stdout).evidence);

describe.runIf(readiness.ready && process.getuid?.() === 0)(`secrets at egress on native (needs a ready native host as root: ${readiness.reason})`, () => {
  it('puts the value into the header the upstream gets, while the job holds only the placeholder', async () => {
    const allow = `allow=api.test:${up.httpsPort},other.test:${up.httpsPort},tampered.test:${tampered.httpsPort},api.test:${up.httpPort}`;
    expect(cli(home.home, ['create', '--workspace-id', 'sec', '--network', allow], env).code).toBe(0);
    const run = await cliAsync(
      home.home,
      [
        'run',
        '--json',
        '--secret',
        `TOKEN@api.test:${up.httpsPort}`,
        'sec',
        'sh',
        '-c',
        `echo "job sees $TOKEN"; curl -sS -H "Authorization: Bearer $TOKEN" https://api.test:${up.httpsPort}/hello`,
      ],
      env,
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(output(run.stdout)).toMatch(/job sees hs-secret-TOKEN-[0-9a-f]{32}/);
    expect(output(run.stdout)).toContain('hello from upstream');
    expect(run.stdout + run.stderr).not.toContain(VALUE);
    const got = up.heard.find((h) => h.url === '/hello');
    expect(got?.headers.authorization).toBe(`Bearer ${VALUE}`);
    expect(network(run.stdout)).toContain(`secrets substituted: TOKEN → api.test ×1`);
  });

  it('substitutes in a request body only when the secret opted in with :body', async () => {
    const body = (flag: string) =>
      cliAsync(home.home, ['run', '--json', '--secret', flag, 'sec', 'sh', '-c', `curl -sS --data "token=$TOKEN" https://api.test:${up.httpsPort}/form`], env);
    const plain = await body(`TOKEN@api.test:${up.httpsPort}`);
    expect(plain.code, plain.stdout + plain.stderr).toBe(0);
    expect(up.heard.filter((h) => h.url === '/form').at(-1)?.body).toMatch(/^token=hs-secret-TOKEN-/);
    const opted = await body(`TOKEN@api.test:${up.httpsPort}:body`);
    expect(opted.code, opted.stdout + opted.stderr).toBe(0);
    expect(up.heard.filter((h) => h.url === '/form').at(-1)?.body).toBe(`token=${VALUE}`);
  });

  it('replaces at most 16 placeholders in one request: more is refused before any value goes, recorded', async () => {
    // Red team, session 12: each 44-byte placeholder becomes the value in the proxy's memory, outside the job's
    // budget; a 1 MiB body of them held ~195 MB per request and stalled other workspaces' requests.
    const many = (n: number, path: string) =>
      cliAsync(
        home.home,
        [
          'run',
          '--json',
          '--secret',
          `TOKEN@api.test:${up.httpsPort}:body`,
          'sec',
          'sh',
          '-c',
          `curl -sS --data "$(for i in $(seq ${n}); do printf 't=%s&' "$TOKEN"; done)" https://api.test:${up.httpsPort}${path}`,
        ],
        env,
      );
    const sixteen = await many(16, '/sixteen');
    expect(sixteen.code, sixteen.stdout + sixteen.stderr).toBe(0);
    expect(up.heard.find((h) => h.url === '/sixteen')?.body.split(VALUE).length).toBe(17);
    const seventeen = await many(17, '/seventeen');
    expect(output(seventeen.stdout), seventeen.stdout).toContain('at most 16 secret placeholders replaced');
    expect(up.heard.find((h) => h.url === '/seventeen')).toBeUndefined();
    expect(network(seventeen.stdout)).toContain('request refused (more than 16 secret placeholders)');
  });

  it('blocks the placeholder sent to another allowed host, and reports it by name', async () => {
    const before = up.heard.length;
    const run = await cliAsync(
      home.home,
      [
        'run',
        '--json',
        '--secret',
        `TOKEN@api.test:${up.httpsPort}`,
        'sec',
        'sh',
        '-c',
        `curl -sS -f -H "X-Key: $TOKEN" https://other.test:${up.httpsPort}/leak`,
      ],
      env,
    );
    expect(run.code).toBe(6);
    expect(network(run.stdout)).toContain(`other.test:${up.httpsPort} (placeholder of TOKEN to another host)`);
    expect(up.heard.slice(before).some((h) => h.url === '/leak')).toBe(false);
  });

  it('blocks the placeholder over plain HTTP, even to its own host', async () => {
    const run = await cliAsync(
      home.home,
      ['run', '--json', '--secret', `TOKEN@api.test:${up.httpsPort}`, 'sec', 'sh', '-c', `curl -sS -f -H "X-Key: $TOKEN" http://api.test:${up.httpPort}/plain`],
      env,
    );
    expect(run.code).toBe(6);
    expect(network(run.stdout)).toContain('(placeholder of TOKEN over plain text)');
    expect(up.seen.some((s) => s.startsWith('GET /plain'))).toBe(false);
  });

  it('refuses an upstream whose certificate the trusted CA did not sign', async () => {
    const run = await cliAsync(
      home.home,
      ['run', '--json', '--secret', `TOKEN@api.test:${up.httpsPort}`, 'sec', 'sh', '-c', `curl -sS https://tampered.test:${tampered.httpsPort}/`],
      env,
    );
    expect(run.code).toBe(6);
    expect(network(run.stdout)).toMatch(/tampered\.test:\d+ \(upstream TLS refused \(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|UNABLE_TO_GET_ISSUER/);
    expect(tampered.seen).toEqual([]);
  });

  it('carries the value of a detached run over the supervisor socket only, and still substitutes it', async () => {
    const started = await cliAsync(
      home.home,
      [
        'run',
        '--detach',
        '--json',
        '--job-id',
        'sec-detached',
        '--secret',
        `TOKEN@api.test:${up.httpsPort}`,
        'sec',
        'sh',
        '-c',
        `curl -sS -H "Authorization: Bearer $TOKEN" https://api.test:${up.httpsPort}/detached`,
      ],
      env,
    );
    expect(started.code, started.stdout + started.stderr).toBe(0);
    const waited = await cliAsync(home.home, ['wait', '--json', 'sec-detached'], env);
    expect(waited.code, waited.stdout + waited.stderr).toBe(0);
    expect(up.heard.find((h) => h.url === '/detached')?.headers.authorization).toBe(`Bearer ${VALUE}`);
  });
});
