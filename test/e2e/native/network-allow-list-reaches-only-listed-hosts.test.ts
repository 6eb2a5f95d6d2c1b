/**
 * A native workspace with a network allow-list (#18), end to end through
 * the built bin: curl inside reaches an allowed HTTPS upstream by name
 * through HTTPS_PROXY (the in-sandbox relay, the unix socket, the engine's
 * proxy; TLS verified inside against the upstream's own test CA), a host
 * not in the list is denied with the denial in the result, and a tool that
 * bypasses the proxy has no DNS and no route. The upstreams are loopback
 * servers named through the proxy's test resolver map (the test-only
 * HEADSPACE_TEST_RESOLVER_MAP, set in the engine's environment here). A
 * workspace without an allow-list still has no socket and no relay. A
 * detached run (its supervisor runs the same job path) is summarised alike.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_MODE_NOTE } from '../../../src/core/network/egress-resolver.js';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { makeTestCa, startUpstreams, type TestCa, type Upstreams } from '../../helpers/tls-upstream.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const home = makeHome();
let ca: TestCa;
let up: Upstreams;
let env: Record<string, string>;

beforeAll(async () => {
  ca = makeTestCa(['api.test', 'evil.test']);
  up = await startUpstreams(ca);
  writeFileSync(join(ca.dir, 'ca-copy.pem'), ca.ca);
  env = { HEADSPACE_PROVIDER: 'native', HEADSPACE_TEST_RESOLVER_MAP: JSON.stringify({ 'api.test': '127.0.0.1', 'evil.test': '127.0.0.1' }) };
});
afterAll(async () => {
  await home.cleanup();
  await up?.close();
});

const findings = (stdout: string) => (JSON.parse(stdout) as { key_findings: string[] }).key_findings;
const output = (stdout: string) => JSON.stringify((JSON.parse(stdout) as { evidence: unknown }).evidence);

describe.runIf(readiness.ready && process.getuid?.() === 0)(`native network allow-list (needs a ready native host as root: ${readiness.reason})`, () => {
  it('reaches an allowed host over HTTPS through the proxy variables, and summarises it', async () => {
    expect(cli(home.home, ['create', '--workspace-id', 'net', '--network', `allow=api.test:${up.httpsPort}`], env).code).toBe(0);
    const run = await cliAsync(
      home.home,
      [
        'run',
        '--json',
        '--input',
        `ca.pem=${join(ca.dir, 'ca-copy.pem')}`,
        'net',
        'curl',
        '-sS',
        '--cacert',
        'ca.pem',
        '-o',
        '/dev/null',
        '-w',
        'got %{size_download} bytes\\n',
        `https://api.test:${up.httpsPort}/size/1024`,
      ],
      env,
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(output(run.stdout)).toContain('got 1024 bytes');
    // Test mode never passes unnoticed.
    expect((JSON.parse(run.stdout) as { warnings: string[] }).warnings.join('\n')).toContain('HEADSPACE_TEST_RESOLVER_MAP is set');
    expect(findings(run.stdout).find((f) => f.startsWith('network:'))).toMatch(
      /^network: 1 allowed to 1 host \(\d+ bytes sent, \d+ received\), 0 denied \[test mode: /,
    );
  });

  it('summarises a detached run the same way: its supervisor opens and closes the proxy around the job', async () => {
    const args = ['net', 'curl', '-sS', '--cacert', 'ca.pem', '-o', '/dev/null', `https://api.test:${up.httpsPort}/size/2048`];
    const started = await cliAsync(home.home, ['run', '--detach', '--json', '--job-id', 'net-detached', ...args], env);
    expect(started.code, started.stdout + started.stderr).toBe(0);
    const waited = await cliAsync(home.home, ['wait', '--json', 'net-detached'], env);
    expect(waited.code, waited.stdout + waited.stderr).toBe(0);
    expect(findings(waited.stdout).find((f) => f.startsWith('network:'))).toMatch(
      /^network: 1 allowed to 1 host \(\d+ bytes sent, \d+ received\), 0 denied \[test mode: /,
    );
  });

  it('denies a host not in the list, and says so in the result', async () => {
    const run = await cliAsync(home.home, ['run', '--json', 'net', 'curl', '-sS', '--cacert', 'ca.pem', `https://evil.test:${up.httpsPort}/`], env);
    expect(run.code).toBe(6);
    expect(findings(run.stdout)).toContain(`network: 0 allowed to 0 hosts, 1 denied: evil.test:${up.httpsPort} (not in allow-list) ${TEST_MODE_NOTE}`);
  });

  it('gives a tool that bypasses the proxy no DNS and no route', async () => {
    const before = up.seen.length;
    const run = await cliAsync(
      home.home,
      [
        'run',
        '--json',
        'net',
        'sh',
        '-c',
        `curl -sS -m 3 --noproxy '*' http://api.test:${up.httpPort}/; echo "dns=$?"; curl -sS -m 3 --noproxy '*' http://127.0.0.1:${up.httpPort}/; echo "direct=$?"`,
      ],
      env,
    );
    const text = output(run.stdout);
    expect(text).toContain('dns=6');
    expect(text).toContain('direct=7');
    expect(up.seen.length).toBe(before);
  });

  it('leaves a workspace without an allow-list with no egress socket and no relay', async () => {
    expect(cli(home.home, ['create', '--workspace-id', 'closed'], env).code).toBe(0);
    const run = await cliAsync(
      home.home,
      ['run', '--json', 'closed', 'sh', '-c', 'ls /run 2>&1; env | grep -ci proxy; curl -sS -m 3 http://127.0.0.1:3128/; echo "relay=$?"'],
      env,
    );
    const text = output(run.stdout);
    expect(text).not.toContain('headspace-egress.sock');
    expect(text).toContain('relay=7');
    expect(findings(run.stdout).some((f) => f.startsWith('network:'))).toBe(false);
  });
});
