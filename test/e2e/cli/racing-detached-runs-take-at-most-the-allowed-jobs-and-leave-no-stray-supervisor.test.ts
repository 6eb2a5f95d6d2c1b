/**
 * Detached runs race for a workspace's job slots like foreground ones (#15):
 * of six `run --detach` started at once on a workspace that allows two jobs,
 * exactly two are accepted (exit 0) and the others are refused busy (exit 2);
 * a refused run's supervisor, started before the refusal, receives no job and
 * exits, so only the accepted jobs' supervisors remain.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { eventually } from '../../helpers/detached.js';

const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'fake' };
afterAll(async () => {
  cli(home, ['stop', 'race', '--apply', '--grace-seconds', '0'], env);
  await cleanup();
});

/** The job ids of the live supervisors of this test's jobs (from /proc: their argv names the job). */
function liveSupervisors(): string[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return argv.some((a) => a.endsWith('/headspace-supervisor')) && argv.some((a) => a.startsWith('race-job-'))
          ? [argv.find((a) => a.startsWith('race-job-'))!]
          : [];
      } catch {
        return [];
      }
    })
    .sort();
}

describe('racing detached runs', () => {
  it('take at most the allowed jobs at once, and a refused one leaves no supervisor behind', async () => {
    expect(cli(home, ['create', '--workspace-id', 'race', '--concurrency', '2'], env).code).toBe(0);
    const runs = await Promise.all(Array.from({ length: 6 }, (_, i) => cliAsync(home, ['run', '--detach', '--job-id', `race-job-${i}`, 'race', 'block'], env)));
    const accepted = runs.flatMap((r, i) => (r.code === 0 ? [`race-job-${i}`] : []));
    expect(accepted, runs.map((r) => r.stderr).join('\n')).toHaveLength(2);
    for (const r of runs.filter((r) => r.code !== 0)) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('is busy');
    }
    expect(await eventually(() => liveSupervisors().join() === accepted.join())).toBe(true);
  }, 60_000);
});
