/**
 * Pure planner: the resource limits and umask every job starts with, set by
 * the job entry (helper/headspace-exec.c) just before it execs the command.
 *
 * Without them a job inherited whatever the process that started headspace
 * had: `ulimit -c unlimited`, umask 000 (files the job made were
 * -rw-rw-rw-), and an MCP service's LimitNOFILE=1048576, with which one
 * workspace filled the host's open-file table (a non-root process then gets
 * ENFILE host-wide) while its memory cgroup was charged only ~270 B per open
 * file (red team 2, item 1).
 *
 * Why the job entry and not the launcher: it is the last code before the
 * command in every path (standby or fresh launcher, placed as the job uid or
 * as root then setpriv), and bwrap's own setup keeps the caller's limits it
 * may need. And the per-uid limits (NPROC, SIGPENDING, MSGQUEUE) are counted
 * per user namespace since Linux 5.14 (ucounts): set inside the sandbox they
 * count this job's tasks only, not every process of the uid on the host
 * (measured: with NPROC 8 inside, 6 forks succeeded whether the same uid had
 * 0 or 30 processes outside), so they hold for a non-root caller whose jobs
 * run as its own uid too.
 *
 * A value above the inherited hard limit is lowered to it by the shim
 * (raising needs CAP_SYS_RESOURCE; lowering is always allowed), so a caller
 * that already set a lower hard limit keeps it.
 */
import type { Budget } from '../../core/policy/policy.js';

export type RlimitName =
  | 'AS'
  | 'CORE'
  | 'CPU'
  | 'DATA'
  | 'FSIZE'
  | 'LOCKS'
  | 'MEMLOCK'
  | 'MSGQUEUE'
  | 'NICE'
  | 'NOFILE'
  | 'NPROC'
  | 'RSS'
  | 'RTPRIO'
  | 'RTTIME'
  | 'SIGPENDING'
  | 'STACK';

/** `unlimited` is RLIM_INFINITY (still lowered to the inherited hard limit by the shim). */
export type RlimitValue = number | 'unlimited';

export interface RlimitSetting {
  name: RlimitName;
  soft: RlimitValue;
  hard: RlimitValue;
}

/**
 * Open descriptors one workspace's jobs may hold at once, across all their
 * processes: pids × RLIMIT_NOFILE hard stays at or below this (5% of this
 * VM's fs.file-max of 2.47 M; about 35 MiB of kernel memory at ~270 B a file).
 * It holds for pids budgets up to 2048; past that the per-process floor
 * (NOFILE_HARD_FLOOR) wins and the bound is pids × 64.
 */
export const OPEN_FILES_PER_WORKSPACE = 131_072;
export const NOFILE_SOFT = 1024;
export const NOFILE_HARD_CEILING = 4096;
/** Below this a shell, python or a compiler cannot do ordinary work. */
export const NOFILE_HARD_FLOOR = 64;

export const JOB_UMASK = 0o022;

const KIB = 1024;
const MIB = 1024 * KIB;

/** RLIMIT_NOFILE's hard limit for a pids budget: the workspace bound shared out, within [64, 4096]. */
export function nofileHard(pidsLimit: number): number {
  const share = Math.floor(OPEN_FILES_PER_WORKSPACE / Math.max(1, pidsLimit));
  return Math.min(NOFILE_HARD_CEILING, Math.max(NOFILE_HARD_FLOOR, share));
}

/** The whole table, one entry per Linux resource, so nothing of the caller's survives. */
export function planRlimits(budget: Pick<Budget, 'pidsLimit'>): RlimitSetting[] {
  const nofile = nofileHard(budget.pidsLimit);
  return [
    // No core files: a file core lands in /workspace, and a piped core_pattern hands the job's memory to a host helper
    // (systemd-coredump and apport honour RLIMIT_CORE 0). Hard 0, so the job cannot turn them back on.
    { name: 'CORE', soft: 0, hard: 0 },
    { name: 'NOFILE', soft: Math.min(NOFILE_SOFT, nofile), hard: nofile },
    // The usual 8 MiB; a finite hard limit, since an unlimited stack switches the job to the legacy mmap layout (less ASLR).
    { name: 'STACK', soft: 8 * MIB, hard: 64 * MIB },
    // Locked memory is charged to the memory cgroup, but it cannot be reclaimed under pressure: keep it to what gpg and friends use.
    { name: 'MEMLOCK', soft: 64 * KIB, hard: 64 * KIB },
    // Per user namespace (see above): this job's queued signals and POSIX message-queue bytes. The queue figure is the
    // kernel's own default (800 KiB): one queue of the default size takes about 80 KiB, so less refuses ordinary mq_open.
    { name: 'SIGPENDING', soft: 1024, hard: 1024 },
    { name: 'MSGQUEUE', soft: 800 * KIB, hard: 800 * KIB },
    // The pids budget again, counted in the sandbox's user namespace: the job's tasks plus bwrap's init (pid 1 there).
    // The pids cgroup is the enforced limit; this one still holds where the cgroup driver has no pids controller.
    { name: 'NPROC', soft: budget.pidsLimit + 1, hard: budget.pidsLimit + 1 },
    // No realtime scheduling (a SCHED_FIFO task is not held by the CFS cpu quota) and no raised priority.
    { name: 'RTPRIO', soft: 0, hard: 0 },
    { name: 'RTTIME', soft: 0, hard: 0 },
    { name: 'NICE', soft: 0, hard: 0 },
    // Budgets are enforced elsewhere (memory and cpu by the cgroup, storage by the image, wall clock by the engine):
    // these only clear whatever the caller had set, never above its hard limit.
    { name: 'CPU', soft: 'unlimited', hard: 'unlimited' },
    { name: 'FSIZE', soft: 'unlimited', hard: 'unlimited' },
    { name: 'DATA', soft: 'unlimited', hard: 'unlimited' },
    { name: 'AS', soft: 'unlimited', hard: 'unlimited' },
    { name: 'RSS', soft: 'unlimited', hard: 'unlimited' },
    { name: 'LOCKS', soft: 'unlimited', hard: 'unlimited' },
  ];
}

/** The shim's `--rlimit NAME SOFT HARD`… `--umask OCTAL` arguments. */
export function rlimitArgs(budget: Pick<Budget, 'pidsLimit'>): string[] {
  const args: string[] = [];
  for (const limit of planRlimits(budget)) args.push('--rlimit', limit.name, String(limit.soft), String(limit.hard));
  args.push('--umask', JOB_UMASK.toString(8).padStart(3, '0'));
  return args;
}
