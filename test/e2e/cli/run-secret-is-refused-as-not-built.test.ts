/**
 * `run --secret NAME@HOST` (#18 item 3, secrets substituted at egress) is
 * not built: it is refused with exit 3 before anything runs, saying so and
 * pointing at --env, rather than running the job as if the secret were
 * hidden from it.
 */
import { afterAll, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

it('refuses run --secret with exit 3 and runs nothing', () => {
  expect(cli(home, ['create', '--workspace-id', 'sec', '--network', 'allow=api.test']).code).toBe(0);
  const run = cli(home, ['run', '--secret', 'TOKEN@api.test', 'sec', 'echo', 'ran'], { TOKEN: 'hs-secret-value-123' });
  expect(run.code).toBe(3);
  expect(run.stderr).toContain('run --secret is not built');
  expect(run.stderr).toContain('--env NAME');
  expect(run.stderr).not.toContain('hs-secret-value-123');
  const status = cli(home, ['status', 'sec', '--json']);
  expect(status.stdout).not.toContain('"ran"');
  expect(JSON.parse(status.stdout).key_findings.join('\n')).not.toMatch(/job-/);
});
