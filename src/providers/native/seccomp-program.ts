/**
 * Generates the job's seccomp filter as raw classic BPF (an array of 8-byte
 * `struct sock_filter`, host byte order), the format `bwrap --seccomp FD`
 * loads. Default-deny (#10 items 2 and 3): the decisions are in
 * syscall-rules.ts, the search that finds them in seccomp-tree.ts.
 *
 * Shape: wrong audit arch → kill; load the number; binary search to the
 * call's decision: allow, EPERM (known dangerous), ENOSYS (unknown, and
 * clone3 so libc falls back to clone), skip-as-success (sync, syncfs), an
 * argument check (clone without CLONE_NEW*, socket family/type/protocol,
 * personality values, ioctl without TIOCSTI/TIOCLINUX/TIOCSETD, no hugetlb
 * flag for memfd_create/mmap/shmget), or (x86_64) kill for the x32 range.
 * Pure: same arch, same bytes.
 */
import { BPF_JEQ_K, jumpIf, load, OFFSET_ARCH, OFFSET_NR, ret, type SockFilter } from './seccomp-bpf.js';
import { emitSearch, segmentsFor } from './seccomp-tree.js';
import { KILL } from './syscall-rules.js';
import { ARCH_TABLES, type SeccompArch } from './syscall-tables.js';

export { evaluateSeccompFilter, type SeccompData, type SockFilter } from './seccomp-bpf.js';
export {
  CLONE_NEW_FLAGS,
  EAFNOSUPPORT,
  ENOSYS,
  EOPNOTSUPP,
  EPERM,
  EPROTONOSUPPORT,
  ESOCKTNOSUPPORT,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  SECCOMP_RET_KILL_PROCESS,
  SKIP_AS_SUCCESS,
} from './syscall-rules.js';

export function buildSeccompFilter(arch: SeccompArch): SockFilter[] {
  return [
    load(OFFSET_ARCH),
    // Any other arch (e.g. i386 via int 0x80 on x86_64) uses other numbers: kill rather than misjudge.
    jumpIf(BPF_JEQ_K, ARCH_TABLES[arch].auditArch, 1, 0),
    ret(KILL),
    load(OFFSET_NR),
    ...emitSearch(segmentsFor(arch)),
  ];
}

/** Serialises the filter as the kernel's `struct sock_filter[]` in little-endian (x86_64 and aarch64 both are). */
export function encodeSeccompFilter(filter: readonly SockFilter[]): Buffer {
  const bytes = Buffer.alloc(filter.length * 8);
  filter.forEach((insn, i) => {
    bytes.writeUInt16LE(insn.code, i * 8);
    bytes.writeUInt8(insn.jt, i * 8 + 2);
    bytes.writeUInt8(insn.jf, i * 8 + 3);
    bytes.writeUInt32LE(insn.k, i * 8 + 4);
  });
  return bytes;
}

export function seccompProgram(arch: SeccompArch): Buffer {
  return encodeSeccompFilter(buildSeccompFilter(arch));
}
