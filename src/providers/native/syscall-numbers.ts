/**
 * Syscall numbers by name, per architecture, as the kernel's own tables give
 * them: x86_64 `arch/x86/entry/syscalls/syscall_64.tbl`, aarch64
 * `include/uapi/asm-generic/unistd.h` (now `scripts/syscall.tbl`), both
 * sharing one numbering from 424 on. Each list's index is the number ('' =
 * unassigned). A wrong entry would misjudge a call, so a unit test checks
 * every name against the installed headers (linux-libc-dev); numbers newer
 * than Debian 12's headers (6.1, which stop at 450) are pinned below with
 * their source.
 */
import type { SeccompArch } from './syscall-tables.js';

/** x86_64 0–336. 335 `uretprobe` (Linux 6.11) and 336 `uprobe` (later) are pinned from syscall_64.tbl: the 6.1 headers stop at 334. */
const X86_64_LEGACY: readonly string[] = [
  /*   0 */ 'read', 'write', 'open', 'close', 'stat', 'fstat',
  /*   6 */ 'lstat', 'poll', 'lseek', 'mmap', 'mprotect', 'munmap',
  /*  12 */ 'brk', 'rt_sigaction', 'rt_sigprocmask', 'rt_sigreturn', 'ioctl', 'pread64',
  /*  18 */ 'pwrite64', 'readv', 'writev', 'access', 'pipe', 'select',
  /*  24 */ 'sched_yield', 'mremap', 'msync', 'mincore', 'madvise', 'shmget',
  /*  30 */ 'shmat', 'shmctl', 'dup', 'dup2', 'pause', 'nanosleep',
  /*  36 */ 'getitimer', 'alarm', 'setitimer', 'getpid', 'sendfile', 'socket',
  /*  42 */ 'connect', 'accept', 'sendto', 'recvfrom', 'sendmsg', 'recvmsg',
  /*  48 */ 'shutdown', 'bind', 'listen', 'getsockname', 'getpeername', 'socketpair',
  /*  54 */ 'setsockopt', 'getsockopt', 'clone', 'fork', 'vfork', 'execve',
  /*  60 */ 'exit', 'wait4', 'kill', 'uname', 'semget', 'semop',
  /*  66 */ 'semctl', 'shmdt', 'msgget', 'msgsnd', 'msgrcv', 'msgctl',
  /*  72 */ 'fcntl', 'flock', 'fsync', 'fdatasync', 'truncate', 'ftruncate',
  /*  78 */ 'getdents', 'getcwd', 'chdir', 'fchdir', 'rename', 'mkdir',
  /*  84 */ 'rmdir', 'creat', 'link', 'unlink', 'symlink', 'readlink',
  /*  90 */ 'chmod', 'fchmod', 'chown', 'fchown', 'lchown', 'umask',
  /*  96 */ 'gettimeofday', 'getrlimit', 'getrusage', 'sysinfo', 'times', 'ptrace',
  /* 102 */ 'getuid', 'syslog', 'getgid', 'setuid', 'setgid', 'geteuid',
  /* 108 */ 'getegid', 'setpgid', 'getppid', 'getpgrp', 'setsid', 'setreuid',
  /* 114 */ 'setregid', 'getgroups', 'setgroups', 'setresuid', 'getresuid', 'setresgid',
  /* 120 */ 'getresgid', 'getpgid', 'setfsuid', 'setfsgid', 'getsid', 'capget',
  /* 126 */ 'capset', 'rt_sigpending', 'rt_sigtimedwait', 'rt_sigqueueinfo', 'rt_sigsuspend', 'sigaltstack',
  /* 132 */ 'utime', 'mknod', 'uselib', 'personality', 'ustat', 'statfs',
  /* 138 */ 'fstatfs', 'sysfs', 'getpriority', 'setpriority', 'sched_setparam', 'sched_getparam',
  /* 144 */ 'sched_setscheduler', 'sched_getscheduler', 'sched_get_priority_max', 'sched_get_priority_min', 'sched_rr_get_interval', 'mlock',
  /* 150 */ 'munlock', 'mlockall', 'munlockall', 'vhangup', 'modify_ldt', 'pivot_root',
  /* 156 */ '_sysctl', 'prctl', 'arch_prctl', 'adjtimex', 'setrlimit', 'chroot',
  /* 162 */ 'sync', 'acct', 'settimeofday', 'mount', 'umount2', 'swapon',
  /* 168 */ 'swapoff', 'reboot', 'sethostname', 'setdomainname', 'iopl', 'ioperm',
  /* 174 */ 'create_module', 'init_module', 'delete_module', 'get_kernel_syms', 'query_module', 'quotactl',
  /* 180 */ 'nfsservctl', 'getpmsg', 'putpmsg', 'afs_syscall', 'tuxcall', 'security',
  /* 186 */ 'gettid', 'readahead', 'setxattr', 'lsetxattr', 'fsetxattr', 'getxattr',
  /* 192 */ 'lgetxattr', 'fgetxattr', 'listxattr', 'llistxattr', 'flistxattr', 'removexattr',
  /* 198 */ 'lremovexattr', 'fremovexattr', 'tkill', 'time', 'futex', 'sched_setaffinity',
  /* 204 */ 'sched_getaffinity', 'set_thread_area', 'io_setup', 'io_destroy', 'io_getevents', 'io_submit',
  /* 210 */ 'io_cancel', 'get_thread_area', 'lookup_dcookie', 'epoll_create', 'epoll_ctl_old', 'epoll_wait_old',
  /* 216 */ 'remap_file_pages', 'getdents64', 'set_tid_address', 'restart_syscall', 'semtimedop', 'fadvise64',
  /* 222 */ 'timer_create', 'timer_settime', 'timer_gettime', 'timer_getoverrun', 'timer_delete', 'clock_settime',
  /* 228 */ 'clock_gettime', 'clock_getres', 'clock_nanosleep', 'exit_group', 'epoll_wait', 'epoll_ctl',
  /* 234 */ 'tgkill', 'utimes', 'vserver', 'mbind', 'set_mempolicy', 'get_mempolicy',
  /* 240 */ 'mq_open', 'mq_unlink', 'mq_timedsend', 'mq_timedreceive', 'mq_notify', 'mq_getsetattr',
  /* 246 */ 'kexec_load', 'waitid', 'add_key', 'request_key', 'keyctl', 'ioprio_set',
  /* 252 */ 'ioprio_get', 'inotify_init', 'inotify_add_watch', 'inotify_rm_watch', 'migrate_pages', 'openat',
  /* 258 */ 'mkdirat', 'mknodat', 'fchownat', 'futimesat', 'newfstatat', 'unlinkat',
  /* 264 */ 'renameat', 'linkat', 'symlinkat', 'readlinkat', 'fchmodat', 'faccessat',
  /* 270 */ 'pselect6', 'ppoll', 'unshare', 'set_robust_list', 'get_robust_list', 'splice',
  /* 276 */ 'tee', 'sync_file_range', 'vmsplice', 'move_pages', 'utimensat', 'epoll_pwait',
  /* 282 */ 'signalfd', 'timerfd_create', 'eventfd', 'fallocate', 'timerfd_settime', 'timerfd_gettime',
  /* 288 */ 'accept4', 'signalfd4', 'eventfd2', 'epoll_create1', 'dup3', 'pipe2',
  /* 294 */ 'inotify_init1', 'preadv', 'pwritev', 'rt_tgsigqueueinfo', 'perf_event_open', 'recvmmsg',
  /* 300 */ 'fanotify_init', 'fanotify_mark', 'prlimit64', 'name_to_handle_at', 'open_by_handle_at', 'clock_adjtime',
  /* 306 */ 'syncfs', 'sendmmsg', 'setns', 'getcpu', 'process_vm_readv', 'process_vm_writev',
  /* 312 */ 'kcmp', 'finit_module', 'sched_setattr', 'sched_getattr', 'renameat2', 'seccomp',
  /* 318 */ 'getrandom', 'memfd_create', 'kexec_file_load', 'bpf', 'execveat', 'userfaultfd',
  /* 324 */ 'membarrier', 'mlock2', 'copy_file_range', 'preadv2', 'pwritev2', 'pkey_mprotect',
  /* 330 */ 'pkey_alloc', 'pkey_free', 'statx', 'io_pgetevents', 'rseq', 'uretprobe',
  /* 336 */ 'uprobe',
];

