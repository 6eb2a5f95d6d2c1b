/**
 * Syscall numbers the seccomp filter names, per architecture. Read from the
 * kernel's own tables (x86_64 `asm/unistd_64.h`, aarch64 `asm-generic/unistd.h`);
 * a wrong number here would silently allow the call, so a unit test pins them.
 */
export type SeccompArch = 'x86_64' | 'aarch64';

/** Syscalls refused with EPERM: kernel attack surface a job never needs. */
export const DENIED_SYSCALLS = [
  'ptrace',
  'mount',
  'umount2',
  'pivot_root',
  'open_tree',
  'move_mount',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  'keyctl',
  'add_key',
  'request_key',
  'bpf',
  'unshare',
  'setns',
  'perf_event_open',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'userfaultfd',
  'process_vm_readv',
  'process_vm_writev',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'open_by_handle_at',
  'name_to_handle_at',
] as const;

export type DeniedSyscall = (typeof DENIED_SYSCALLS)[number];
export type NamedSyscall = DeniedSyscall | 'clone' | 'clone3';

export interface ArchTable {
  /** AUDIT_ARCH_* value the kernel puts in seccomp_data.arch. */
  auditArch: number;
  /** x86_64 only: syscall numbers at or above this are the x32 ABI, which is killed. */
  x32Base?: number;
  numbers: Record<NamedSyscall, number>;
}

export const ARCH_TABLES: Readonly<Record<SeccompArch, ArchTable>> = Object.freeze({
  x86_64: {
    auditArch: 0xc000003e,
    x32Base: 0x40000000,
    numbers: {
      ptrace: 101,
      mount: 165,
      umount2: 166,
      pivot_root: 155,
      open_tree: 428,
      move_mount: 429,
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      mount_setattr: 442,
      keyctl: 250,
      add_key: 248,
      request_key: 249,
      bpf: 321,
      unshare: 272,
      setns: 308,
      perf_event_open: 298,
      kexec_load: 246,
      kexec_file_load: 320,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
      userfaultfd: 323,
      process_vm_readv: 310,
      process_vm_writev: 311,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      open_by_handle_at: 304,
      name_to_handle_at: 303,
      clone: 56,
      clone3: 435,
    },
  },
  aarch64: {
    auditArch: 0xc00000b7,
    numbers: {
      ptrace: 117,
      mount: 40,
      umount2: 39,
      pivot_root: 41,
      open_tree: 428,
      move_mount: 429,
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      mount_setattr: 442,
      keyctl: 219,
      add_key: 217,
      request_key: 218,
      bpf: 280,
      unshare: 97,
      setns: 268,
      perf_event_open: 241,
      kexec_load: 104,
      kexec_file_load: 294,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
      userfaultfd: 282,
      process_vm_readv: 270,
      process_vm_writev: 271,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      open_by_handle_at: 265,
      name_to_handle_at: 264,
      clone: 220,
      clone3: 435,
    },
  },
});

/** Maps Node's `process.arch` to a filter architecture; undefined when unsupported. */
export function seccompArchOf(nodeArch: string): SeccompArch | undefined {
  if (nodeArch === 'x64') return 'x86_64';
  if (nodeArch === 'arm64') return 'aarch64';
  return undefined;
}
