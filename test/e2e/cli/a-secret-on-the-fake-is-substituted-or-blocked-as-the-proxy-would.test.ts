/**
 * The fake simulates secrets at egress (#18 item 3) with the proxy's own
 * decision functions: the job holds only the placeholder; `fetch URL NAME`
 * sending it to the secret's host over https reads as substituted, to
 * another allowed host or over plain http as blocked (exit 56), and each
 * appears in the job's network summary by the secret's NAME, never its value.
 */
import { afterAll, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);
const VALUE = 'fake-planted-secret-value-456';
const env = { HEADSPACE_PROVIDER: 'fake', TOKEN: VALUE };
const json = (stdout: string) => JSON.parse(stdout) as { key_findings: string[]; evidence: unknown };
const network = (stdout: string) => json(stdout).key_findings.find((f) => f.startsWith('network:'));

it('substitutes for its own host over https, and blocks it elsewhere or over http', () => {
  expect(cli(home, ['create', '--workspace-id', 'sim', '--network', 'allow=api.test,other.test'], env).code).toBe(0);
  const run = (url: string) => cli(home, ['run', '--json', '--secret', 'TOKEN@api.test', 'sim', 'fetch', url, 'TOKEN'], env);
  const own = run('https://api.test/v1');
  expect(own.code, own.stderr).toBe(0);
  expect(JSON.stringify(json(own.stdout).evidence)).toContain('fetch: 200 from api.test (simulated; TOKEN substituted)');
  expect(network(own.stdout)).toBe('network: 1 allowed to 1 host (0 bytes sent, 0 received), 0 denied; secrets substituted: TOKEN → api.test ×1');
  const other = run('https://other.test/v1');
  expect(other.code).toBe(6);
  expect(network(other.stdout)).toContain('1 denied: other.test (placeholder of TOKEN to another host)');
  const plain = run('http://api.test/v1');
  expect(plain.code).toBe(6);
  expect(network(plain.stdout)).toContain('1 denied: api.test (placeholder of TOKEN over plain text)');
  const shown = cli(home, ['run', '--json', '--secret', 'TOKEN@api.test', 'sim', 'env', 'TOKEN'], env);
  expect(JSON.stringify(json(shown.stdout).evidence)).toMatch(/hs-secret-TOKEN-[0-9a-f]{32}/);
  for (const r of [own, other, plain, shown]) expect(r.stdout + r.stderr).not.toContain(VALUE);
});
