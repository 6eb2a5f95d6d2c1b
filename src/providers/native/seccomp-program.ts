/**
 * Generates the job's seccomp filter as raw classic BPF (an array of 8-byte
 * `struct sock_filter`, host byte order), the format `bwrap --seccomp FD` loads.
 *
 * Shape: wrong audit arch → kill; (x86_64) x32 ABI → kill; clone3 → ENOSYS so
 * libc falls back to clone, where the flags are visible (clone3 passes them in
 * memory a filter cannot read); clone with any CLONE_NEW* flag → EPERM; the
 * denied list → EPERM; anything else → allow. Pure: same arch, same bytes.
 */
import { ARCH_TABLES, DENIED_SYSCALLS, type SeccompArch } from './syscall-tables.js';

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_JSET_K = 0x45;
const BPF_RET_K = 0x06;

export const SECCOMP_RET_KILL_PROCESS = 0x80000000;
export const SECCOMP_RET_ALLOW = 0x7fff0000;
export const SECCOMP_RET_ERRNO = 0x00050000;
export const EPERM = 1;
export const ENOSYS = 38;

/** Offsets into `struct seccomp_data`. args[0]'s low word sits at 16 on little-endian hosts. */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16;

/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET. */
export const CLONE_NEW_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

export interface SockFilter {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

type Label = 'allow' | 'eperm' | 'enosys' | 'kill' | 'clone';
type Insn = { code: number; k: number; jt?: Label; jf?: Label };

/** Builds the instruction list; jumps are resolved to offsets at the end. */
export function buildSeccompFilter(arch: SeccompArch): SockFilter[] {
  const table = ARCH_TABLES[arch];
  const body: Insn[] = [];
  body.push({ code: BPF_LD_W_ABS, k: OFFSET_ARCH });
  // Any other arch (e.g. i386 via int 0x80 on x86_64) uses other numbers: kill rather than misjudge.
  body.push({ code: BPF_JEQ_K, k: table.auditArch, jf: 'kill' });
  body.push({ code: BPF_LD_W_ABS, k: OFFSET_NR });
  if (table.x32Base !== undefined) body.push({ code: BPF_JGE_K, k: table.x32Base, jt: 'kill' });
  body.push({ code: BPF_JEQ_K, k: table.numbers.clone3, jt: 'enosys' });
  body.push({ code: BPF_JEQ_K, k: table.numbers.clone, jt: 'clone' });
  for (const name of DENIED_SYSCALLS) body.push({ code: BPF_JEQ_K, k: table.numbers[name], jt: 'eperm' });

  // Jumps only go forward, so each block ends in its own return: the body falls
  // through to `allow`, and the clone block returns allow itself rather than
  // jumping back (a fall-through into the clone test once denied execve).
  const tail: Array<[Label, Insn[]]> = [
    ['allow', [{ code: BPF_RET_K, k: SECCOMP_RET_ALLOW }]],
    [
      'clone',
      [
        { code: BPF_LD_W_ABS, k: OFFSET_ARG0_LOW },
        { code: BPF_JSET_K, k: CLONE_NEW_FLAGS, jt: 'eperm' },
        { code: BPF_RET_K, k: SECCOMP_RET_ALLOW },
      ],
    ],
    ['eperm', [{ code: BPF_RET_K, k: SECCOMP_RET_ERRNO | EPERM }]],
    ['enosys', [{ code: BPF_RET_K, k: SECCOMP_RET_ERRNO | ENOSYS }]],
    ['kill', [{ code: BPF_RET_K, k: SECCOMP_RET_KILL_PROCESS }]],
  ];
  const program: Insn[] = [...body];
  const at = new Map<Label, number>();
  for (const [label, insns] of tail) {
    at.set(label, program.length);
    program.push(...insns);
  }
  return program.map((insn, index) => ({
    code: insn.code,
    k: insn.k >>> 0,
    jt: insn.jt === undefined ? 0 : offset(at, insn.jt, index),
    jf: insn.jf === undefined ? 0 : offset(at, insn.jf, index),
  }));
}

function offset(at: Map<Label, number>, label: Label, index: number): number {
  const target = at.get(label);
  if (target === undefined) throw new Error(`seccomp: unknown label ${label}`);
  const distance = target - index - 1;
  // Classic BPF jumps are forward-only and 8-bit: a longer list needs a jump table.
  if (distance < 0 || distance > 255) throw new Error(`seccomp: jump to ${label} out of range (${distance})`);
  return distance;
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

/**
 * A tiny classic-BPF interpreter over the instructions this generator emits,
 * so tests can check decisions (allow / EPERM / ENOSYS / kill) per syscall
 * without loading the filter into a kernel.
 */
export function evaluateSeccompFilter(filter: readonly SockFilter[], data: { arch: number; nr: number; arg0?: number }): number {
  let acc = 0;
  let pc = 0;
  for (let steps = 0; steps < 4096 && pc < filter.length; steps++) {
    const insn = filter[pc]!;
    switch (insn.code) {
      case BPF_LD_W_ABS:
        acc = insn.k === OFFSET_ARCH ? data.arch >>> 0 : insn.k === OFFSET_NR ? data.nr >>> 0 : insn.k === OFFSET_ARG0_LOW ? (data.arg0 ?? 0) >>> 0 : 0;
        pc += 1;
        break;
      case BPF_JEQ_K:
        pc += 1 + (acc === insn.k ? insn.jt : insn.jf);
        break;
      case BPF_JGE_K:
        pc += 1 + (acc >= insn.k ? insn.jt : insn.jf);
        break;
      case BPF_JSET_K:
        pc += 1 + ((acc & insn.k) !== 0 ? insn.jt : insn.jf);
        break;
      case BPF_RET_K:
        return insn.k;
      default:
        throw new Error(`seccomp: unexpected opcode ${insn.code}`);
    }
  }
  throw new Error('seccomp: program fell off the end');
}
