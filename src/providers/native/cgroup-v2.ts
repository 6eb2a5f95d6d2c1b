/**
 * cgroup v2 driver (typical laptops: unified hierarchy, systemd user
 * delegation). As root it uses `<mount>/headspace/<name>`; as a normal user
 * it uses the highest ancestor of its own cgroup that it owns (a delegated
 * subtree, e.g. user@1000.service) and creates `headspace/<name>` below it.
 *
 * Kill = `cgroup.kill` (atomic, fork-bomb proof); emptiness from
 * `cgroup.events` populated; OOM from memory.events `oom_kill`.
 * Socket buffers need nothing extra here: memory.max covers them (planV2Limits).
 * Note: this project's VMs have no v2 controllers, so this driver is only
 * exercised by unit tests of its planning here, not end to end.
 */
import { access, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Budget } from '../../core/policy/policy.js';
import { BWRAP_OWN_PIDS, cpuQuota, type CgroupDriver, type CgroupJobReport, type CgroupSnapshot } from './cgroup-driver.js';
import { jobChildren, readKeyed, readNumber, readPids, removeCgroupDir, sleep } from './cgroup-fs.js';
import { CGROUP_PARENT } from './cgroup-v1.js';

export const V2_CONTROLLERS = ['memory', 'pids', 'cpu'] as const;

/** What a workspace group enables for its job children, so each job has its own counters. */
export const V2_JOB_SUBTREE_CONTROL = V2_CONTROLLERS.map((c) => `+${c}`).join(' ');

export interface V2Base {
  /** The directory that holds `headspace/`, whose subtree_control must enable our controllers. */
  delegateDir: string;
  placement: 'self' | 'root-then-drop';
}

/**
 * Finds where this process may create cgroups. Root: the mount root.
 * Otherwise: the highest ancestor of our own cgroup owned by our uid.
 */
export async function findV2Base(mountDir: string, uid: number): Promise<V2Base | undefined> {
  if (uid === 0) return { delegateDir: mountDir, placement: 'root-then-drop' };
  const self = (await readFile('/proc/self/cgroup', 'utf8')).split('\n').find((l) => l.startsWith('0::'));
  if (self === undefined) return undefined;
  let dir = join(mountDir, self.slice(3));
  let best: string | undefined;
  while (dir.startsWith(mountDir) && dir !== mountDir) {
    const owner = await stat(dir).then(
      (s) => s.uid,
      () => -1,
    );
    if (owner === uid) best = dir;
    dir = dirname(dir);
  }
  return best === undefined ? undefined : { delegateDir: best, placement: 'self' };
}

export async function v2ControllersAvailable(delegateDir: string): Promise<string[]> {
  const text = await readFile(join(delegateDir, 'cgroup.controllers'), 'utf8').catch(() => '');
  return text
    .trim()
    .split(/\s+/)
    .filter((c) => c !== '');
}

export interface V2Limit {
  file: string;
  value: string;
  /** Absent on some hosts (memory.swap.max without swap accounting): a failed write is not an error. */
  optional?: boolean;
}

/**
 * Pure: the files a workspace cgroup's budget is written to, in order.
 *
 * No socket-memory file, unlike v1 (socket-memory.ts): on v2 the kernel
 * charges socket buffers to memory.current (memory.stat `sock`) and
 * memory.max bounds them with everything else, so TCP/UDP buffers cannot
 * outgrow the memory budget and need no limit of their own.
 */
export function planV2Limits(budget: Budget): V2Limit[] {
  return [
    { file: 'memory.max', value: String(budget.memoryBytes) },
    // Swap would let a job exceed its memory budget.
    { file: 'memory.swap.max', value: '0', optional: true },
    { file: 'pids.max', value: String(budget.pidsLimit + BWRAP_OWN_PIDS * budget.concurrency) },
    { file: 'cpu.max', value: `${cpuQuota(budget.cpuLimit)} 100000` },
  ];
}

