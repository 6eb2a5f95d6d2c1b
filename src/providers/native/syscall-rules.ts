/**
 * What the job's seccomp filter decides, by syscall name: an allow-list
 * (#10 items 2 and 3). Anything not named here, and any number the tables
 * do not know, is answered ENOSYS, so a call a kernel adds tomorrow is
 * refused the day it appears and programs take their fallback path (as
 * glibc does for clone3). Calls that are known and dangerous answer EPERM.
 * A few calls are allowed only for some argument values; their rules look
 * at the low 32 bits of arguments, which is all the kernel reads for an
 * `int`/`unsigned int` parameter (socket's family, type and protocol,
 * ioctl's request, personality, memfd_create's and shmget's flags) and
 * where every CLONE_NEW* and MAP_HUGETLB bit lives. sync and syncfs are
 * skipped: they return 0 without running.
 */
import { ALLOW, EPERM, errno, ENOSYS, SKIP_AS_SUCCESS, type ArgCheck, type Decision } from './seccomp-decision.js';
import { SOCKET_RULE, SOCKETPAIR_RULE } from './syscall-socket-rules.js';

export * from './seccomp-decision.js';

/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET. */
export const CLONE_NEW_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

export const TIOCSTI = 0x5412;
export const TIOCLINUX = 0x541c;
export const TIOCSETD = 0x5423;
export const MFD_HUGETLB = 0x4;
export const MAP_HUGETLB = 0x40000;
export const SHM_HUGETLB = 0x800;
/** What Docker's default profile allows: PER_LINUX, PER_LINUX32, UNAME26, UNAME26|PER_LINUX32, and 0xffffffff (query only). */
export const PERSONALITIES = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff] as const;

/**
 * Hugetlb pages are not charged to the job's memory cgroup: memory behind
 * MFD_HUGETLB, MAP_HUGETLB or SHM_HUGETLB would escape the budget (and the
 * host's huge page pool is shared). The flag is refused with EPERM; the
 * same call without it is allowed. glibc's malloc (glibc.malloc.hugetlb=2)
 * falls back to ordinary pages on any error.
 */
const refuseFlag = (arg: number, flag: number): ArgCheck => ({ arg, cases: [{ when: 'any-bit-of', value: flag, then: errno(EPERM) }], otherwise: ALLOW });

/** Calls allowed only for some argument values. */
export const ARGUMENT_RULES: Readonly<Record<string, ArgCheck>> = {
  // New namespaces are bwrap's job, done before the filter loads; a job making its own would undo --disable-userns.
  clone: { arg: 0, cases: [{ when: 'any-bit-of', value: CLONE_NEW_FLAGS, then: errno(EPERM) }], otherwise: ALLOW },
  socket: SOCKET_RULE,
  socketpair: SOCKETPAIR_RULE,
  // ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC and friends weaken the job's own hardening (and what it execs).
  personality: { arg: 0, cases: PERSONALITIES.map((value) => ({ when: 'equals' as const, value, then: ALLOW })), otherwise: errno(EPERM) },
  // TIOCSTI pushes input into a terminal, TIOCLINUX reads/drives a Linux console: both reach outside the job.
  // TIOCSETD changes a tty's line discipline; with dev.tty.ldisc_autoload=1 (the default) that loads the
  // discipline's module into the host kernel on demand, through nothing more than a pty.
  ioctl: {
    arg: 1,
    cases: [
      { when: 'equals', value: TIOCSTI, then: errno(EPERM) },
      { when: 'equals', value: TIOCLINUX, then: errno(EPERM) },
      { when: 'equals', value: TIOCSETD, then: errno(EPERM) },
    ],
    otherwise: ALLOW,
  },
  // Flags in an int/unsigned long argument: memfd_create(name, flags), mmap(addr, len, prot, flags, ...), shmget(key, size, shmflg).
  memfd_create: refuseFlag(1, MFD_HUGETLB),
  mmap: refuseFlag(3, MAP_HUGETLB),
  shmget: refuseFlag(2, SHM_HUGETLB),
};

/**
 * sync() and syncfs() write back every dirty page of a whole filesystem:
 * sync() the host's, syncfs() the host's root when given a descriptor
 * under /usr. A job looping on them is a host-wide I/O nuisance. They
 * return success without running: nothing a job relies on is lost, since
 * its own files still reach the disk through fsync, fdatasync and
 * sync_file_range, which touch only the file named and stay allowed, and
 * through ordinary writeback.
 */
export const SKIPPED_SYSCALLS = ['sync', 'syncfs'] as const;