/** aarch64 0–294 (the generic table; 244–259 are per-architecture and unused on arm64). */
const AARCH64_LEGACY: readonly string[] = [
  /*   0 */ 'io_setup', 'io_destroy', 'io_submit', 'io_cancel', 'io_getevents', 'setxattr',
  /*   6 */ 'lsetxattr', 'fsetxattr', 'getxattr', 'lgetxattr', 'fgetxattr', 'listxattr',
  /*  12 */ 'llistxattr', 'flistxattr', 'removexattr', 'lremovexattr', 'fremovexattr', 'getcwd',
  /*  18 */ 'lookup_dcookie', 'eventfd2', 'epoll_create1', 'epoll_ctl', 'epoll_pwait', 'dup',
  /*  24 */ 'dup3', 'fcntl', 'inotify_init1', 'inotify_add_watch', 'inotify_rm_watch', 'ioctl',
  /*  30 */ 'ioprio_set', 'ioprio_get', 'flock', 'mknodat', 'mkdirat', 'unlinkat',
  /*  36 */ 'symlinkat', 'linkat', 'renameat', 'umount2', 'mount', 'pivot_root',
  /*  42 */ 'nfsservctl', 'statfs', 'fstatfs', 'truncate', 'ftruncate', 'fallocate',
  /*  48 */ 'faccessat', 'chdir', 'fchdir', 'chroot', 'fchmod', 'fchmodat',
  /*  54 */ 'fchownat', 'fchown', 'openat', 'close', 'vhangup', 'pipe2',
  /*  60 */ 'quotactl', 'getdents64', 'lseek', 'read', 'write', 'readv',
  /*  66 */ 'writev', 'pread64', 'pwrite64', 'preadv', 'pwritev', 'sendfile',
  /*  72 */ 'pselect6', 'ppoll', 'signalfd4', 'vmsplice', 'splice', 'tee',
  /*  78 */ 'readlinkat', 'newfstatat', 'fstat', 'sync', 'fsync', 'fdatasync',
  /*  84 */ 'sync_file_range', 'timerfd_create', 'timerfd_settime', 'timerfd_gettime', 'utimensat', 'acct',
  /*  90 */ 'capget', 'capset', 'personality', 'exit', 'exit_group', 'waitid',
  /*  96 */ 'set_tid_address', 'unshare', 'futex', 'set_robust_list', 'get_robust_list', 'nanosleep',
  /* 102 */ 'getitimer', 'setitimer', 'kexec_load', 'init_module', 'delete_module', 'timer_create',
  /* 108 */ 'timer_gettime', 'timer_getoverrun', 'timer_settime', 'timer_delete', 'clock_settime', 'clock_gettime',
  /* 114 */ 'clock_getres', 'clock_nanosleep', 'syslog', 'ptrace', 'sched_setparam', 'sched_setscheduler',
  /* 120 */ 'sched_getscheduler', 'sched_getparam', 'sched_setaffinity', 'sched_getaffinity', 'sched_yield', 'sched_get_priority_max',
  /* 126 */ 'sched_get_priority_min', 'sched_rr_get_interval', 'restart_syscall', 'kill', 'tkill', 'tgkill',
  /* 132 */ 'sigaltstack', 'rt_sigsuspend', 'rt_sigaction', 'rt_sigprocmask', 'rt_sigpending', 'rt_sigtimedwait',
  /* 138 */ 'rt_sigqueueinfo', 'rt_sigreturn', 'setpriority', 'getpriority', 'reboot', 'setregid',
  /* 144 */ 'setgid', 'setreuid', 'setuid', 'setresuid', 'getresuid', 'setresgid',
  /* 150 */ 'getresgid', 'setfsuid', 'setfsgid', 'times', 'setpgid', 'getpgid',
  /* 156 */ 'getsid', 'setsid', 'getgroups', 'setgroups', 'uname', 'sethostname',
  /* 162 */ 'setdomainname', 'getrlimit', 'setrlimit', 'getrusage', 'umask', 'prctl',
  /* 168 */ 'getcpu', 'gettimeofday', 'settimeofday', 'adjtimex', 'getpid', 'getppid',
  /* 174 */ 'getuid', 'geteuid', 'getgid', 'getegid', 'gettid', 'sysinfo',
  /* 180 */ 'mq_open', 'mq_unlink', 'mq_timedsend', 'mq_timedreceive', 'mq_notify', 'mq_getsetattr',
  /* 186 */ 'msgget', 'msgctl', 'msgrcv', 'msgsnd', 'semget', 'semctl',
  /* 192 */ 'semtimedop', 'semop', 'shmget', 'shmctl', 'shmat', 'shmdt',
  /* 198 */ 'socket', 'socketpair', 'bind', 'listen', 'accept', 'connect',
  /* 204 */ 'getsockname', 'getpeername', 'sendto', 'recvfrom', 'setsockopt', 'getsockopt',
  /* 210 */ 'shutdown', 'sendmsg', 'recvmsg', 'readahead', 'brk', 'munmap',
  /* 216 */ 'mremap', 'add_key', 'request_key', 'keyctl', 'clone', 'execve',
  /* 222 */ 'mmap', 'fadvise64', 'swapon', 'swapoff', 'mprotect', 'msync',
  /* 228 */ 'mlock', 'munlock', 'mlockall', 'munlockall', 'mincore', 'madvise',
  /* 234 */ 'remap_file_pages', 'mbind', 'get_mempolicy', 'set_mempolicy', 'migrate_pages', 'move_pages',
  /* 240 */ 'rt_tgsigqueueinfo', 'perf_event_open', 'accept4', 'recvmmsg', '', '',
  /* 246 */ '', '', '', '', '', '',
  /* 252 */ '', '', '', '', '', '',
  /* 258 */ '', '', 'wait4', 'prlimit64', 'fanotify_init', 'fanotify_mark',
  /* 264 */ 'name_to_handle_at', 'open_by_handle_at', 'clock_adjtime', 'syncfs', 'setns', 'sendmmsg',
  /* 270 */ 'process_vm_readv', 'process_vm_writev', 'kcmp', 'finit_module', 'sched_setattr', 'sched_getattr',
  /* 276 */ 'renameat2', 'seccomp', 'getrandom', 'memfd_create', 'bpf', 'execveat',
  /* 282 */ 'userfaultfd', 'membarrier', 'mlock2', 'copy_file_range', 'preadv2', 'pwritev2',
  /* 288 */ 'pkey_mprotect', 'pkey_alloc', 'pkey_free', 'statx', 'io_pgetevents', 'rseq',
  /* 294 */ 'kexec_file_load',
];

