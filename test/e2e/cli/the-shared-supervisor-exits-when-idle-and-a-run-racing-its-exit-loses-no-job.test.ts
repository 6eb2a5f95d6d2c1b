/**
 * The home's shared supervisor exits once it has been idle (#15): with an
 * idle time of a few milliseconds, detached runs started at seeded moments
 * keep meeting a supervisor that is about to exit, or is exiting, or is
 * gone with its socket still there. Each run must still be accepted and its
 * job must end as it would in the foreground; and once the runs stop, no
 * supervisor is left and its socket is gone.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome, sharedSupervisorsOf } from '../../helpers/cli.js';
import { eventually, jsonOf } from '../../helpers/detached.js';
import { seeded } from '../../reliability/reliability-helpers.js';

const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'fake', HEADSPACE_SUPERVISOR_IDLE_MS: '20' };
afterAll(cleanup);

describe('the shared supervisor', () => {
  it('exits when idle, and a run that meets it exiting loses no job', async () => {
    expect(cli(home, ['create', '--workspace-id', 'idle', '--concurrency', '2'], env).code).toBe(0);
    const rng = seeded(15_030);
    const jobs: string[] = [];
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setTimeout(r, Math.floor(rng() * 60)));
      const run = await cliAsync(home, ['run', '--detach', '--json', '--job-id', `idle-${i}`, 'idle', 'echo', `n${i}`], env);
      expect(run.code, run.stderr).toBe(0);
      expect(jsonOf(run.stdout).status).toBe('running');
      jobs.push(`idle-${i}`);
      const waited = cli(home, ['wait', '--json', `idle-${i}`], env);
      expect(waited.code, waited.stderr).toBe(0);
      expect(jsonOf(waited.stdout).evidence[0]?.excerpt).toBe(`n${i}\n`);
    }
    expect(await eventually(() => sharedSupervisorsOf(home).length === 0)).toBe(true);
    expect(existsSync(join(home, 'supervisor', 'sock'))).toBe(false);
  }, 150_000);
});
