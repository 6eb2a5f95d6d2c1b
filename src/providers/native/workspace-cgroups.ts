/**
 * The native provider's cgroups, wired through the one driver contract
 * (cgroup-driver.ts; cgroup-v1.ts and cgroup-v2.ts implement it, and
 * choose-cgroup-driver.ts picks one when the host is probed): which cgroup a
 * workspace or a job slot has, and how a stop, a kill and a removal act on
 * them. Nothing here knows which cgroup version is underneath.
 */
import { writeFile } from 'node:fs/promises';
import type { StopOptions, StopReport } from '../../core/provider.js';
import type { CgroupDriver } from './cgroup-driver.js';
import { liveJobs, type SlotMarker } from './job-marker.js';
import { isIdleLauncher } from './launch-job.js';
import type { Layout } from './layout.js';
import { terminateJob } from './terminate-job.js';

/** stop's grace between SIGTERM and the kill when the caller names none. */
const DEFAULT_STOP_GRACE_MS = 5000;

export interface WorkspaceCgroups {
  /**
   * The cgroup a job in `slot` runs in: with one job at once the
   * workspace's own (the one-cgroup path), with several the slot's own
   * child, so a stop, a wall clock or the sweep after a job ends it alone.
   */
  ofJob(id: string, slot: number, atOnce: boolean): string;
  /** Kills whatever is in `cgroup` (a workspace's with its job children, or one job's); true when it is empty afterwards. */
  kill(driver: CgroupDriver, cgroup: string): Promise<boolean>;
  /** Ends the workspace's live jobs (or the one named): each its sentinel, TERM, a grace, then a kill. */
  stop(driver: CgroupDriver, id: string, options: StopOptions): Promise<StopReport>;
  /** Empties and removes the workspace's cgroups: what remove() reports for its runtime. */
  remove(driver: CgroupDriver, id: string): Promise<'removed' | 'retained' | 'unverified'>;
}

export function workspaceCgroups(layout: Layout, killTimeoutMs: number): WorkspaceCgroups {
  const kill = (driver: CgroupDriver, cgroup: string) => driver.kill(cgroup, killTimeoutMs);

  /** Ends one live job; true when its cgroup was emptied. */
  async function stopOne(driver: CgroupDriver, id: string, job: SlotMarker, graceMs: number): Promise<boolean> {
    // From the slot, not the marker's text: a stop never signals a cgroup that is not this workspace's.
    const cgroup = job.cgroup === undefined ? layout.cgroupName(id) : layout.jobCgroupName(id, job.slot);
    // The sentinel first, then the signals: run() reads it to report stopped=true (and honours it if it was not yet placed).
    await writeFile(layout.stopSentinelPath(id, job.jobId), `${process.pid}\n`);
    // TERM and a grace, so the job's own handler runs and its output is kept; then kill what remains.
    const ended = await terminateJob(driver, cgroup, graceMs);
    return ended || (await kill(driver, cgroup));
  }

  return {
    ofJob: (id, slot, atOnce) => (atOnce ? layout.jobCgroupName(id, slot) : layout.cgroupName(id)),
    kill,

    async stop(driver, id, options) {
      const cgroup = layout.cgroupName(id);
      const live = await liveJobs(layout.workspaceDir(id));
      // Asked to end one job: only that one; the others running beside it are left alone.
      const targets = options.jobId === undefined ? live : live.filter((job) => job.jobId === options.jobId);
      if (options.jobId !== undefined && targets.length === 0 && live.length > 0) return { stopped: false, empty: true };
      if (live.length === 0) {
        // An idle standby launcher (ours or another process's) is no job: it runs nothing until told to.
        const leftovers = (await driver.pids(cgroup)).some((pid) => !isIdleLauncher(pid));
        const empty = leftovers ? await kill(driver, cgroup) : true;
        return { stopped: leftovers, empty };
      }
      const graceMs = options.graceMs ?? DEFAULT_STOP_GRACE_MS;
      const ends = await Promise.all(targets.map((job) => stopOne(driver, id, job, graceMs)));
      return { stopped: true, empty: ends.every(Boolean) };
    },

    async remove(driver, id) {
      const cgroup = layout.cgroupName(id);
      let empty = false;
      let gone = false;
      // A standby another process spawns can land between the kill and the rmdir: kill again, then retry.
      for (let attempt = 0; attempt < 3 && !gone; attempt++) {
        empty = (await driver.isEmpty(cgroup)) || (await kill(driver, cgroup));
        gone = empty && (await driver.remove(cgroup));
      }
      return gone ? 'removed' : empty ? 'unverified' : 'retained';
    },
  };
}
