/**
 * The classic-BPF subset the seccomp generator emits, and a tiny interpreter
 * over exactly that subset, so unit tests can check decisions without a
 * kernel. The interpreter throws on anything else: emitting a new opcode or
 * load offset without teaching it here fails the tests instead of being
 * misjudged.
 */

export const BPF_LD_W_ABS = 0x20;
export const BPF_JA = 0x05;
export const BPF_JEQ_K = 0x15;
export const BPF_JGT_K = 0x25;
export const BPF_JGE_K = 0x35;
export const BPF_JSET_K = 0x45;
export const BPF_RET_K = 0x06;
export const BPF_ALU_AND_K = 0x54;

/** Offsets into `struct seccomp_data`: nr, arch, then args[n]'s low word at 16 + 8n (little-endian hosts). */
export const OFFSET_NR = 0;
export const OFFSET_ARCH = 4;
export const argLowOffset = (arg: number): number => 16 + 8 * arg;

/** Classic BPF conditional jumps are forward-only with 8-bit offsets. */
export const MAX_JUMP = 255;

export interface SockFilter {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

export const load = (offset: number): SockFilter => ({ code: BPF_LD_W_ABS, jt: 0, jf: 0, k: offset });
export const ret = (value: number): SockFilter => ({ code: BPF_RET_K, jt: 0, jf: 0, k: value >>> 0 });
/** acc &= mask (to drop flag bits before an equality test). */
export const andWith = (mask: number): SockFilter => ({ code: BPF_ALU_AND_K, jt: 0, jf: 0, k: mask >>> 0 });
/** An unconditional jump: its 32-bit offset reaches past what jt/jf can. */
export const jumpAlways = (distance: number): SockFilter => ({ code: BPF_JA, jt: 0, jf: 0, k: distance });
export function jumpIf(code: typeof BPF_JEQ_K | typeof BPF_JGT_K | typeof BPF_JGE_K | typeof BPF_JSET_K, k: number, jt: number, jf: number): SockFilter {
  if (jt < 0 || jt > MAX_JUMP || jf < 0 || jf > MAX_JUMP) throw new Error(`seccomp: jump out of range (${jt}, ${jf})`);
  return { code, jt, jf, k: k >>> 0 };
}

export interface SeccompData {
  arch: number;
  nr: number;
  /** Low 32 bits of args[0..5]; missing ones read as 0. */
  args?: readonly number[];
}

/** Runs `filter` on one call and returns the seccomp return value (allow / errno / kill). */
export function evaluateSeccompFilter(filter: readonly SockFilter[], data: SeccompData): number {
  let acc = 0;
  let pc = 0;
  for (let steps = 0; steps < 4096 && pc < filter.length; steps++) {
    const insn = filter[pc]!;
    switch (insn.code) {
      case BPF_LD_W_ABS:
        acc = loadWord(data, insn.k);
        pc += 1;
        break;
      case BPF_ALU_AND_K:
        acc = (acc & insn.k) >>> 0;
        pc += 1;
        break;
      case BPF_JA:
        pc += 1 + insn.k;
        break;
      case BPF_JEQ_K:
        pc += 1 + (acc === insn.k ? insn.jt : insn.jf);
        break;
      case BPF_JGT_K:
        pc += 1 + (acc > insn.k ? insn.jt : insn.jf);
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

function loadWord(data: SeccompData, offset: number): number {
  if (offset === OFFSET_NR) return data.nr >>> 0;
  if (offset === OFFSET_ARCH) return data.arch >>> 0;
  for (let arg = 0; arg < 6; arg++) if (offset === argLowOffset(arg)) return (data.args?.[arg] ?? 0) >>> 0;
  throw new Error(`seccomp: unexpected load offset ${offset}`);
}
