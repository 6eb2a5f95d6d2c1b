/**
 * The generated filter, run through a small BPF interpreter, must allow
 * ordinary calls whatever their arguments, refuse the dangerous ones with
 * EPERM, answer clone3 with ENOSYS (so libc falls back to clone), refuse
 * clone only when a CLONE_NEW* flag is set, and kill foreign ABIs.
 */
import { describe, expect, it } from 'vitest';
import { buildSeccompFilter, CLONE_NEW_FLAGS, ENOSYS, EPERM, evaluateSeccompFilter, SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO, SECCOMP_RET_KILL_PROCESS } from '../../../../src/providers/native/seccomp-program.js';
import { ARCH_TABLES, DENIED_SYSCALLS, type SeccompArch } from '../../../../src/providers/native/syscall-tables.js';

const ARCHES: SeccompArch[] = ['x86_64', 'aarch64'];
const EXECVE = { x86_64: 59, aarch64: 221 } as const;
const FORK_FLAGS = 0x01200011; // what glibc fork() passes: CHILD_SETTID | CHILD_CLEARTID | SIGCHLD
const THREAD_FLAGS = 0x003d0f00; // pthread_create

describe.each(ARCHES)('the %s filter', (arch) => {
  const filter = buildSeccompFilter(arch);
  const table = ARCH_TABLES[arch];
  const decide = (nr: number, arg0 = 0x7ffd1234) => evaluateSeccompFilter(filter, { arch: table.auditArch, nr, arg0 });

  it('allows execve whatever bits its pointer argument has', () => {
    for (const arg0 of [0, 0xffffffff, CLONE_NEW_FLAGS, 0x12345678]) expect(decide(EXECVE[arch], arg0)).toBe(SECCOMP_RET_ALLOW);
  });

  it('refuses every denied syscall with EPERM', () => {
    for (const name of DENIED_SYSCALLS) expect(decide(table.numbers[name]), name).toBe((SECCOMP_RET_ERRNO | EPERM) >>> 0);
  });

  it('answers clone3 with ENOSYS so libc falls back to clone', () => {
    expect(decide(table.numbers.clone3)).toBe((SECCOMP_RET_ERRNO | ENOSYS) >>> 0);
  });

  it('allows fork and threads but refuses clone with a namespace flag', () => {
    expect(decide(table.numbers.clone, FORK_FLAGS)).toBe(SECCOMP_RET_ALLOW);
    expect(decide(table.numbers.clone, THREAD_FLAGS)).toBe(SECCOMP_RET_ALLOW);
    for (const flag of [0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000]) {
      expect(decide(table.numbers.clone, FORK_FLAGS | flag)).toBe((SECCOMP_RET_ERRNO | EPERM) >>> 0);
    }
  });

  it('kills a call made under another architecture', () => {
    expect(evaluateSeccompFilter(filter, { arch: 0x40000003, nr: EXECVE[arch] })).toBe(SECCOMP_RET_KILL_PROCESS);
  });
});

it('kills the x32 ABI on x86_64', () => {
  const filter = buildSeccompFilter('x86_64');
  expect(evaluateSeccompFilter(filter, { arch: ARCH_TABLES.x86_64.auditArch, nr: 0x40000000 + 59 })).toBe(SECCOMP_RET_KILL_PROCESS);
});
