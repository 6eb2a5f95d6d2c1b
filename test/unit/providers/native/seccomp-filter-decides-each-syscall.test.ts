/**
 * The generated filter, run through the BPF interpreter, is default-deny:
 * it allows the listed calls whatever their arguments, refuses the known
 * dangerous ones with EPERM, answers unknown numbers (and clone3, so libc
 * falls back to clone) with ENOSYS, applies the argument rules for clone,
 * personality and ioctl, and kills foreign ABIs. The socket, hugetlb and
 * sync rules have their own files.
 */
import { describe, expect, it } from 'vitest';
import {
  buildSeccompFilter,
  CLONE_NEW_FLAGS,
  ENOSYS,
  EPERM,
  evaluateSeccompFilter,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  SECCOMP_RET_KILL_PROCESS,
} from '../../../../src/providers/native/seccomp-program.js';
import {
  ALLOWED_SYSCALLS,
  ARGUMENT_RULES,
  DENIED_SYSCALLS,
  ENOSYS_SYSCALLS,
  PERSONALITIES,
  SKIPPED_SYSCALLS,
} from '../../../../src/providers/native/syscall-rules.js';
import { ARCH_TABLES, syscallNumber, type SeccompArch } from '../../../../src/providers/native/syscall-tables.js';

const ARCHES: SeccompArch[] = ['x86_64', 'aarch64'];
const FORK_FLAGS = 0x01200011; // what glibc fork() passes: CHILD_SETTID | CHILD_CLEARTID | SIGCHLD
const THREAD_FLAGS = 0x003d0f00; // pthread_create
const err = (code: number) => (SECCOMP_RET_ERRNO | code) >>> 0;

describe.each(ARCHES)('the %s filter', (arch) => {
  const filter = buildSeccompFilter(arch);
  const table = ARCH_TABLES[arch];
  const decide = (name: string, args: number[] = [0x7ffd1234]) => evaluateSeccompFilter(filter, { arch: table.auditArch, nr: syscallNumber(arch, name), args });
  const has = (name: string) => table.numbers.has(name);

  it('allows every listed call whatever its arguments, including the Landlock helper and bwrap after the filter loads', () => {
    for (const name of ALLOWED_SYSCALLS.filter(has)) for (const a of [0, 0xffffffff]) expect(decide(name, [a, a, a, a, a, a]), name).toBe(SECCOMP_RET_ALLOW);
    for (const name of [
      'execve',
      'execveat',
      'prctl',
      'close_range',
      'landlock_create_ruleset',
      'landlock_add_rule',
      'landlock_restrict_self',
      'wait4',
      'exit_group',
    ]) {
      expect(decide(name), name).toBe(SECCOMP_RET_ALLOW);
    }
  });

  it('refuses every denied call with EPERM, including the ones a deny-list missed', () => {
    for (const name of DENIED_SYSCALLS.filter(has)) expect(decide(name), name).toBe(err(EPERM));
    for (const name of ['kcmp', 'fanotify_init', 'memfd_secret', 'listmount', 'statmount', 'open_tree_attr', 'lsm_get_self_attr'])
      expect(decide(name), name).toBe(err(EPERM));
  });

  it('answers clone3, unlisted calls and unknown numbers with ENOSYS so programs fall back', () => {
    for (const name of ENOSYS_SYSCALLS) expect(decide(name)).toBe(err(ENOSYS));
    for (const name of ['mseal', 'cachestat', 'process_mrelease', 'file_setattr', 'lookup_dcookie', 'mbind']) expect(decide(name), name).toBe(err(ENOSYS));
    for (const nr of [471, 1000, 0x3fffffff, ...(arch === 'aarch64' ? [295, 0x40000000, 0xffffffff] : [337, 423])]) {
      expect(evaluateSeccompFilter(filter, { arch: table.auditArch, nr }), String(nr)).toBe(err(ENOSYS));
    }
  });

  it('allows fork and threads but refuses clone with a namespace flag', () => {
    expect(decide('clone', [FORK_FLAGS])).toBe(SECCOMP_RET_ALLOW);
    expect(decide('clone', [THREAD_FLAGS])).toBe(SECCOMP_RET_ALLOW);
    for (let bit = 0; bit < 32; bit++) {
      const flag = (1 << bit) >>> 0;
      if ((flag & CLONE_NEW_FLAGS) !== 0) expect(decide('clone', [FORK_FLAGS | flag])).toBe(err(EPERM));
    }
  });

  it('allows personality only with the values real programs use', () => {
    for (const value of PERSONALITIES) expect(decide('personality', [value])).toBe(SECCOMP_RET_ALLOW);
    for (const value of [0x0040000 /* ADDR_NO_RANDOMIZE */, 0x0400000 /* READ_IMPLIES_EXEC */, 0x0008000, 0x1, 0xfffffffe])
      expect(decide('personality', [value])).toBe(err(EPERM));
  });

  it('refuses ioctl TIOCSTI, TIOCLINUX and TIOCSETD and allows other requests', () => {
    expect(decide('ioctl', [0, 0x5412])).toBe(err(EPERM));
    expect(decide('ioctl', [0, 0x541c])).toBe(err(EPERM));
    expect(decide('ioctl', [0, 0x5423])).toBe(err(EPERM));
    for (const request of [0x5401 /* TCGETS */, 0x5413 /* TIOCGWINSZ */, 0x541b /* FIONREAD */, 0x5411])
      expect(decide('ioctl', [1, request])).toBe(SECCOMP_RET_ALLOW);
  });

  it('kills a call made under another architecture', () => {
    for (const other of [0x40000003, 0x40000028, 0xc000003e ^ 0xc00000b7 ^ table.auditArch]) {
      expect(evaluateSeccompFilter(filter, { arch: other, nr: syscallNumber(arch, 'execve') })).toBe(SECCOMP_RET_KILL_PROCESS);
    }
  });
});

it('kills the x32 ABI on x86_64', () => {
  const filter = buildSeccompFilter('x86_64');
  for (const nr of [0x40000000 + 59, 0x40000000, 0xffffffff])
    expect(evaluateSeccompFilter(filter, { arch: ARCH_TABLES.x86_64.auditArch, nr })).toBe(SECCOMP_RET_KILL_PROCESS);
});

it('names only syscalls that exist on x86_64 or aarch64 in its lists (a typo would silently fall to ENOSYS)', () => {
  const known = (name: string) => ARCHES.some((arch) => ARCH_TABLES[arch].numbers.has(name));
  for (const name of [...ALLOWED_SYSCALLS, ...DENIED_SYSCALLS, ...ENOSYS_SYSCALLS, ...SKIPPED_SYSCALLS, ...Object.keys(ARGUMENT_RULES)])
    expect(known(name), name).toBe(true);
  const lists = [...ALLOWED_SYSCALLS, ...DENIED_SYSCALLS, ...ENOSYS_SYSCALLS, ...SKIPPED_SYSCALLS, ...Object.keys(ARGUMENT_RULES)];
  expect(new Set(lists).size, 'a name appears on two lists').toBe(lists.length);
});
