/**
 * `create --concurrency 2` (#12 item 8), through the built bin: two `run`
 * processes share the workspace at once, each with its own record and result;
 * a third is refused busy (exit 2) naming both; `stop W --job-id ID --apply`
 * ends that job alone (both it and its run exit 5) while the other runs on.
 * (On the fake provider; native's own jobs at once are tested in
 * native-runs-jobs-at-once-each-stopped-alone.test.ts.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

async function waitRunning(jobId: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const seen = cli(home, ['inspect', jobId, '--json']);
    if (seen.code === 0 && (JSON.parse(seen.stdout) as { status: string }).status === 'running') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${jobId} never read running`);
}

describe('create --concurrency 2', () => {
  it('runs two jobs at once, refuses a third, and stops one alone', async () => {
    expect(cli(home, ['create', '--workspace-id', 'pair', '--concurrency', '2']).code).toBe(0);
    const first = cliAsync(home, ['run', '--job-id', 'job-one', 'pair', 'block']);
    const second = cliAsync(home, ['run', '--job-id', 'job-two', 'pair', 'block']);
    await waitRunning('job-one');
    await waitRunning('job-two');

    const busy = cli(home, ['run', 'pair', 'echo', 'third']);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toContain('job-one');
    expect(busy.stderr).toContain('job-two');

    const stop = cli(home, ['stop', 'pair', '--job-id', 'job-one', '--apply', '--grace-seconds', '0', '--json']);
    expect(stop.code, stop.stderr).toBe(5);
    expect((JSON.parse(stop.stdout) as { provenance: { job_id: string } }).provenance.job_id).toBe('job-one');
    const one = await first;
    expect(one.code, one.stderr).toBe(5);
    expect(one.stdout).toContain('job-one');
    expect((JSON.parse(cli(home, ['inspect', 'job-two', '--json']).stdout) as { status: string }).status).toBe('running');

    expect(cli(home, ['stop', 'pair', '--job-id', 'job-two', '--apply', '--grace-seconds', '0']).code).toBe(5);
    const two = await second;
    expect(two.code, two.stderr).toBe(5);
    expect(two.stdout).toContain('job-two');
    expect(cli(home, ['run', 'pair', 'echo', 'next']).code).toBe(0);
  }, 60_000);
});
