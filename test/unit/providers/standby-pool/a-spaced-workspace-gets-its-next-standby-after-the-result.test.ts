/**
 * When the native provider spawns a workspace's next standby launcher (#20):
 * the spawn forks node (~2 ms of the main thread), so a job whose calls come
 * spaced out (an agent thinking between them) gets it SPACED_DEFER_MS after
 * its end, past the engine's result; a job asked for sooner marks the cgroup
 * back to back, and from then on its standby is spawned at once, within the
 * job's end, so the next job's take finds it even with no turn between (a
 * loop must not pay the spawn and the placement wait on every job's path),
 * until the calls are spaced again. No standby is kept before a cgroup's second job,
 * and a removed workspace's pending spawn never happens.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CgroupDriver } from '../../../../src/providers/native/cgroup-driver.js';
import type { Launcher, Placement } from '../../../../src/providers/native/launch-job.js';
import { SPACED_DEFER_MS, standbyPool, type StandbyPool } from '../../../../src/providers/native/standby-pool.js';

const CGROUP = 'headspace/ws-1';
const placement = (): Placement => ({ launcherPath: '/x/headspace-exec', procsFiles: [] });
const stillThere = () => true;

describe('when the next standby launcher is spawned', () => {
  let clock = 0;
  let spawned: Launcher[] = [];
  let pool: StandbyPool;
  const driver = { pids: async () => spawned.map((l) => l.child.pid!) } as unknown as CgroupDriver;

  function fakeLauncher(): Launcher {
    const pid = 1000 + spawned.length;
    return {
      child: { pid, kill: () => true } as unknown as Launcher['child'],
      placed: Promise.resolve(true),
      exited: new Promise(() => undefined),
      idle: () => true,
      start: () => undefined,
      unref: () => undefined,
      ref: () => undefined,
    };
  }

  /** One job in the cgroup: taken (with its standby, if any) `gap` ms after the last one ended, ended `runs` ms later. */
  async function job(gap: number, runs = 5): Promise<void> {
    clock += gap;
    await vi.advanceTimersByTimeAsync(gap);
    await pool.take(driver, CGROUP);
    clock += runs;
    pool.jobEnded(CGROUP, placement, stillThere);
  }

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    clock = 0;
    spawned = [];
    pool = standbyPool({
      spawn: () => {
        const launcher = fakeLauncher();
        spawned.push(launcher);
        return launcher;
      },
      now: () => clock,
    });
  });
  afterEach(() => vi.useRealTimers());

  it('keeps none after a cgroup first job', async () => {
    await job(0);
    await vi.advanceTimersByTimeAsync(SPACED_DEFER_MS * 10);
    expect(spawned).toHaveLength(0);
  });

  it('spawns a spaced cgroup standby only once SPACED_DEFER_MS have passed after the job end', async () => {
    await job(0);
    await job(1000);
    await vi.advanceTimersByTimeAsync(0); // the turn right after the job: where an at-once spawn would land
    expect(spawned).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(SPACED_DEFER_MS);
    expect(spawned).toHaveLength(1);
  });

  it('spawns at once for a cgroup whose next job came before the deferred spawn was due, and defers again once calls are spaced', async () => {
    await job(0);
    await job(1000);
    await job(1); // before the deferred spawn: back to back, and this job spawned its own launcher
    // At once means within the job's end, before any later turn: the next take may come with no turn between.
    expect(spawned).toHaveLength(1);
    const taken = await pool.take(driver, CGROUP);
    expect(taken.standby).toBe(spawned[0]);
    pool.jobEnded(CGROUP, placement, stillThere);
    expect(spawned).toHaveLength(2);
    await job(1000); // spaced again: the standby spawned at once waited, and the next one is deferred
    await vi.advanceTimersByTimeAsync(0);
    expect(spawned).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(SPACED_DEFER_MS);
    expect(spawned).toHaveLength(3);
  });

  it('never spawns the pending standby of a workspace removed before it was due', async () => {
    await job(0);
    await job(1000);
    await pool.drop('headspace/ws-1');
    await vi.advanceTimersByTimeAsync(SPACED_DEFER_MS * 10);
    expect(spawned).toHaveLength(0);
  });
});
