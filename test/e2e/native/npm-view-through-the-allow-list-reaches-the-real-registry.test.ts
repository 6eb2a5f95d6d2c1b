/**
 * The one real end-to-end run of #18: `npm view <package> version` inside a
 * native workspace (profile host: the host's node and npm, read-only) that
 * is allowed only the host of `npm config get registry` succeeds, and the
 * same with an empty allow-list fails with the denial in the result.
 * Skipped, with the reason, when the registry is unreachable from the host.
 * The host may reach the internet through an intercepting proxy whose CA it
 * trusts through NODE_EXTRA_CA_CERTS: the job is given the same variable
 * (its value names a file under /etc, which the host profile exposes), so
 * npm inside trusts what the host trusts, and TLS is verified end to end.
 */
import { execFileSync } from 'node:child_process';
import { request } from 'node:https';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const registry = (() => {
  try {
    return new URL(execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8', timeout: 20_000 }).trim());
  } catch {
    return null;
  }
})();
const reachable =
  registry === null
    ? false
    : await new Promise<boolean>((resolve) => {
        const req = request(new URL('/left-pad', registry), { method: 'HEAD', timeout: 5000 }, (res) => resolve((res.statusCode ?? 500) < 500));
        req.on('error', () => resolve(false));
        req.on('timeout', () => req.destroy());
        req.end();
      });
const home = makeHome();
afterAll(() => home.cleanup());

const env = { HEADSPACE_PROVIDER: 'native', ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}) };
const passCa = process.env.NODE_EXTRA_CA_CERTS ? ['--env', 'NODE_EXTRA_CA_CERTS'] : [];
const ready = readiness.ready && process.getuid?.() === 0;
const why = !ready
  ? `needs a ready native host as root: ${readiness.reason}`
  : !reachable
    ? `the registry ${registry?.host ?? '(none)'} is unreachable from this host`
    : 'registry reachable';

describe.runIf(ready && reachable)(`npm view through the allow-list (${why})`, () => {
  it('succeeds when only the registry host is allowed', async () => {
    expect(cli(home.home, ['create', '--workspace-id', 'npm', '--network', `allow=${registry!.host}`], env).code).toBe(0);
    const run = await cliAsync(home.home, ['run', '--json', ...passCa, 'npm', 'npm', 'view', 'left-pad', 'version'], env);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { key_findings: string[]; evidence: unknown };
    expect(JSON.stringify(result.evidence)).toMatch(/\d+\.\d+\.\d+/);
    expect(result.key_findings.find((f) => f.startsWith('network:'))).toMatch(/^network: [1-9]\d* allowed to 1 host /);
  }, 120_000);

  it('fails with the denial in the result when the allow-list is empty', async () => {
    expect(cli(home.home, ['create', '--workspace-id', 'none', '--network', 'allow='], env).code).toBe(0);
    const run = await cliAsync(home.home, ['run', '--json', ...passCa, 'none', 'npm', 'view', 'left-pad', 'version', '--fetch-retries=0'], env);
    expect(run.code).toBe(6);
    const result = JSON.parse(run.stdout) as { key_findings: string[] };
    expect(result.key_findings.find((f) => f.startsWith('network:'))).toContain(`denied: ${registry!.host} (not in allow-list)`);
  }, 120_000);
});