export function createCgroupV2Driver(base: V2Base): CgroupDriver {
  const parent = join(base.delegateDir, CGROUP_PARENT);
  const group = (name: string) => join(parent, name);
  const file = (name: string, f: string) => join(group(name), f);

  async function isEmpty(name: string): Promise<boolean> {
    const events = await readKeyed(file(name, 'cgroup.events'));
    // A missing cgroup holds nothing.
    return (events.get('populated') ?? 0) === 0;
  }

  async function snapshot(name: string): Promise<CgroupSnapshot> {
    const cpu = await readKeyed(file(name, 'cpu.stat'));
    const events = await readKeyed(file(name, 'memory.events'));
    const usec = cpu.get('usage_usec');
    return { ...(usec === undefined ? {} : { cpuNs: usec * 1000 }), oomKills: events.get('oom_kill') ?? 0 };
  }

  return {
    kind: 'cgroup-v2',
    placement: base.placement,
    async prepare(name: string, budget: Budget) {
      await mkdir(group(name), { recursive: true });
      const enable = V2_CONTROLLERS.map((c) => `+${c}`).join(' ');
      // Enabling in the delegate dir may already be done (or refused while it holds processes): check the child instead.
      await writeFile(join(base.delegateDir, 'cgroup.subtree_control'), enable).catch(() => undefined);
      await writeFile(join(parent, 'cgroup.subtree_control'), enable);
      for (const limit of planV2Limits(budget)) {
        const written = writeFile(file(name, limit.file), limit.value);
        await (limit.optional ? written.catch(() => undefined) : written);
      }
    },
    async prepareJob(name: string) {
      // No socket limit here, unlike v1: memory.max of the workspace bounds its children's sockets.
      await mkdir(group(name), { recursive: true });
      // The job's own counters (memory.peak, memory.events, pids.peak) need the controllers enabled
      // in the workspace group, which v2 allows only while it holds no process itself: with jobs at
      // once nothing runs there (no standby launcher). Refused, the child is still bounded by the
      // workspace's limits; only its own figures are missing.
      await writeFile(join(dirname(group(name)), 'cgroup.subtree_control'), V2_JOB_SUBTREE_CONTROL).catch(() => undefined);
    },
    procsFiles(name: string) {
      return [file(name, 'cgroup.procs')];
    },
    async beginJob(name: string) {
      return snapshot(name);
    },
    async endJob(name: string, before: CgroupSnapshot): Promise<CgroupJobReport> {
      const after = await snapshot(name);
      const usage: CgroupJobReport['usage'] = {};
      if (after.cpuNs !== undefined && before.cpuNs !== undefined) usage.cpuSeconds = Math.max(0, after.cpuNs - before.cpuNs) / 1e9;
      // memory.peak / pids.peak are workspace-lifetime peaks on v2 (no per-job reset before 6.12): an upper bound.
      const memPeak = await readNumber(file(name, 'memory.peak'));
      if (memPeak !== undefined) {
        usage.maxMemoryBytes = memPeak;
        usage.memoryScope = 'workspace'; // not reset per job: say so rather than pass it off as the job's
      }
      const pidsPeak = await readNumber(file(name, 'pids.peak'));
      if (pidsPeak !== undefined) usage.peakPids = Math.max(0, pidsPeak - BWRAP_OWN_PIDS);
      return { oomKilled: after.oomKills > before.oomKills, usage };
    },
    async kill(name: string, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      const exists = await access(group(name)).then(
        () => true,
        () => false,
      );
      if (!exists) return true;
      await writeFile(file(name, 'cgroup.kill'), '1');
      while (Date.now() < deadline) {
        if (await isEmpty(name)) return true;
        await sleep(5);
      }
      return isEmpty(name);
    },
    isEmpty,
    async usage(name: string) {
      const usec = (await readKeyed(file(name, 'cpu.stat'))).get('usage_usec');
      const memoryBytes = await readNumber(file(name, 'memory.current'));
      const pids = await readNumber(file(name, 'pids.current'));
      return {
        ...(usec === undefined ? {} : { cpuNs: usec * 1000 }),
        ...(memoryBytes === undefined ? {} : { memoryBytes }),
        ...(pids === undefined ? {} : { pids }),
      };
    },
    async pids(name: string) {
      const all = new Set<number>();
      for (const dir of [...jobChildren(group(name)), group(name)]) for (const pid of await readPids(join(dir, 'cgroup.procs'))) all.add(pid);
      return [...all];
    },
    async remove(name: string) {
      // Job children first: a cgroup with children cannot be removed.
      // Stops at the first that stays (its parent cannot go either): the caller kills again and retries.
      for (const dir of [...jobChildren(group(name)), group(name)]) if (!(await removeCgroupDir(dir))) return false;
      return true;
    },
  };
}
