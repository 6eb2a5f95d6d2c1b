/**
 * The cgroup driver contract, and the probe that picks one.
 *
 * One cgroup per workspace (not per job): with one job at once, jobs are
 * placed into it by the launcher, and per-job figures come from counter
 * deltas (cpu usage, the OOM kill count) and a peak reset before each job. A
 * per-workspace cgroup saves the mkdir/rmdir per job and the EBUSY lag after
 * teardown. A workspace allowing several jobs at once gives each job slot a
 * child cgroup, made once and reused (prepareJob): the workspace's limits
 * stay on the parent, so all jobs share them.
 */
import type { Budget } from '../../core/policy/policy.js';
import type { JobUsage } from '../../core/provider.js';

export type CgroupKind = 'cgroup-v1' | 'cgroup-v2';

export interface CgroupSnapshot {
  cpuNs?: number;
  oomKills: number;
  /** v1 pids.peak before the job (not resettable): a job's peak is known only when it rose. */
  pidsPeak?: number;
}

export interface CgroupJobReport {
  oomKilled: boolean;
  usage: JobUsage;
}

export interface CgroupDriver {
  readonly kind: CgroupKind;
  /**
   * How the launcher may place itself: `job-uid` (procs files are chowned to
   * the job uid, v1 as root), `self` (the caller owns a delegated subtree and
   * runs jobs as itself), or `root-then-drop` (v2 as root: placement needs
   * root because of the common-ancestor rule, then setpriv drops to the job uid).
   */
  readonly placement: 'job-uid' | 'self' | 'root-then-drop';
  /** Creates the workspace cgroups if missing and writes the budget. Idempotent. */
  prepare(name: string, budget: Budget, owner: { uid: number; gid: number }): Promise<void>;
  /**
   * Creates a job's child cgroup `name` (`<workspace>/job-<k>`) if missing.
   * The workspace's limits on its parent bound all of its jobs together,
   * while kill, emptiness and the job's own counters (cpu, memory peak, OOM
   * kills) act on the child alone (#12 item 8). The child takes no limit of
   * its own but where one is needed to charge at all (v1's socket limit).
   */
  prepareJob(name: string, budget: Budget, owner: { uid: number; gid: number }): Promise<void>;
  /** The cgroup.procs files the launcher writes its own pid into, before exec'ing bwrap. */
  procsFiles(name: string): string[];
  /** Called just before a job: resets peaks and returns the counters to diff against. */
  beginJob(name: string): Promise<CgroupSnapshot>;
  endJob(name: string, before: CgroupSnapshot): Promise<CgroupJobReport>;
  /** Ends every process in the cgroup and its job children; true when it is empty afterwards. */
  kill(name: string, timeoutMs?: number): Promise<boolean>;
  /** No process in the cgroup nor in its job children. */
  isEmpty(name: string): Promise<boolean>;
  /** What the cgroup (with its job children) uses now: cpu so far, memory charged, tasks; a figure it cannot read is absent. */
  usage(name: string): Promise<{ cpuNs?: number; memoryBytes?: number; pids?: number }>;
  /** Every pid in the cgroup and its job children (the union over hierarchies). */
  pids(name: string): Promise<number[]>;
  /** Removes the cgroups (job children first); true when all are gone. */
  remove(name: string): Promise<boolean>;
}

export interface CgroupChoice {
  driver?: CgroupDriver;
  /** One line per driver considered: what was found. */
  details: string[];
  /** Which of memory/pids/cpu the chosen driver can enforce. */
  enforces: { memory: boolean; pids: boolean; cpu: boolean };
  /** Without a driver: what would give one on THIS kind of host (v1 only, v2 without delegation, …), in one line. */
  remedy?: string;
}

export function cpuQuota(cpuLimit: number, periodUs = 100_000): number {
  // The kernel refuses quotas under 1 ms.
  return Math.max(1000, Math.round(cpuLimit * periodUs));
}

/**
 * bwrap's own two processes (the setup parent and pid 1 of the namespace) and the launcher that reaps them
 * (headspace-exec.c, run_and_reap) count against pids.max, per job running at once.
 */
export const BWRAP_OWN_PIDS = 3;
