/**
 * Turns the per-name decisions into a program body that finds a syscall's
 * decision in O(log n) instructions: the number line is cut into segments
 * of equal decision (unknown gaps are ENOSYS, neighbours with the same
 * return value merge), and a balanced binary search of JGE tests picks the
 * segment. A linear chain of ~350 JEQs would cost every call up to 350
 * steps. Leaves return directly, or run their argument check inline, so
 * every jump but the search's own is short; a search jump longer than
 * classic BPF's 8-bit offset goes through a JA trampoline.
 *
 * The kernel (5.11+) also pre-computes, per syscall number, whether a filter
 * always allows it without looking at arguments, and then skips the filter
 * for that number: this shape (loads of nr/arch only, JGE/JEQ/JSET/JA, RET)
 * is one it can evaluate, so common calls cost nothing at run time. Calls
 * with an argument rule (mmap among them) run the filter each time: about
 * ten instructions of search and a few of checks.
 */
import { andWith, argLowOffset, BPF_JEQ_K, BPF_JGE_K, BPF_JSET_K, jumpAlways, jumpIf, load, MAX_JUMP, ret, type SockFilter } from './seccomp-bpf.js';
import { ARCH_TABLES, type SeccompArch } from './syscall-tables.js';
import { decisionFor, ENOSYS, errno, KILL, type Decision } from './syscall-rules.js';

/** Numbers from `from` up to the next segment's start share `decision`. */
export interface Segment {
  from: number;
  decision: Decision;
}

/** The whole 32-bit number line for `arch`, in order, starting at 0. */
export function segmentsFor(arch: SeccompArch): Segment[] {
  const table = ARCH_TABLES[arch];
  const byNumber = [...table.numbers].map(([name, nr]) => ({ nr, decision: decisionFor(name) })).sort((a, b) => a.nr - b.nr);
  const segments: Segment[] = [];
  const push = (from: number, decision: Decision) => {
    const last = segments.at(-1);
    if (last !== undefined && typeof last.decision === 'number' && last.decision === decision) return;
    segments.push({ from, decision });
  };
  let next = 0;
  for (const { nr, decision } of byNumber) {
    if (nr > next) push(next, errno(ENOSYS));
    push(nr, decision);
    next = nr + 1;
  }
  push(next, errno(ENOSYS));
  if (table.x32Base !== undefined) {
    if (table.x32Base < next) throw new Error('seccomp: a syscall number lies in the x32 range');
    push(table.x32Base, KILL);
  }
  return segments;
}

/** The search over `segments`; the accumulator must hold the syscall number. */
export function emitSearch(segments: readonly Segment[]): SockFilter[] {
  const emit = (lo: number, hi: number): SockFilter[] => {
    if (lo === hi) return compileDecision(segments[lo]!.decision);
    const mid = (lo + hi + 1) >> 1;
    const below = emit(lo, mid - 1);
    const atOrAbove = emit(mid, hi);
    const split = segments[mid]!.from;
    if (below.length <= MAX_JUMP) return [jumpIf(BPF_JGE_K, split, below.length, 0), ...below, ...atOrAbove];
    // Too far for jt: fall into a JA that skips the lower half, or hop over it into the lower half.
    return [jumpIf(BPF_JGE_K, split, 0, 1), jumpAlways(below.length), ...below, ...atOrAbove];
  };
  return emit(0, segments.length - 1);
}

/**
 * One decision as a self-contained block that always returns: a RET, or a
 * load of one argument word (ANDed with its mask), its tests, the
 * `otherwise` block, then the case blocks (jumps only go forward, so the
 * blocks follow the tests). Cases with the same decision (the same return
 * value, or the same rule object, as AF_INET and AF_INET6 share) jump to one
 * block, and a case that decides what `otherwise` decides jumps there: the
 * socket rules would otherwise repeat their protocol checks.
 */
export function compileDecision(decision: Decision): SockFilter[] {
  if (typeof decision === 'number') return [ret(decision)];
  const otherwise = compileDecision(decision.otherwise);
  const targets: Decision[] = [];
  const blocks: SockFilter[][] = [];
  const offsets: number[] = []; // each case's target, counted from the end of the tests
  for (const c of decision.cases) {
    if (c.then === decision.otherwise) {
      offsets.push(0);
      continue;
    }
    let index = targets.indexOf(c.then);
    if (index < 0) {
      index = targets.push(c.then) - 1;
      blocks.push(compileDecision(c.then));
    }
    offsets.push(otherwise.length + blocks.slice(0, index).reduce((sum, block) => sum + block.length, 0));
  }
  const count = decision.cases.length;
  const tests = decision.cases.map((c, i) => jumpIf(c.when === 'equals' ? BPF_JEQ_K : BPF_JSET_K, c.value, count - 1 - i + offsets[i]!, 0));
  const masked = decision.mask === undefined ? [] : [andWith(decision.mask)];
  return [load(argLowOffset(decision.arg)), ...masked, ...tests, ...otherwise, ...blocks.flat()];
}