/**
 * clone3 passes its flags in memory a filter cannot read: ENOSYS makes
 * glibc fall back to clone, where CLONE_NEW* is visible.
 */
export const ENOSYS_SYSCALLS = ['clone3'] as const;

/**
 * Known and dangerous: kernel attack surface, other processes, the host's
 * mounts, time, keys, modules and devices. EPERM tells a program it is not
 * permitted (what it would see without capabilities), rather than missing.
 */
export const DENIED_SYSCALLS = [
  // mounts and namespaces
  'mount',
  'umount2',
  'pivot_root',
  'chroot',
  'open_tree',
  'open_tree_attr',
  'move_mount',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  'unshare',
  'setns',
  'listmount',
  'statmount',
  'listns',
  // other processes
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'kcmp',
  'pidfd_getfd',
  'process_madvise',
  'migrate_pages',
  'move_pages',
  // kernel attack surface
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'keyctl',
  'add_key',
  'request_key',
  'modify_ldt',
  'memfd_secret',
  'fanotify_init',
  'fanotify_mark',
  'lsm_get_self_attr',
  'lsm_set_self_attr',
  'lsm_list_modules',
  'name_to_handle_at',
  'open_by_handle_at',
  // Linux AIO contexts count against fs.aio-max-nr, one limit for the whole host: a job could use it all up
  // (io_setup with a huge nr_events) and make the host's own AIO users fail. libaio users fall back to threads.
  'io_setup',
  'io_destroy',
  'io_submit',
  'io_cancel',
  'io_getevents',
  'io_pgetevents',
  // the machine itself
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'reboot',
  'swapon',
  'swapoff',
  'acct',
  'settimeofday',
  'clock_settime',
  'sethostname',
  'setdomainname',
  'syslog',
  'quotactl',
  'quotactl_fd',
  'vhangup',
  'iopl',
  'ioperm',
] as const;

/**
 * Allowed whatever their arguments: what python, node, gcc/ld, git, make,
 * pip, sqlite and threaded programs use (close to Docker's default list),
 * plus what bwrap does after loading the filter (wait4, write, exit_group,
 * execve) and what a Landlock helper run inside needs (landlock_*,
 * close_range, prctl, execveat). Names an architecture lacks are skipped.
 */
