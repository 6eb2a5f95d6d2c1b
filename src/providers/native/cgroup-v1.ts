/**
 * cgroup v1 driver (this project's VMs: no systemd, v1 controllers mounted
 * under /sys/fs/cgroup/{memory,pids,cpu,cpuacct,freezer}). Needs root: it
 * creates `headspace/<name>` in each hierarchy and chowns only the
 * cgroup.procs files to the job uid, so the unprivileged launcher can place
 * itself race-free before it execs bwrap.
 *
 * Socket buffers are bounded too (memory.kmem.tcp.limit_in_bytes, see
 * socket-memory.ts): without it v1 never charges them to the workspace.
 *
 * OOM comes from memory.oom_control's `oom_kill` counter (memory.failcnt
 * stays 0 on a real OOM here). Kill = rounds of freeze (at most 50 ms each),
 * SIGKILL every pid, thaw, until the group is empty, so a fork bomb cannot
 * outrun the kill loop and a freeze that cannot finish (another killer's
 * thaw) never holds the kill up to its timeout.
 */
import { chownSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import type { Budget } from '../../core/policy/policy.js';
import { BWRAP_OWN_PIDS, cpuQuota, type CgroupDriver, type CgroupJobReport, type CgroupSnapshot } from './cgroup-driver.js';
import { jobChildren, killPids, readKeyed, readNumber, readPids, removeCgroupDir, sleep, type CgroupMount } from './cgroup-fs.js';
import { hostNoPressurePages, socketBufferLimit, V1_SOCKET_LIMIT_FILE } from './socket-memory.js';

export const V1_CONTROLLERS = ['memory', 'pids', 'cpu', 'cpuacct', 'freezer'] as const;
export type V1Controller = (typeof V1_CONTROLLERS)[number];

export const CGROUP_PARENT = 'headspace';

/** Finds the mount of each v1 controller we use; a co-mounted `cpu,cpuacct` serves both. */
export function v1ControllerDirs(mounts: readonly CgroupMount[]): Partial<Record<V1Controller, string>> {
  const dirs: Partial<Record<V1Controller, string>> = {};
  for (const controller of V1_CONTROLLERS) {
    const mount = mounts.find((m) => m.version === 1 && m.controllers.includes(controller));
    if (mount !== undefined) dirs[controller] = mount.dir;
  }
  return dirs;
}

/** `noPressurePages`: the host's min(tcp_mem[0], udp_mem[0]), read once here by default (socket-memory.ts). */
export function createCgroupV1Driver(dirs: Partial<Record<V1Controller, string>>, noPressurePages = hostNoPressurePages()): CgroupDriver {
  // Distinct hierarchies only: a co-mounted cpu,cpuacct is one directory and one procs write.
  const hierarchies = [...new Set(Object.values(dirs))];
  const at = (controller: V1Controller, name: string, file: string): string | undefined => {
    const base = dirs[controller];
    return base === undefined ? undefined : join(base, CGROUP_PARENT, name, file);
  };
  const groupDirs = (name: string) => hierarchies.map((h) => join(h, CGROUP_PARENT, name));
  /** Each hierarchy's cgroup with its job children, children first (the order rmdir needs). */
  const treeDirs = (name: string) => groupDirs(name).flatMap((dir) => [...jobChildren(dir), dir]);

  async function isEmpty(name: string): Promise<boolean> {
    for (const dir of treeDirs(name)) {
      if ((await readPids(join(dir, 'cgroup.procs'))).length > 0) return false;
    }
    return true;
  }

  return {
    kind: 'cgroup-v1',
    placement: 'job-uid',
    async prepare(name: string, budget: Budget, owner: { uid: number; gid: number }) {
      // Runs before every job: it checks and repairs rather than rewrites, so a
      // prepared workspace costs a few stats and reads (~0.1 ms), and a cgroup
      // removed or altered since is recreated with the budget again.
      for (const dir of groupDirs(name)) {
        if (!isDirectory(dir)) mkdirSync(dir, { recursive: true });
        const procs = join(dir, 'cgroup.procs');
        const info = statSync(procs);
        if (info.uid !== owner.uid || info.gid !== owner.gid) chownSync(procs, owner.uid, owner.gid);
      }
      thawLeftFrozen(at('freezer', name, 'freezer.state'));
      const memory = at('memory', name, 'memory.limit_in_bytes');
      if (memory !== undefined) {
        writeMemoryLimit(memory, at('memory', name, 'memory.memsw.limit_in_bytes')!, budget.memoryBytes);
        // Before any job's socket exists: a socket made before the limit is never charged.
        ensureKept(at('memory', name, V1_SOCKET_LIMIT_FILE)!, String(socketBufferLimit(budget.memoryBytes, noPressurePages)));
      }
      const pids = at('pids', name, 'pids.max');
      if (pids !== undefined) ensureValue(pids, String(budget.pidsLimit + BWRAP_OWN_PIDS * budget.concurrency));
      const period = at('cpu', name, 'cpu.cfs_period_us');
      if (period !== undefined) {
        ensureValue(period, '100000');
        ensureValue(at('cpu', name, 'cpu.cfs_quota_us')!, String(cpuQuota(budget.cpuLimit)));
      }
    },
    async prepareJob(name: string, budget: Budget, owner: { uid: number; gid: number }) {
      // v1 memory (use_hierarchy is always 1 on current kernels), pids and cpu all
      // charge a child to its parent, whose limits are the budget.
      for (const dir of groupDirs(name)) {
        if (!isDirectory(dir)) mkdirSync(dir);
        const procs = join(dir, 'cgroup.procs');
        const info = statSync(procs);
        if (info.uid !== owner.uid || info.gid !== owner.gid) chownSync(procs, owner.uid, owner.gid);
      }
      thawLeftFrozen(at('freezer', name, 'freezer.state'));
      // Except sockets: v1 charges a socket's buffers only in a memory cgroup whose OWN
      // tcp limit was set (tcpmem_active), so a child without it held 256 MiB of buffers
      // past a 64 MiB budget (measured). Set in the child, the charge also climbs to the
      // parent's limit, which bounds all jobs' sockets together.
      const sockets = at('memory', name, V1_SOCKET_LIMIT_FILE);
      if (sockets !== undefined) ensureKept(sockets, String(socketBufferLimit(budget.memoryBytes, noPressurePages)));
    },
    procsFiles(name: string) {
      return groupDirs(name).map((dir) => join(dir, 'cgroup.procs'));
    },
    async beginJob(name: string): Promise<CgroupSnapshot> {
      // Peaks are per workspace cgroup: reset so this job's figure is its own.
      const maxUsage = at('memory', name, 'memory.max_usage_in_bytes');
      if (maxUsage !== undefined) tryWrite(maxUsage, '0');
      return snapshot(name);
    },
    async endJob(name: string, before: CgroupSnapshot): Promise<CgroupJobReport> {
      const after = await snapshot(name);
      const maxMemoryBytes = await readNumber(at('memory', name, 'memory.max_usage_in_bytes') ?? '');
      const peakPids = after.pidsPeak;
      const usage: CgroupJobReport['usage'] = {};
      if (after.cpuNs !== undefined && before.cpuNs !== undefined) usage.cpuSeconds = Math.max(0, after.cpuNs - before.cpuNs) / 1e9;
      if (maxMemoryBytes !== undefined) {
        usage.maxMemoryBytes = maxMemoryBytes;
        usage.memoryScope = 'job'; // reset in beginJob; with jobs at once `name` is the job's own slot child
      }
      // pids.peak is a workspace-lifetime figure that cannot be reset: it is this
      // job's only when it rose during the job. Otherwise say nothing rather than
      // report an earlier job's peak. It includes bwrap's own two processes.
      if (peakPids !== undefined && (before.pidsPeak === undefined || peakPids > before.pidsPeak)) usage.peakPids = Math.max(0, peakPids - BWRAP_OWN_PIDS);
      return { oomKilled: after.oomKills > before.oomKills, usage };
    },
    async kill(name: string, timeoutMs = 5000): Promise<boolean> {
      const freezer = at('freezer', name, 'freezer.state');
      // The freezer is hierarchical: freezing the workspace freezes its job children too.
      const procs = treeDirs(name).map((dir) => join(dir, 'cgroup.procs'));
      const deadline = Date.now() + timeoutMs;
      // A job already gone (it exited as the stop began) needs no freeze at all.
      if (await isEmpty(name)) return true;
      while (Date.now() < deadline) {
        const held = freezer === undefined ? 'none' : await freeze(freezer, Math.min(deadline, Date.now() + FREEZE_SLICE_MS));
        for (const file of procs) killPids(await readPids(file));
        // Thawed whether or not it read FROZEN: a task frozen in a partly frozen group takes its SIGKILL only once thawed.
        if (freezer !== undefined && held !== 'none') tryWrite(freezer, 'THAWED');
        // Done only when no process is left in the tree: a kill is never reported for processes that live on.
        if (await isEmpty(name)) return true;
        await sleep(2);
      }
      return isEmpty(name);
    },
    isEmpty,
    async usage(name: string) {
      // Hierarchical counters: the workspace's cgroup includes its job children.
      const cpuNs = await readNumber(at('cpuacct', name, 'cpuacct.usage') ?? '');
      const memoryBytes = await readNumber(at('memory', name, 'memory.usage_in_bytes') ?? '');
      const pids = await readNumber(at('pids', name, 'pids.current') ?? '');
      return { ...(cpuNs === undefined ? {} : { cpuNs }), ...(memoryBytes === undefined ? {} : { memoryBytes }), ...(pids === undefined ? {} : { pids }) };
    },
    async pids(name: string) {
      const all = new Set<number>();
      for (const dir of treeDirs(name)) for (const pid of await readPids(join(dir, 'cgroup.procs'))) all.add(pid);
      return [...all];
    },
    async remove(name: string) {
      // Stops at the first that stays: its parent cannot go either, and waiting out each would cost 5 s a hierarchy
      // while the caller could kill what is in it and try again (workspace-cgroups.ts remove).
      for (const dir of treeDirs(name)) if (!(await removeCgroupDir(dir))) return false;
      return true;
    },
  };

  async function snapshot(name: string): Promise<CgroupSnapshot> {
    const cpuNs = await readNumber(at('cpuacct', name, 'cpuacct.usage') ?? '');
    const oom = await readKeyed(at('memory', name, 'memory.oom_control') ?? '');
    const pidsPeak = await readNumber(at('pids', name, 'pids.peak') ?? '');
    return { ...(cpuNs === undefined ? {} : { cpuNs }), ...(pidsPeak === undefined ? {} : { pidsPeak }), oomKills: oom.get('oom_kill') ?? 0 };
  }
}

/**
 * Thaws a job cgroup found frozen before a job is placed in it. Only a kill
 * freezes, and a kill ends thawed; one found frozen was left by a killer that
 * died between its FROZEN and its THAWED (a caller SIGKILLed mid-stop). Left
 * so, the next job's launcher froze as it placed itself and the job failed
 * at its wall clock as infrastructure_failure. A live killer that meets the
 * thaw asks for FROZEN again (freeze below), so this never cuts a kill short.
 */
function thawLeftFrozen(stateFile: string | undefined): void {
  if (stateFile === undefined) return;
  if (readFileSync(stateFile, 'utf8').trim() !== 'THAWED') writeFileSync(stateFile, 'THAWED');
}

/** Writes `value` unless the file already holds it (a missing file throws, as a write would). */
function ensureValue(file: string, value: string): void {
  if (readFileSync(file, 'utf8').trim() !== value) writeFileSync(file, value);
}

/**
 * Writes `value` unless the file already holds it, then reads it back: a
 * kernel that accepts the write and ignores it (kmem limits became no-ops on
 * some kernels) must fail the workspace, not leave its sockets unbounded.
 */
function ensureKept(file: string, value: string): void {
  ensureValue(file, value);
  const kept = readFileSync(file, 'utf8').trim();
  if (kept !== value) {
    throw new ProviderError(`the kernel did not keep ${value} in ${file} (it reads ${kept.slice(0, 30)}): socket buffers would escape the memory budget`, {
      hint: 'the native provider needs a kernel whose cgroup v1 memory controller still bounds socket memory, or cgroup v2; doctor checks it',
      action: nextAction('doctor', { provider: 'native' }),
    });
  }
}

function tryWrite(file: string, value: string): void {
  try {
    writeFileSync(file, value);
  } catch {
    // Best effort (a peak reset, a thaw after the group emptied).
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The kernel keeps memory limits in whole pages: what reading back a written figure gives. */
function asStoredLimit(bytes: number): string {
  return String(Math.floor(bytes / 4096) * 4096);
}

/** memory.limit ≤ memsw.limit must hold at every step, so the order depends on the direction. */
function writeMemoryLimit(limitFile: string, memswFile: string, bytes: number): void {
  const hasMemsw = existsSync(memswFile);
  const want = asStoredLimit(bytes);
  const current = readFileSync(limitFile, 'utf8').trim();
  if (current === want && (!hasMemsw || readFileSync(memswFile, 'utf8').trim() === want)) return;
  try {
    writeFileSync(limitFile, String(bytes));
    // Swap would let a job exceed its memory budget: cap memory+swap at the same figure.
    if (hasMemsw) writeFileSync(memswFile, String(bytes));
  } catch {
    if (hasMemsw) writeFileSync(memswFile, String(bytes));
    writeFileSync(limitFile, String(bytes));
  }
}

/**
 * How long one freeze waits to read FROZEN before the kill goes ahead anyway (and freezes again on the next round).
 * A freeze once waited for FROZEN up to the whole kill timeout, and two killers of one cgroup meet often: a stop
 * writes the job's stop sentinel and kills, while the job's own runner, seeing the sentinel, kills too. The other
 * killer's thaw after its round left the group THAWED for good, so a kill with no grace of a job already exiting
 * waited out all 5 s (bench/batch-cleanup.mjs: p90 5 s) for a state nobody was heading to.
 */
const FREEZE_SLICE_MS = 50;

/** Freezes the group for at most until `until`: frozen, partly (asked, not yet FROZEN: it must be thawed), or not at all (no freezer). */
async function freeze(stateFile: string, until: number): Promise<'frozen' | 'partly' | 'none'> {
  try {
    writeFileSync(stateFile, 'FROZEN');
  } catch {
    // Freezer missing or refused: the plain kill loop.
    return 'none';
  }
  try {
    while (Date.now() < until) {
      const state = readFileSync(stateFile, 'utf8').trim();
      if (state === 'FROZEN') return 'frozen';
      // Another killer thawed it after its own round: ask again rather than wait for a freeze nobody is making.
      if (state === 'THAWED') writeFileSync(stateFile, 'FROZEN');
      await sleep(1);
    }
  } catch {
    // The group went (removed meanwhile): what is left to kill is read from its procs, which say so.
  }
  return 'partly';
}
