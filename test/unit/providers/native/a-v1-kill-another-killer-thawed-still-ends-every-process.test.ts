/**
 * Two killers often meet on one cgroup v1 group: a stop kills the job's
 * cgroup while the job's own runner, seeing the stop sentinel, kills it too,
 * and each thaws the group after its round. A kill whose freeze the other
 * thawed once waited for FROZEN until its whole kill timeout (5 s for a
 * `stop --grace-seconds 0` of a job already exiting, bench/batch-cleanup.mjs's
 * p90). Here a busy group is killed while another process keeps thawing it:
 * the kill freezes again, kills, and returns as soon as the group is empty —
 * long before its (here 120 s) kill timeout — and only once no process is
 * left in it. Real cgroups: needs root and the v1 freezer, else skipped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCgroupMounts, readPids } from '../../../../src/providers/native/cgroup-fs.js';
import { CGROUP_PARENT, createCgroupV1Driver, v1ControllerDirs } from '../../../../src/providers/native/cgroup-v1.js';

const freezerDir = v1ControllerDirs(await readCgroupMounts().catch(() => [])).freezer;
const ready = freezerDir !== undefined && process.getuid?.() === 0;
const name = `hs-test-two-killers-${process.pid}`;
const group = freezerDir === undefined ? '' : join(freezerDir, CGROUP_PARENT, name);
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  if (existsSync(group)) {
    writeFileSync(join(group, 'freezer.state'), 'THAWED');
    for (const pid of readFileSync(join(group, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) process.kill(Number(pid), 'SIGKILL');
    try {
      rmdirSync(group);
    } catch {
      // emptied meanwhile by the kernel's exit path: retried by the next run's mkdir
    }
  }
});

describe.runIf(ready)(`a cgroup v1 kill${ready ? '' : ' (skipped: needs root and the v1 freezer)'}`, () => {
  it('ends every process of a group another killer keeps thawing, without waiting out its kill timeout', async () => {
    mkdirSync(group, { recursive: true });
    // A busy group: a shell placed in it starts 100 sleepers, so a freeze is not FROZEN at its first look.
    const placed = spawn('sh', ['-c', `echo $$ > ${join(group, 'cgroup.procs')}; for i in $(seq 100); do sleep 1000 & done; echo placed; wait`], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    children.push(placed);
    await new Promise<void>((resolve) => placed.stdout!.on('data', () => resolve()));
    expect((await readPids(join(group, 'cgroup.procs'))).length).toBeGreaterThan(100);
    // The other killer's thaws, as often as its rounds end.
    const thawer = spawn('sh', ['-c', `while :; do echo THAWED > ${join(group, 'freezer.state')} 2>/dev/null; sleep 0.002; done`], { stdio: 'ignore' });
    children.push(thawer);
    const driver = createCgroupV1Driver({ freezer: freezerDir! });
    const empty = await driver.kill(name, 120_000);
    thawer.kill('SIGKILL');
    expect(empty).toBe(true);
    expect(await readPids(join(group, 'cgroup.procs'))).toEqual([]);
    expect(await driver.isEmpty(name)).toBe(true);
  }, 30_000);
});
