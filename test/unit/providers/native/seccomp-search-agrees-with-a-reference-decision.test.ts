/**
 * The binary search the filter uses must decide exactly what a plain lookup
 * would: for random syscall numbers (near every table entry and anywhere in
 * 32 bits), random argument words (biased towards the values and flag bits
 * the argument rules test: socket families, types with SOCK_NONBLOCK/
 * SOCK_CLOEXEC, protocols, ioctl requests, hugetlb flags) and both
 * architectures, the interpreted
 * program returns what a straightforward function over the same tables and
 * rules returns. The search itself is also checked on random segment lists
 * long enough to need JA trampolines past the 8-bit jump range.
 * Seeded, so a failure is reproducible, and bounded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildSeccompFilter, ENOSYS, evaluateSeccompFilter } from '../../../../src/providers/native/seccomp-program.js';
import { BPF_JA, load, OFFSET_NR } from '../../../../src/providers/native/seccomp-bpf.js';
import { compileDecision, emitSearch, type Segment } from '../../../../src/providers/native/seccomp-tree.js';
import { ARGUMENT_RULES, decisionFor, errno, KILL, type ArgCheck, type Decision } from '../../../../src/providers/native/syscall-rules.js';
import { ARCH_TABLES, syscallNumber, type SeccompArch } from '../../../../src/providers/native/syscall-tables.js';

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
  const word = ((args[decision.arg] ?? 0) & (decision.mask ?? 0xffffffff)) >>> 0;
  const hit = decision.cases.find((c) => (c.when === 'equals' ? word === c.value >>> 0 : (word & c.value) !== 0));
  return resolve(hit ? hit.then : decision.otherwise, args);
}

/** Random words, small numbers (families, types, protocols, fds), and the values the argument rules name, alone or with flag bits. */
const ruleValue = fc.constantFrom(0x5412, 0x541c, 0x5423, 0x20008, 0xffffffff, 0x10000000, 0x4, 0x40000, 0x800, 0x80000, 262, 136, 132, 58);
const word = fc.oneof(
  fc.integer({ min: 0, max: 0xffffffff }),
  fc.integer({ min: 0, max: 64 }),
  ruleValue,
  fc.tuple(fc.integer({ min: 0, max: 17 }), fc.constantFrom(0, 0x800, 0x80000, 0x80800, 0x40022, 0x100)).map(([n, flags]) => n | flags),
);
/** socket()-shaped arguments: a family the rules name (or not), a type with or without its flags, a protocol. */
const socketArgs = fc.tuple(
  fc.constantFrom(1, 2, 10, 16, 17, 40, 0),
  fc.tuple(fc.integer({ min: 0, max: 11 }), fc.constantFrom(0, 0x800, 0x80000, 0x80800, 0x100)).map(([type, flags]) => type | flags),
  fc.constantFrom(0, 1, 6, 17, 58, 132, 136, 262, 0x300),
  word,
  word,
  word,
);

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

  it('decides every call with an argument rule as the reference does, for argument words near what the rules test', () => {
    const ruled = Object.keys(ARGUMENT_RULES)
      .filter((name) => ARCH_TABLES[arch].numbers.has(name))
      .map((name) => syscallNumber(arch, name));
    fc.assert(
      fc.property(fc.constantFrom(...ruled), fc.oneof(fc.array(word, { minLength: 6, maxLength: 6 }), socketArgs), (n, args) => {
        expect(evaluateSeccompFilter(filter, { arch: auditArch, nr: n, args })).toBe(reference(arch, n, args));
      }),
      { seed: SEED, numRuns: 4000 },
    );
  });

  it('decides every number in the table and its neighbours as the reference does', () => {
    for (let n = 0; n <= Math.max(...known) + 2; n++) {
      for (const args of [
        [0, 0, 0],
        [2, 0x5412, 0],
        [16, 3, 4],
        [0x40, 0, 0],
        [1, 0x80805, 0],
        [2, 0x80801, 6],
        [10, 2, 17],
        [2, 1, 262],
        [16, 0x80003, 0],
        [0, 0x5423, 0x800, 0x40022],
      ])
        expect(evaluateSeccompFilter(filter, { arch: auditArch, nr: n, args }), `nr ${n}`).toBe(reference(arch, n, args));
    }
  });
});

describe('argument checks on their own', () => {
  // Random trees of checks, some sharing a sub-decision (as AF_INET and AF_INET6 do) or repeating `otherwise`, some masked.
  const leaf = fc.constantFrom(0x50001, 0x50002, 0x5005f, 0x7fff0000);
  const tree: fc.Arbitrary<Decision> = fc.letrec<{ decision: Decision }>((tie) => ({
    decision: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc
        .record({
          arg: fc.integer({ min: 0, max: 5 }),
          mask: fc.option(fc.constantFrom(0xfff7f7ff, 0xf, 0xffffffff), { nil: undefined }),
          shared: tie('decision'),
          otherwise: tie('decision'),
          cases: fc.array(
            fc.record({
              when: fc.constantFrom('equals' as const, 'any-bit-of' as const),
              value: fc.integer({ min: 0, max: 8 }),
              pick: fc.integer({ min: 0, max: 3 }),
              own: tie('decision'),
            }),
            { minLength: 1, maxLength: 4 },
          ),
        })
        .map(({ arg, mask, shared, otherwise, cases }): ArgCheck => ({
          arg,
          ...(mask === undefined ? {} : { mask }),
          cases: cases.map((c) => ({ when: c.when, value: c.value, then: c.pick === 0 ? shared : c.pick === 1 ? otherwise : c.own })),
          otherwise,
        })),
    ),
  })).decision;

  it('returns what walking the tree returns, with shared blocks and masks', () => {
    fc.assert(
      fc.property(
        tree,
        fc.array(
          fc.integer({ min: 0, max: 9 }).map((n) => (n === 9 ? 0x80800 : n)),
          { minLength: 6, maxLength: 6 },
        ),
        (decision, args) => {
          expect(evaluateSeccompFilter(compileDecision(decision), { arch: 0, nr: 0, args })).toBe(resolve(decision, args));
        },
      ),
      { seed: SEED, numRuns: 3000 },
    );
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
