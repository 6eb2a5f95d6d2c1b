/**
 * Detached runs race for a workspace's job slots like foreground ones (#15):
 * of six `run --detach` started at once on a workspace that allows two jobs,
 * exactly two are accepted (exit 0) and the others are refused busy (exit 2).
 * No supervisor runs when they start, so each of the six may start the
 * home's shared supervisor at once: they end with exactly one, which owns
 * both accepted jobs.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../src/core/store/sqlite-store.js';
import { cli, cliAsync, makeHome, sharedSupervisorsOf } from '../../helpers/cli.js';
import { eventually } from '../../helpers/detached.js';

const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'fake' };
afterAll(async () => {
  cli(home, ['stop', 'race', '--apply', '--grace-seconds', '0'], env);
  await cleanup();
});

describe('racing detached runs', () => {
  it('take at most the allowed jobs at once, under one shared supervisor however many started one', async () => {
    expect(cli(home, ['create', '--workspace-id', 'race', '--concurrency', '2'], env).code).toBe(0);
    expect(sharedSupervisorsOf(home)).toEqual([]);
    const runs = await Promise.all(Array.from({ length: 6 }, (_, i) => cliAsync(home, ['run', '--detach', '--job-id', `race-job-${i}`, 'race', 'block'], env)));
    const accepted = runs.flatMap((r, i) => (r.code === 0 ? [`race-job-${i}`] : []));
    expect(accepted, runs.map((r) => r.stderr).join('\n')).toHaveLength(2);
    for (const r of runs.filter((r) => r.code !== 0)) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('is busy');
    }
    // A starter that lost the start race exits at once: one supervisor is left.
    expect(await eventually(() => sharedSupervisorsOf(home).length === 1)).toBe(true);
    const [supervisor] = sharedSupervisorsOf(home);
    const store = SqliteStore.open(home);
    try {
      expect(accepted.map((id) => store.getJob(id)?.owner.pid)).toEqual([supervisor, supervisor]);
    } finally {
      store.close();
    }
  }, 60_000);
});
