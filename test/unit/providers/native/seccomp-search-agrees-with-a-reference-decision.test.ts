/**
 * The binary search the filter uses must decide exactly what a plain lookup
 * would: for random syscall numbers (near every table entry and anywhere in
 * 32 bits), random argument words and both architectures, the interpreted
 * program returns what a straightforward function over the same tables and
 * rules returns. The search itself is also checked on random segment lists
 * long enough to need JA trampolines past the 8-bit jump range.
 * Seeded, so a failure is reproducible, and bounded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildSeccompFilter, ENOSYS, evaluateSeccompFilter } from '../../../../src/providers/native/seccomp-program.js';
import { BPF_JA, load, OFFSET_NR } from '../../../../src/providers/native/seccomp-bpf.js';
import { emitSearch, type Segment } from '../../../../src/providers/native/seccomp-tree.js';
import { decisionFor, errno, KILL, type Decision } from '../../../../src/providers/native/syscall-rules.js';
import { ARCH_TABLES, type SeccompArch } from '../../../../src/providers/native/syscall-tables.js';

const SEED = 0x5ecc0;

/** The decision without any search: find the name by number, then walk its argument rules. */
function reference(arch: SeccompArch, nr: number, args: readonly number[]): number {
  const table = ARCH_TABLES[arch];
  if (table.x32Base !== undefined && nr >= table.x32Base) return KILL;
  const name = [...table.numbers].find(([, n]) => n === nr)?.[0];
  return resolve(name === undefined ? errno(ENOSYS) : decisionFor(name), args);
}

function resolve(decision: Decision, args: readonly number[]): number {
  if (typeof decision === 'number') return decision >>> 0;
  const word = (args[decision.arg] ?? 0) >>> 0;
  const hit = decision.cases.find((c) => (c.when === 'equals' ? word === c.value >>> 0 : (word & c.value) !== 0));
  return resolve(hit ? hit.then : decision.otherwise, args);
}

const word = fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 64 }), fc.constantFrom(0x5412, 0x541c, 0x20008, 0xffffffff, 0x10000000));

describe.each(['x86_64', 'aarch64'] as const)('on %s', (arch) => {
  const filter = buildSeccompFilter(arch);
  const auditArch = ARCH_TABLES[arch].auditArch;
  const known = [...ARCH_TABLES[arch].numbers.values()];
  const nr = fc.oneof(
    fc.constantFrom(...known).chain((n) => fc.integer({ min: Math.max(0, n - 2), max: n + 2 })),
    fc.integer({ min: 0, max: 600 }),
    fc.integer({ min: 0, max: 0xffffffff }),
    fc.constantFrom(0x3fffffff, 0x40000000, 0xffffffff),
  );

  it('decides every call as the reference does', () => {
    fc.assert(
      fc.property(nr, fc.array(word, { minLength: 6, maxLength: 6 }), (n, args) => {
        expect(evaluateSeccompFilter(filter, { arch: auditArch, nr: n, args })).toBe(reference(arch, n, args));
      }),
      { seed: SEED, numRuns: 4000 },
    );
  });

  it('decides every number in the table and its neighbours as the reference does', () => {
    for (let n = 0; n <= Math.max(...known) + 2; n++) {
      for (const args of [[0, 0, 0], [2, 0x5412, 0], [16, 3, 4], [0x40, 0, 0]]) expect(evaluateSeccompFilter(filter, { arch: auditArch, nr: n, args }), `nr ${n}`).toBe(reference(arch, n, args));
    }
  });
});

describe('the search on its own', () => {
  // Ascending starts from 0, each with a return value; long lists force far jumps through JA.
  const segments = fc
    .array(fc.tuple(fc.integer({ min: 1, max: 5000 }), fc.integer({ min: 0, max: 7 })), { minLength: 1, maxLength: 700, size: 'max' })
    .map((steps) => {
      let from = 0;
      return steps.map(([gap, value], i): Segment => {
        if (i > 0) from += gap;
        return { from, decision: 0x50000 + value };
      });
    });

  it('finds the segment holding each number, with trampolines where a jump is too far', () => {
    let sawTrampoline = false;
    fc.assert(
      fc.property(segments, fc.array(fc.integer({ min: 0, max: 4_000_000 }), { minLength: 20, maxLength: 20 }), (segs, probes) => {
        const program = [load(OFFSET_NR), ...emitSearch(segs)];
        sawTrampoline ||= program.some((insn) => insn.code === BPF_JA);
        for (const n of [...probes, ...segs.map((s) => s.from), ...segs.map((s) => s.from - 1).filter((x) => x >= 0)]) {
          const expected = [...segs].reverse().find((s) => s.from <= n)!.decision;
          expect(evaluateSeccompFilter(program, { arch: 0, nr: n })).toBe(expected);
        }
      }),
      { seed: SEED, numRuns: 150 },
    );
    expect(sawTrampoline).toBe(true);
  });
});