/**
 * 424 on, the same on both architectures. Up to 450 from the 6.1 headers;
 * 451–469 pinned from scripts/syscall.tbl as of Linux 6.17 (cachestat 6.5,
 * fchmodat2 6.6, map_shadow_stack 6.6, futex_wake/wait/requeue 6.7,
 * statmount/listmount 6.8, lsm_* 6.8, mseal 6.10, *xattrat 6.13,
 * open_tree_attr 6.15, file_getattr/file_setattr 6.17); 470 listns is the
 * next one mainline assigned after 6.18 (ENOSYS on this project's 6.18
 * kernel), named so it is refused the day a kernel has it.
 */
const COMMON_FROM = 424;
const COMMON: readonly string[] = [
  /* 424 */ 'pidfd_send_signal', 'io_uring_setup', 'io_uring_enter', 'io_uring_register', 'open_tree', 'move_mount',
  /* 430 */ 'fsopen', 'fsconfig', 'fsmount', 'fspick', 'pidfd_open', 'clone3',
  /* 436 */ 'close_range', 'openat2', 'pidfd_getfd', 'faccessat2', 'process_madvise', 'epoll_pwait2',
  /* 442 */ 'mount_setattr', 'quotactl_fd', 'landlock_create_ruleset', 'landlock_add_rule', 'landlock_restrict_self', 'memfd_secret',
  /* 448 */ 'process_mrelease', 'futex_waitv', 'set_mempolicy_home_node', 'cachestat', 'fchmodat2', 'map_shadow_stack',
  /* 454 */ 'futex_wake', 'futex_wait', 'futex_requeue', 'statmount', 'listmount', 'lsm_get_self_attr',
  /* 460 */ 'lsm_set_self_attr', 'lsm_list_modules', 'mseal', 'setxattrat', 'getxattrat', 'listxattrat',
  /* 466 */ 'removexattrat', 'open_tree_attr', 'file_getattr', 'file_setattr', 'listns',
];

function index(legacy: readonly string[]): ReadonlyMap<string, number> {
  const numbers = new Map<string, number>();
  legacy.forEach((name, nr) => name !== '' && numbers.set(name, nr));
  COMMON.forEach((name, i) => name !== '' && numbers.set(name, COMMON_FROM + i));
  return numbers;
}

export const SYSCALL_NUMBERS: Readonly<Record<SeccompArch, ReadonlyMap<string, number>>> = Object.freeze({
  x86_64: index(X86_64_LEGACY),
  aarch64: index(AARCH64_LEGACY),
});
