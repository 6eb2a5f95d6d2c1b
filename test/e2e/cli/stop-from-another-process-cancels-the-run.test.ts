/**
 * stop --apply from another process ends the job: both the stop's result
 * and the run's result read cancelled (exit 5), and the workspace is ready
 * for the next job. The seed's Docker provider recorded such a job as
 * failure/137 (its issue #16); this is the regression test.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('stop across processes', () => {
  it('cancels a running job from a second process, both exiting 5', async () => {
    expect(cli(home, ['create', '--workspace-id', 'longrun']).code).toBe(0);
    const running = cliAsync(home, ['run', '--job-id', 'job-forever', 'longrun', 'block']);
    // Wait until the job is recorded as running.
    for (let i = 0; i < 100; i++) {
      if (cli(home, ['stop', 'longrun']).stdout.includes('job job-forever is running')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const busy = cli(home, ['run', 'longrun', 'echo', 'hi']);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toContain('job-forever');

    const stop = cli(home, ['stop', 'longrun', '--apply']);
    expect(stop.code, stop.stderr).toBe(5);
    const run = await running;
    expect(run.code, run.stderr).toBe(5);
    expect(run.stdout).toContain('cancelled');
    const job = JSON.parse(cli(home, ['inspect', 'job-forever', '--json']).stdout) as { status: string };
    expect(job.status).toBe('cancelled');
    expect(cli(home, ['run', 'longrun', 'echo', 'next']).code).toBe(0);
  });
});
