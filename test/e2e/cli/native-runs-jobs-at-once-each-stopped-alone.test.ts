/**
 * On the native provider, `create --concurrency 2` (#12 item 8) runs two jobs
 * at once: each `run` gets its own result, their runs overlap in time, a
 * third is refused busy (exit 2), and `stop --job-id` ends that job alone
 * (each job is in its own child cgroup of the workspace's) while the other
 * finishes normally. Failing before: native refused --concurrency 2 at create.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);
const readiness = await nativeReadiness();
const NATIVE = { HEADSPACE_PROVIDER: 'native' };
const stamped = 'date +%s.%N; sleep 1.5; date +%s.%N; echo done';

function times(stdout: string): [number, number] {
  const [start, end] = stdout
    .split('\n')
    .filter((l) => /^\d+\.\d+$/.test(l))
    .map(Number);
  return [start!, end!];
}

describe.runIf(readiness.ready)('native --concurrency 2', () => {
  it('runs two jobs at once with their own results, refuses a third, and stops one alone', async () => {
    expect(cli(home, ['create', '--workspace-id', 'pair', '--concurrency', '2'], NATIVE).code).toBe(0);
    const first = cliAsync(home, ['run', '--json', '--job-id', 'job-one', 'pair', 'sh', '-c', stamped], NATIVE);
    const second = cliAsync(home, ['run', '--json', '--job-id', 'job-two', 'pair', 'sh', '-c', stamped], NATIVE);
    await new Promise((r) => setTimeout(r, 700));
    const busy = cli(home, ['run', 'pair', 'echo', 'third'], NATIVE);
    expect(busy.code, busy.stderr).toBe(2);
    const [one, two] = await Promise.all([first, second]);
    expect(one.code, one.stderr).toBe(0);
    expect(two.code, two.stderr).toBe(0);
    const a = JSON.parse(one.stdout) as { provenance: { job_id: string }; evidence: unknown };
    const b = JSON.parse(two.stdout) as { provenance: { job_id: string } };
    expect(a.provenance.job_id).toBe('job-one');
    expect(b.provenance.job_id).toBe('job-two');
    const full = (id: string) => cli(home, ['logs', id], NATIVE).stdout;
    const [s1, e1] = times(full('job-one'));
    const [s2, e2] = times(full('job-two'));
    // Overlap: each started before the other ended.
    expect(s1).toBeLessThan(e2);
    expect(s2).toBeLessThan(e1);

    const long = cliAsync(home, ['run', '--job-id', 'job-long', 'pair', 'sleep', '30'], NATIVE);
    const short = cliAsync(home, ['run', '--job-id', 'job-short', 'pair', 'sh', '-c', 'sleep 3; echo finished'], NATIVE);
    // Stop only once both are recorded running: a fixed 800 ms wait raced the records on a loaded machine.
    const running = (id: string) => {
      const seen = cli(home, ['inspect', id, '--json'], NATIVE);
      return seen.code === 0 && (JSON.parse(seen.stdout) as { status: string }).status === 'running';
    };
    for (let i = 0; i < 200 && !(running('job-long') && running('job-short')); i++) await new Promise((r) => setTimeout(r, 50));
    const stop = cli(home, ['stop', 'pair', '--job-id', 'job-long', '--apply', '--grace-seconds', '0'], NATIVE);
    expect(stop.code, stop.stderr).toBe(5);
    expect((await long).code).toBe(5);
    const ended = await short;
    expect(ended.code, ended.stderr).toBe(0);
    expect(full('job-short')).toContain('finished');
  }, 60_000);
});
