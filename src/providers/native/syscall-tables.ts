/**
 * The architectures the seccomp filter covers: the audit arch the kernel
 * reports in seccomp_data.arch, the x32 range (x86_64), and the syscall
 * numbers (syscall-numbers.ts). A call under any other audit arch (i386 via
 * int 0x80 on x86_64, arm32 on aarch64) uses other numbers and is killed.
 */
import { SYSCALL_NUMBERS } from './syscall-numbers.js';

export type SeccompArch = 'x86_64' | 'aarch64';

export interface ArchTable {
  /** AUDIT_ARCH_* value the kernel puts in seccomp_data.arch. */
  auditArch: number;
  /** x86_64 only: syscall numbers at or above this are the x32 ABI, which is killed. */
  x32Base?: number;
  /** Name → number for every syscall this architecture has (as far as the tables know). */
  numbers: ReadonlyMap<string, number>;
}

export const ARCH_TABLES: Readonly<Record<SeccompArch, ArchTable>> = Object.freeze({
  x86_64: { auditArch: 0xc000003e, x32Base: 0x40000000, numbers: SYSCALL_NUMBERS.x86_64 },
  aarch64: { auditArch: 0xc00000b7, numbers: SYSCALL_NUMBERS.aarch64 },
});

/** The number of `name` on `arch`; throws for a name the table lacks (a typo in a rule must not pass silently). */
export function syscallNumber(arch: SeccompArch, name: string): number {
  const nr = ARCH_TABLES[arch].numbers.get(name);
  if (nr === undefined) throw new Error(`seccomp: no syscall ${name} on ${arch}`);
  return nr;
}

/** Maps Node's `process.arch` to a filter architecture; undefined when unsupported. */
export function seccompArchOf(nodeArch: string): SeccompArch | undefined {
  if (nodeArch === 'x64') return 'x86_64';
  if (nodeArch === 'arm64') return 'aarch64';
  return undefined;
}
