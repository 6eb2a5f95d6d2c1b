/**
 * Standby launchers: per job cgroup (the workspace's, or a job slot's child
 * when jobs run at once), one launcher already placed in it and waiting for
 * its go line (launch-job.ts). It takes the per-job cgroup migration (an RCU
 * grace-period wait, ~6 ms after idle) and the spawn off the job's path.
 * Kept only once this instance has run a job in that cgroup (a one-shot CLI
 * process never pays for one); discarded whenever anything else is found in
 * the cgroup. A slot's standby is placed in its final cgroup and serves only
 * a job that takes that slot.
 *
 * When the next standby is spawned: its spawn forks node (~2.3 ms of the main
 * thread on this machine kind, #20), and whatever turn it lands in waits for
 * it. Spawned at once when a job ends, it lands inside the engine's result
 * (commit, inspect), so every call came back ~2 ms later. Spawned after
 * SPACED_DEFER_MS instead, it lands after the result has gone out — unless
 * the next job is asked for sooner, which then finds no standby and pays the
 * spawn and the placement wait (~6 ms) on its own path. So a cgroup whose
 * calls come back to back (the next take before the deferred spawn, or
 * within BACK_TO_BACK_GAP_MS of the last job's end: a loop, a batch, a
 * fan-out) keeps the spawn at once, within the job's end; one whose calls
 * are spaced (an agent thinking between them) gets it deferred.
 */
import { performance } from 'node:perf_hooks';
import type { JobUser } from '../../core/job-identity.js';
import type { CgroupDriver } from './cgroup-driver.js';
import { spawnLauncher, type Launcher, type Placement } from './launch-job.js';
import type { HostEnv } from './probe.js';

export interface StandbyPool {
  /** Our placed, idle standby for `cgroup` if it is still in it; anything else in there is a leftover. */
  take(driver: CgroupDriver, cgroup: string): Promise<{ standby?: Launcher; leftovers: boolean }>;
  /**
   * A job in `cgroup` has ended: from the second job there on, spawns the
   * next job's launcher, at once or SPACED_DEFER_MS later (see above), so it
   * is placed by the time the job is asked for; never for a workspace that
   * is gone meanwhile.
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

/** How long after a job's end a spaced cgroup's next standby is spawned: past the engine's result, well before a thinking agent's next call. */
export const SPACED_DEFER_MS = 10;
/**
 * A take this soon after the cgroup's last job ended counts as back to back.
 * Longer than SPACED_DEFER_MS plus a placement, so a loop slowed by a loaded
 * host (a result path of 10–20 ms) is not taken for spaced calls, which
 * would cost each of its jobs a spawn and a placement on its own path.
 */
export const BACK_TO_BACK_GAP_MS = 25;

/** What the pool needs from outside: the real ones in production, a test's own in the pool's unit test. */
export interface StandbyPoolDeps {
  spawn: (placement: Placement) => Launcher;
  now: () => number;
}

export function standbyPool(deps: StandbyPoolDeps = { spawn: spawnLauncher, now: () => performance.now() }): StandbyPool {
  const standbys = new Map<string, Launcher>();
  const ranIn = new Set<string>();
  /** Cgroups whose jobs come back to back (see above): their standby is spawned at once. */
  const backToBack = new Set<string>();
  /** Deferred spawns not yet due, by cgroup: a take before it fires cancels it and marks the cgroup back to back. */
  const deferred = new Map<string, NodeJS.Timeout>();
  const endedAt = new Map<string, number>();

  const keep = (cgroup: string, placement: () => Placement, workspaceStillThere: () => boolean): void => {
    if (standbys.has(cgroup) || !workspaceStillThere()) return;
    const standby = deps.spawn(placement());
    standby.unref();
    standbys.set(cgroup, standby);
    void standby.exited.then(() => {
      if (standbys.get(cgroup) === standby) standbys.delete(cgroup);
    });
  };

  return {
    async take(driver, cgroup) {
      const pending = deferred.get(cgroup);
      const ended = endedAt.get(cgroup);
      if (pending !== undefined) {
        // Asked for before a deferred spawn was due: this cgroup's jobs come back to back (and the spawn is this job's own now).
        clearTimeout(pending);
        deferred.delete(cgroup);
        backToBack.add(cgroup);
      } else if (ended !== undefined) {
        if (deps.now() - ended < BACK_TO_BACK_GAP_MS) backToBack.add(cgroup);
        else backToBack.delete(cgroup);
      }
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
      endedAt.set(cgroup, deps.now());
      if (ranIn.has(cgroup)) {
        // At once means now, not on a later turn: with no I/O wait in the result's path the next job's take can
        // come first, find no standby, spawn its own, and the late one would land in the running job's cgroup
        // (found there after the job, it is killed as a leftover: no loop job would ever get a standby).
        if (backToBack.has(cgroup)) keep(cgroup, placement, workspaceStillThere);
        else {
          clearTimeout(deferred.get(cgroup));
          const timer = setTimeout(() => {
            deferred.delete(cgroup);
            keep(cgroup, placement, workspaceStillThere);
          }, SPACED_DEFER_MS);
          // A library caller's script may end before it fires: it must not keep node alive for a standby nobody asks for.
          timer.unref();
          deferred.set(cgroup, timer);
        }
      }
      ranIn.add(cgroup);
    },

    async drop(workspaceCgroup) {
      const ofWorkspace = (key: string) => key === workspaceCgroup || key.startsWith(`${workspaceCgroup}/`);
      for (const key of [...ranIn]) if (ofWorkspace(key)) ranIn.delete(key);
      for (const key of [...backToBack]) if (ofWorkspace(key)) backToBack.delete(key);
      for (const key of [...endedAt.keys()]) if (ofWorkspace(key)) endedAt.delete(key);
      for (const [key, timer] of [...deferred]) {
        if (!ofWorkspace(key)) continue;
        clearTimeout(timer);
        deferred.delete(key);
      }
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
