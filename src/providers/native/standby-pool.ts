/**
 * Standby launchers: per job cgroup (the workspace's, or a job slot's child
 * when jobs run at once), one launcher already placed in it and waiting for
 * its go line (launch-job.ts). It takes the per-job cgroup migration (an RCU
 * grace-period wait, ~6 ms after idle) and the spawn off the job's path.
 * Kept only once this instance has run a job in that cgroup (a one-shot CLI
 * process never pays for one); discarded whenever anything else is found in
 * the cgroup. A slot's standby is placed in its final cgroup and serves only
 * a job that takes that slot.
 */
import type { JobUser } from '../../core/job-identity.js';
import type { CgroupDriver } from './cgroup-driver.js';
import { spawnLauncher, type Launcher, type Placement } from './launch-job.js';
import type { HostEnv } from './probe.js';

export interface StandbyPool {
  /** Our placed, idle standby for `cgroup` if it is still in it; anything else in there is a leftover. */
  take(driver: CgroupDriver, cgroup: string): Promise<{ standby?: Launcher; leftovers: boolean }>;
  /**
   * A job in `cgroup` has ended: from the second job there on, spawns the
   * next job's launcher now (after this turn), so it is placed by the time
   * the job is asked for; never for a workspace that is gone meanwhile.
   */
  jobEnded(cgroup: string, placement: () => Placement, workspaceStillThere: () => boolean): void;
  /**
   * Drops the standbys of the workspace whose cgroup is `workspaceCgroup`: its own and its job slots'.
   * Resolves once the ones it killed have exited (at most a second): their cgroup can be removed at the first try then.
   */
  drop(workspaceCgroup: string): Promise<void>;
}

/** How a launcher places itself in `cgroup` before it starts anything (cgroup-driver.ts `placement`). */
export function launcherPlacement(env: HostEnv, driver: CgroupDriver, cgroup: string, user: JobUser, launcherPath: string): Placement {
  return { launcherPath, procsFiles: driver.procsFiles(cgroup), ...(env.switchUser && driver.placement === 'job-uid' ? { spawnAs: user } : {}) };
}

export function standbyPool(): StandbyPool {
  const standbys = new Map<string, Launcher>();
  const ranIn = new Set<string>();

  const keep = (cgroup: string, placement: () => Placement, workspaceStillThere: () => boolean): void => {
    if (standbys.has(cgroup) || !workspaceStillThere()) return;
    const standby = spawnLauncher(placement());
    standby.unref();
    standbys.set(cgroup, standby);
    void standby.exited.then(() => {
      if (standbys.get(cgroup) === standby) standbys.delete(cgroup);
    });
  };

  return {
    async take(driver, cgroup) {
      const standby = standbys.get(cgroup);
      standbys.delete(cgroup);
      // An unref'd standby still being placed would let node exit under our await.
      standby?.ref();
      const usable = standby !== undefined && standby.idle() && (await standby.placed) && standby.idle();
      const pids = await driver.pids(cgroup);
      const own = usable ? standby.child.pid : undefined;
      if (usable && own !== undefined && pids.includes(own)) return { standby, leftovers: pids.some((p) => p !== own) };
      if (standby?.idle()) standby.child.kill('SIGKILL');
      return { leftovers: pids.length > 0 };
    },

    jobEnded(cgroup, placement, workspaceStillThere) {
      if (ranIn.has(cgroup)) setImmediate(() => keep(cgroup, placement, workspaceStillThere));
      ranIn.add(cgroup);
    },

    async drop(workspaceCgroup) {
      const ofWorkspace = (key: string) => key === workspaceCgroup || key.startsWith(`${workspaceCgroup}/`);
      for (const key of [...ranIn]) if (ofWorkspace(key)) ranIn.delete(key);
      const killed: Array<Promise<unknown>> = [];
      for (const [key, standby] of [...standbys]) {
        if (!ofWorkspace(key)) continue;
        standbys.delete(key);
        if (standby.idle()) {
          // Referenced again: an unref'd child's exit would not keep node alive while we wait for it.
          standby.ref();
          standby.child.kill('SIGKILL');
          killed.push(standby.exited);
        }
      }
      // Waiting for the exit event beats polling rmdir's EBUSY (#20); bounded, since the cgroup removal retries anyway.
      if (killed.length === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(killed), new Promise((resolve) => (timer = setTimeout(resolve, 1000)))]);
      clearTimeout(timer);
    },
  };
}
