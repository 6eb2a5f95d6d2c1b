/**
 * The cgroup v2 driver gives jobs at once (#12 item 8) the same shape as v1:
 * a job slot's child cgroup `<workspace>/job-<k>` with no limits of its own
 * (the workspace's bound all jobs together), the controllers enabled in the
 * workspace group so each child has its own counters, the launcher placed
 * into the child, the workspace's pids counting its children's, removal
 * taking the children first, and pids.max leaving room for bwrap's own two
 * processes and the launcher that reaps them, per job. Run against a plain directory standing in for the
 * delegated subtree: this project's hosts have no v2 controllers.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_BUDGET } from '../../../../src/core/policy/policy.js';
import { createCgroupV2Driver, planV2Limits, V2_JOB_SUBTREE_CONTROL } from '../../../../src/providers/native/cgroup-v2.js';

const base = mkdtempSync(join(tmpdir(), 'hs-v2-plan-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('the v2 driver with jobs at once', () => {
  const driver = createCgroupV2Driver({ delegateDir: base, placement: 'self' });
  const workspace = join(base, 'headspace', 'tag-ws');

  it('makes a slot child without limits, enables the controllers above it, and places the launcher there', async () => {
    await driver.prepare('tag-ws', { ...DEFAULT_BUDGET, concurrency: 2 }, { uid: 0, gid: 0 });
    await driver.prepareJob('tag-ws/job-1', DEFAULT_BUDGET, { uid: 0, gid: 0 });
    expect(existsSync(join(workspace, 'job-1'))).toBe(true);
    expect(existsSync(join(workspace, 'job-1', 'memory.max'))).toBe(false);
    expect(readFileSync(join(workspace, 'cgroup.subtree_control'), 'utf8')).toBe(V2_JOB_SUBTREE_CONTROL);
    expect(driver.procsFiles('tag-ws/job-1')).toEqual([join(workspace, 'job-1', 'cgroup.procs')]);
  });

  it("counts the children's processes as the workspace's and removes the children first", async () => {
    writeFileSync(join(workspace, 'job-1', 'cgroup.procs'), '41\n42\n');
    mkdirSync(join(workspace, 'job-0'));
    writeFileSync(join(workspace, 'job-0', 'cgroup.procs'), '43\n');
    expect((await driver.pids('tag-ws')).sort()).toEqual([41, 42, 43]);
    expect(await driver.pids('tag-ws/job-0')).toEqual([43]);
    rmSync(join(workspace, 'job-1', 'cgroup.procs'));
    rmSync(join(workspace, 'job-0', 'cgroup.procs'));
    await driver.remove('tag-ws'); // the parent holds plain files here, so only the children can go
    expect(existsSync(join(workspace, 'job-0'))).toBe(false);
    expect(existsSync(join(workspace, 'job-1'))).toBe(false);
  });

  it("leaves room in pids.max for each job's bwrap and launcher", () => {
    const pids = (concurrency: number) => planV2Limits({ ...DEFAULT_BUDGET, pidsLimit: 100, concurrency }).find((l) => l.file === 'pids.max')?.value;
    expect(pids(1)).toBe('103');
    expect(pids(3)).toBe('109');
  });
});
