/**
 * A job starts with the ordinary execution domain and scheduling, whatever
 * its caller ran under (red team round 3): a caller under `setarch -R` (ASLR
 * off, as under a debugger), at a negative nice, in the realtime I/O class or
 * the SCHED_FIFO CPU class hands none of it to the job. The launcher resets
 * them before it places itself (a realtime task could not even join the
 * workspace's cgroup: that run used to fail as exit 7).
 */
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const home = makeHome();
afterAll(() => home.cleanup());
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', HEADSPACE_HOME: home.home, HEADSPACE_PROVIDER: 'native' };

function runUnder(wrapper: string[], script: string) {
  const r = spawnSync(wrapper[0]!, [...wrapper.slice(1), BIN, 'run', 'sched', '--', 'sh', '-c', script], { encoding: 'utf8', env, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout };
}

describe.runIf(readiness.ready && process.getuid?.() === 0)(`a job's scheduling (needs a ready native host as root: ${readiness.reason})`, () => {
  it('does not inherit ASLR off, a negative nice or the realtime I/O class', () => {
    expect(cli(home.home, ['create', '--workspace-id', 'sched'], { HEADSPACE_PROVIDER: 'native' }).code).toBe(0);
    const run = runUnder(
      ['setarch', 'x86_64', '-R', 'nice', '-n', '-7', 'ionice', '-c1', '-n0'],
      'echo "personality=$(cat /proc/self/personality)"; echo "nice=$(cut -d" " -f19 /proc/self/stat)"; echo "io=$(ionice)"',
    );
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain('personality=00000000');
    expect(run.stdout).toContain('nice=0');
    expect(run.stdout).toContain('io=best-effort');
  });

  it('runs a job from a SCHED_FIFO caller, as SCHED_OTHER', () => {
    const run = runUnder(['chrt', '-f', '1'], 'chrt -p $$');
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain('SCHED_OTHER');
  });
});
