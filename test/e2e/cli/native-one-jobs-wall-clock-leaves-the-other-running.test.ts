/**
 * On the native provider with `--concurrency 2` (#12 item 8), the wall clock
 * ending one job kills that job's own cgroup only: a job started beside it,
 * still within its own wall clock, runs on to its normal end. Failing before:
 * native refused --concurrency 2 at create (and its abort killed the whole
 * workspace cgroup).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);
const readiness = await nativeReadiness();
const NATIVE = { HEADSPACE_PROVIDER: 'native' };

describe.runIf(readiness.ready)('native wall clock with jobs at once', () => {
  it('ends the job past its wall clock and leaves the other job to finish', async () => {
    expect(cli(home, ['create', '--workspace-id', 'clock', '--concurrency', '2', '--wall-clock-seconds', '2'], NATIVE).code).toBe(0);
    const late = cliAsync(home, ['run', '--job-id', 'job-late', 'clock', 'sleep', '30'], NATIVE);
    await new Promise((r) => setTimeout(r, 1000));
    // Starts 1 s later and ends about 0.5 s after the first job's wall clock fired.
    const beside = cliAsync(home, ['run', '--job-id', 'job-beside', 'clock', 'sh', '-c', 'sleep 1.5; echo survived'], NATIVE);
    const timedOut = await late;
    expect(timedOut.code, timedOut.stderr).toBe(4);
    const ended = await beside;
    expect(ended.code, ended.stderr).toBe(0);
    expect(cli(home, ['logs', 'job-beside'], NATIVE).stdout).toContain('survived');
  }, 60_000);
});
