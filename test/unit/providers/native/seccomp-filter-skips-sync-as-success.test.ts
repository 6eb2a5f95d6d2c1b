/**
 * sync() and syncfs() write back whole filesystems, the host's included, so
 * the filter answers them SECCOMP_RET_ERRNO with data 0: the kernel skips
 * the call and the caller sees 0, success (second red team, #10). fsync,
 * fdatasync and sync_file_range write back only the file named, the job's
 * own, and stay allowed. That the kernel really returns 0 without running
 * the call is checked on the real kernel in
 * seccomp-errno-zero-skips-the-call.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  buildSeccompFilter,
  evaluateSeccompFilter,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  SKIP_AS_SUCCESS,
} from '../../../../src/providers/native/seccomp-program.js';
import { ARCH_TABLES, syscallNumber, type SeccompArch } from '../../../../src/providers/native/syscall-tables.js';

describe.each(['x86_64', 'aarch64'] as SeccompArch[])('on %s', (arch) => {
  const filter = buildSeccompFilter(arch);
  const decide = (name: string) => evaluateSeccompFilter(filter, { arch: ARCH_TABLES[arch].auditArch, nr: syscallNumber(arch, name), args: [3, 0, 0, 0] });

  it('answers sync and syncfs with errno 0, which is success without the call', () => {
    expect(SKIP_AS_SUCCESS).toBe(SECCOMP_RET_ERRNO);
    for (const name of ['sync', 'syncfs']) expect(decide(name), name).toBe(SECCOMP_RET_ERRNO);
  });

  it("keeps fsync, fdatasync and sync_file_range, which reach only the job's own files", () => {
    for (const name of ['fsync', 'fdatasync', 'sync_file_range']) expect(decide(name), name).toBe(SECCOMP_RET_ALLOW);
  });
});
