/**
 * Hugetlb pages are not charged to the job's memory cgroup, so the filter
 * refuses the flags that ask for them (second red team, #10):
 * memfd_create(MFD_HUGETLB), mmap(MAP_HUGETLB) and shmget(SHM_HUGETLB)
 * answer EPERM, whatever other flags come with them (including a huge page
 * size in MAP_HUGE_SHIFT's bits), while the same calls without the flag are
 * allowed.
 */
import { describe, expect, it } from 'vitest';
import { buildSeccompFilter, EPERM, evaluateSeccompFilter, SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO } from '../../../../src/providers/native/seccomp-program.js';
import { ARCH_TABLES, syscallNumber, type SeccompArch } from '../../../../src/providers/native/syscall-tables.js';

const refused = (SECCOMP_RET_ERRNO | EPERM) >>> 0;
const MFD = { CLOEXEC: 0x1, ALLOW_SEALING: 0x2, HUGETLB: 0x4, NOEXEC_SEAL: 0x8, EXEC: 0x10, HUGE_2MB: 21 << 26 };
const MAP = {
  SHARED: 0x1,
  PRIVATE: 0x2,
  FIXED: 0x10,
  ANONYMOUS: 0x20,
  NORESERVE: 0x4000,
  POPULATE: 0x8000,
  STACK: 0x20000,
  HUGETLB: 0x40000,
  HUGE_1GB: 30 << 26,
};
const SHM = { CREAT: 0o1000, EXCL: 0o2000, HUGETLB: 0o4000, NORESERVE: 0o10000 };

describe.each(['x86_64', 'aarch64'] as SeccompArch[])('on %s', (arch) => {
  const filter = buildSeccompFilter(arch);
  const decide = (name: string, args: number[]) => evaluateSeccompFilter(filter, { arch: ARCH_TABLES[arch].auditArch, nr: syscallNumber(arch, name), args });

  it('refuses memfd_create with MFD_HUGETLB and allows its other flags', () => {
    for (const flags of [MFD.HUGETLB, MFD.HUGETLB | MFD.CLOEXEC, MFD.HUGETLB | MFD.HUGE_2MB | MFD.ALLOW_SEALING])
      expect(decide('memfd_create', [0x1000, flags])).toBe(refused);
    for (const flags of [0, MFD.CLOEXEC, MFD.CLOEXEC | MFD.ALLOW_SEALING, MFD.NOEXEC_SEAL, MFD.EXEC])
      expect(decide('memfd_create', [0x1000, flags])).toBe(SECCOMP_RET_ALLOW);
  });

  it('refuses mmap with MAP_HUGETLB and allows every ordinary mapping', () => {
    for (const flags of [MAP.PRIVATE | MAP.ANONYMOUS | MAP.HUGETLB, MAP.SHARED | MAP.HUGETLB | MAP.HUGE_1GB, 0xffffffff])
      expect(decide('mmap', [0, 1 << 21, 3, flags, -1, 0])).toBe(refused);
    for (const flags of [
      MAP.PRIVATE | MAP.ANONYMOUS,
      MAP.SHARED,
      MAP.PRIVATE | MAP.FIXED,
      MAP.PRIVATE | MAP.ANONYMOUS | MAP.NORESERVE | MAP.STACK | MAP.POPULATE,
    ]) {
      expect(decide('mmap', [0, 4096, 3, flags, -1, 0]), `flags ${flags}`).toBe(SECCOMP_RET_ALLOW);
    }
  });

  it('refuses shmget with SHM_HUGETLB and allows ordinary segments', () => {
    for (const flags of [SHM.HUGETLB, SHM.HUGETLB | SHM.CREAT | 0o600]) expect(decide('shmget', [0, 1 << 21, flags])).toBe(refused);
    for (const flags of [0, SHM.CREAT | SHM.EXCL | 0o600, SHM.NORESERVE | 0o666]) expect(decide('shmget', [0, 4096, flags])).toBe(SECCOMP_RET_ALLOW);
  });
});