export const ALLOWED_SYSCALLS = [
  // files and directories
  'read',
  'write',
  'open',
  'openat',
  'openat2',
  'creat',
  'close',
  'close_range',
  'lseek',
  'pread64',
  'pwrite64',
  'readv',
  'writev',
  'preadv',
  'pwritev',
  'preadv2',
  'pwritev2',
  'stat',
  'fstat',
  'lstat',
  'newfstatat',
  'statx',
  'statfs',
  'fstatfs',
  'access',
  'faccessat',
  'faccessat2',
  'fcntl',
  'flock',
  'fsync',
  'fdatasync',
  'sync_file_range',
  'truncate',
  'ftruncate',
  'fallocate',
  'fadvise64',
  'readahead',
  'getdents',
  'getdents64',
  'getcwd',
  'chdir',
  'fchdir',
  'rename',
  'renameat',
  'renameat2',
  'mkdir',
  'mkdirat',
  'rmdir',
  'link',
  'linkat',
  'unlink',
  'unlinkat',
  'symlink',
  'symlinkat',
  'readlink',
  'readlinkat',
  'chmod',
  'fchmod',
  'fchmodat',
  'fchmodat2',
  'chown',
  'fchown',
  'lchown',
  'fchownat',
  'umask',
  'mknod',
  'mknodat',
  'utime',
  'utimes',
  'futimesat',
  'utimensat',
  'setxattr',
  'lsetxattr',
  'fsetxattr',
  'getxattr',
  'lgetxattr',
  'fgetxattr',
  'listxattr',
  'llistxattr',
  'flistxattr',
  'removexattr',
  'lremovexattr',
  'fremovexattr',
  'copy_file_range',
  'sendfile',
  'splice',
  'tee',
  'vmsplice',
  'dup',
  'dup2',
  'dup3',
  'pipe',
  'pipe2',
  'inotify_init',
  'inotify_init1',
  'inotify_add_watch',
  'inotify_rm_watch',
  // polling, events, timers
  'poll',
  'ppoll',
  'select',
  'pselect6',
  'epoll_create',
  'epoll_create1',
  'epoll_ctl',
  'epoll_wait',
  'epoll_pwait',
  'epoll_pwait2',
  'eventfd',
  'eventfd2',
  'signalfd',
  'signalfd4',
  'timerfd_create',
  'timerfd_settime',
  'timerfd_gettime',
  'nanosleep',
  'clock_nanosleep',
  'clock_gettime',
  'clock_getres',
  'clock_adjtime',
  'adjtimex',
  'gettimeofday',
  'time',
  'times',
  'alarm',
  'getitimer',
  'setitimer',
  'pause',
  'timer_create',
  'timer_settime',
  'timer_gettime',
  'timer_getoverrun',
  'timer_delete',
  // memory
  'brk',
  'munmap',
  'mremap',
  'mprotect',
  'msync',
  'mincore',
  'madvise',
  'mlock',
  'mlock2',
  'munlock',
  'mlockall',
  'munlockall',
  'remap_file_pages',
  'pkey_mprotect',
  'pkey_alloc',
  'pkey_free',
  'map_shadow_stack',
  'membarrier',
  // processes, threads, signals
  'fork',
  'vfork',
  'execve',
  'execveat',
  'exit',
  'exit_group',
  'wait4',
  'waitid',
  'kill',
  'tkill',
  'tgkill',
  'getpid',
  'getppid',
  'gettid',
  'getpgid',
  'setpgid',
  'getpgrp',
  'getsid',
  'setsid',
  'set_tid_address',
  'set_robust_list',
  'get_robust_list',
  'rseq',
  'futex',
  'futex_waitv',
  'futex_wake',
  'futex_wait',
  'futex_requeue',
  'restart_syscall',
  'rt_sigaction',
  'rt_sigprocmask',
  'rt_sigreturn',
  'rt_sigpending',
  'rt_sigtimedwait',
  'rt_sigqueueinfo',
  'rt_tgsigqueueinfo',
  'rt_sigsuspend',
  'sigaltstack',
  'pidfd_open',
  'pidfd_send_signal',
  'prctl',
  'arch_prctl',
  'set_thread_area',
  'get_thread_area',
  'seccomp',
  'landlock_create_ruleset',
  'landlock_add_rule',
  'landlock_restrict_self',
  // scheduling and limits
  'sched_yield',
  'sched_setparam',
  'sched_getparam',
  'sched_setscheduler',
  'sched_getscheduler',
  'sched_get_priority_max',
  'sched_get_priority_min',
  'sched_rr_get_interval',
  'sched_setaffinity',
  'sched_getaffinity',
  'sched_setattr',
  'sched_getattr',
  'getpriority',
  'setpriority',
  'ioprio_get',
  'ioprio_set',
  'getrlimit',
  'setrlimit',
  'prlimit64',
  'getrusage',
  'getcpu',
  // identity (without capabilities a job can only drop what it has)
  'getuid',
  'geteuid',
  'getgid',
  'getegid',
  'getresuid',
  'getresgid',
  'getgroups',
  'setuid',
  'setgid',
  'setreuid',
  'setregid',
  'setresuid',
  'setresgid',
  'setfsuid',
  'setfsgid',
  'setgroups',
  'capget',
  'capset',
  'uname',
  'sysinfo',
  'getrandom',
  // sockets (socket and socketpair themselves are argument rules)
  'bind',
  'listen',
  'accept',
  'accept4',
  'connect',
  'getsockname',
  'getpeername',
  'sendto',
  'recvfrom',
  'sendmsg',
  'recvmsg',
  'sendmmsg',
  'recvmmsg',
  'setsockopt',
  'getsockopt',
  'shutdown',
  // System V and POSIX IPC (the job has its own IPC namespace)
  'shmat',
  'shmdt',
  'shmctl',
  'semget',
  'semop',
  'semtimedop',
  'semctl',
  'msgget',
  'msgsnd',
  'msgrcv',
  'msgctl',
  'mq_open',
  'mq_unlink',
  'mq_timedsend',
  'mq_timedreceive',
  'mq_notify',
  'mq_getsetattr',
] as const;

/** The decision for a syscall name, ENOSYS when the name is not on any list. */
export function decisionFor(name: string): Decision {
  const argRule = ARGUMENT_RULES[name];
  if (argRule !== undefined) return argRule;
  if ((ENOSYS_SYSCALLS as readonly string[]).includes(name)) return errno(ENOSYS);
  if ((SKIPPED_SYSCALLS as readonly string[]).includes(name)) return SKIP_AS_SUCCESS;
  if ((DENIED_SYSCALLS as readonly string[]).includes(name)) return errno(EPERM);
  if ((ALLOWED_SYSCALLS as readonly string[]).includes(name)) return ALLOW;
  return errno(ENOSYS);
}
