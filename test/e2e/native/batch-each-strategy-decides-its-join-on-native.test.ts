/**
 * `batch --strategy` (#16) on the native provider: the same joins as on fake,
 * with real processes — and a cancelled loser is gone: no process of its
 * command is left on the host once the batch has returned, and the
 * workspace's job cgroups hold nothing but idle standby launchers.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CGROUP_PARENT } from '../../../src/providers/native/cgroup-v1.js';
import { isIdleLauncher } from '../../../src/providers/native/launch-job.js';
import { cli, makeHome } from '../../helpers/cli.js';
import { hostProcesses, strategyCases } from '../../helpers/batch.js';
import { strategySuite } from '../../helpers/batch-strategy-suite.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'native' };
afterAll(async () => {
  cli(home, ['destroy', 'pool', '--force'], env);
  await cleanup();
});

/** Host processes running the losers' command (`sleep 29.7`, used by no other test). */
/** What each job cgroup of the workspace holds (the native layout: /sys/fs/cgroup/<controller>/headspace/<sha256(root)[:10]>-<id>/job-<k>). */
function jobCgroupPids(workspaceId: string): { cgroups: number; pids: number[] } {
  const name = `${createHash('sha256').update(join(home, 'native')).digest('hex').slice(0, 10)}-${workspaceId}`;
  let cgroups = 0;
  const pids: number[] = [];
  for (const controller of ['memory', 'pids', 'cpu', 'unified']) {
    const dir = join('/sys/fs/cgroup', controller, CGROUP_PARENT, name);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir).filter((e) => e.startsWith('job-'))) {
      cgroups++;
      const procs = readFileSync(join(dir, entry, 'cgroup.procs'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(Number);
      pids.push(...procs);
    }
  }
  return { cgroups, pids };
}

const loserProcesses = () => hostProcesses((argv) => argv.join(' ') === 'sleep 29.7 ');

describe.runIf(readiness.ready)(`each batch strategy on native${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  beforeAll(() => {
    const created = cli(home, ['create', '--workspace-id', 'pool', '--concurrency', '2'], env);
    expect(created.code, created.stderr).toBe(0);
  });
  strategySuite(() => strategyCases(home, 'pool', env));
  it('leaves no process of a cancelled loser behind', () => {
    expect(loserProcesses()).toEqual([]);
  });
  it("leaves no job process in the workspace's job cgroups, only idle standby launchers", () => {
    const { cgroups, pids } = jobCgroupPids('pool');
    expect(cgroups).toBeGreaterThan(0);
    expect(pids.filter((pid) => !isIdleLauncher(pid))).toEqual([]);
  });
  it('sees a running loser command with the same look, so the empty list above is not blindness', async () => {
    const started = cli(home, ['run', '--detach', '--job-id', 'seen', 'pool', 'sleep', '29.7'], env);
    expect(started.code, started.stderr).toBe(0);
    let seen: number[] = [];
    for (let i = 0; i < 200 && seen.length === 0; i++) {
      seen = loserProcesses();
      if (seen.length === 0) await new Promise((r) => setTimeout(r, 25));
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(cli(home, ['stop', 'pool', '--job-id', 'seen', '--apply', '--grace-seconds', '0'], env).code).toBe(5);
  });
});
