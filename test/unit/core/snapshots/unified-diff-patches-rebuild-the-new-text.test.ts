import { it, expect } from 'vitest';
import fc from 'fast-check';
import { unifiedDiff } from '../../../../src/core/snapshots/unified-diff.js';
function apply(before: string[], patch: string): string[] {
  const out: string[] = [];
  let ai = 0;
  const lines = patch.split('\n').filter(Boolean).slice(2);
  for (const l of lines) {
    if (l.startsWith('@@')) {
      const m = /-(\d+),(\d+)/.exec(l)!;
      const start = Number(m[2]) === 0 ? Number(m[1]) : Number(m[1]) - 1;
      while (ai < start) out.push(before[ai++]!);
      continue;
    }
    if (l[0] === ' ') {
      out.push(before[ai++]!);
    } else if (l[0] === '-') ai++;
    else out.push(l.slice(1));
  }
  while (ai < before.length) out.push(before[ai++]!);
  return out;
}
it('round trips', () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 30 }), fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 30 }), (a, b) => {
      const p = unifiedDiff('f', a.map((x) => x + '\n').join(''), b.map((x) => x + '\n').join(''));
      if (p === '') {
        expect(a).toEqual(b);
        return;
      }
      expect(apply(a, p)).toEqual(b);
    }),
    { seed: 1, numRuns: 500 },
  );
});
