/**
 * On the native provider with `--concurrency 2` (#12 item 8), the memory
 * budget is the workspace's, shared by its jobs: two jobs that each hold 60%
 * of it (each fine alone) cannot both have it, so one ends
 * resource_exhausted (exit 8) with the OOM kill counted in its own cgroup,
 * and nothing of either outlives its run. Failing before: native refused
 * --concurrency 2 at create.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';
import { layoutOf } from '../../../src/providers/native/layout.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);
const readiness = await nativeReadiness();
const NATIVE = { HEADSPACE_PROVIDER: 'native' };
const BUDGET = 256 * 1024 * 1024;
// Touches every page of 60% of the budget, then holds it.
const HOLD = `import time\nn=${Math.round(BUDGET * 0.6)}\nb=bytearray(n)\nfor i in range(0,n,4096): b[i]=1\ntime.sleep(2)\nprint("kept")`;

/**
 * A standby launcher waiting for the NEXT job (`headspace-exec --launch`,
 * not yet exec'd into bwrap) is no job's process: a long-lived engine
 * (`headspace serve`, mcp) keeps one placed in the workspace's cgroups.
 */
function isStandby(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, 2).join(' ').endsWith('headspace-exec --launch');
  } catch {
    return false; // gone: not left
  }
}

/** Every pid of a job still in the workspace's memory cgroup or its job children. */
function pidsLeft(id: string): number[] {
  const dir = join('/sys/fs/cgroup/memory/headspace', layoutOf(join(home, 'native')).cgroupName(id));
  const dirs = [
    dir,
    ...readdirSync(dir)
      .filter((d) => d.startsWith('job-'))
      .map((d) => join(dir, d)),
  ];
  return dirs.flatMap((d) =>
    readFileSync(join(d, 'cgroup.procs'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map(Number)
      .filter((pid) => !isStandby(pid)),
  );
}

describe.runIf(readiness.ready)('native memory budget with jobs at once', () => {
  it('ends one of two jobs that together exceed it as resource_exhausted, and nothing outlives them', async () => {
    expect(cli(home, ['create', '--workspace-id', 'mem', '--concurrency', '2', '--memory-bytes', String(BUDGET)], NATIVE).code).toBe(0);
    const alone = cli(home, ['run', '--json', 'mem', 'python3', '-c', HOLD], NATIVE);
    expect(alone.code, alone.stderr).toBe(0);
    const runs = await Promise.all(
      ['job-a', 'job-b'].map((jobId) => cliAsync(home, ['run', '--json', '--job-id', jobId, 'mem', 'python3', '-c', HOLD], NATIVE)),
    );
    const statuses = runs.map((r) => (JSON.parse(r.stdout) as { status: string }).status).sort();
    expect(statuses).toEqual(['resource_exhausted', 'success']);
    expect(runs.map((r) => r.code).sort()).toEqual([0, 8]);
    const killed = runs.find((r) => r.code === 8)!;
    expect((JSON.parse(killed.stdout) as { resource_usage: { max_memory_scope: string } }).resource_usage.max_memory_scope).toBe('job');
    if (existsMemoryV1()) expect(pidsLeft('mem')).toEqual([]);
  }, 60_000);
});

function existsMemoryV1(): boolean {
  try {
    readdirSync('/sys/fs/cgroup/memory/headspace');
    return true;
  } catch {
    return false;
  }
}
