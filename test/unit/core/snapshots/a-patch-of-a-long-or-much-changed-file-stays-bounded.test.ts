/**
 * diff --patch bounds its own work (unified-diff.ts): lines shared at both
 * ends are taken off first, each step keeps only its frontier, and past
 * MAX_EDITS differing lines the middle is shown removed then added whole.
 * Every patch still rebuilds the new text, and up to MAX_EDITS it is a
 * shortest one (as many lines removed and added as a longest common
 * subsequence leaves). A red team's 12,000-line file took 1.2 GB and 22 s
 * when each step copied the whole frontier; the largest file a patch takes
 * (256 KiB, 131,072 one-byte lines) would have needed ~137 GB.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_EDITS, unifiedDiff } from '../../../../src/core/snapshots/unified-diff.js';
import { applyUnifiedDiff } from '../../../helpers/apply-unified-diff.js';

const text = (lines: string[]) => lines.map((l) => `${l}\n`).join('');
const changedLines = (patch: string) => patch.split('\n').filter((l) => /^[-+](?![-+]{2} [ab]\/)/.test(l)).length;

/** Lines removed plus added by a shortest script: n + m - 2·LCS. */
function shortest(a: string[], b: string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = x === b[j - 1] ? diagonal + 1 : Math.max(row[j]!, row[j - 1]!);
      diagonal = above;
    }
  }
  return a.length + b.length - 2 * row[b.length]!;
}

describe('a patch of a long or much-changed file', () => {
  it('is a shortest script that rebuilds the new text when few lines differ', () => {
    const lines = fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { maxLength: 60 });
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const patch = unifiedDiff('f', text(a), text(b));
        expect(applyUnifiedDiff(a, patch)).toEqual(b);
        expect(changedLines(patch)).toBe(shortest(a, b));
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('rebuilds a 131,072-line file written from nothing, as all of it added', () => {
    const b = Array.from({ length: 131_072 }, () => 'x');
    const patch = unifiedDiff('f', '', text(b));
    expect(applyUnifiedDiff([], patch)).toEqual(b);
    expect(changedLines(patch)).toBe(b.length);
  });

  it('shows the middle removed and added whole past MAX_EDITS differing lines, and still rebuilds the text', () => {
    const a = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
    const b = a.map((line, i) => (i >= 100 && i < 100 + 2 * MAX_EDITS && i % 2 === 0 ? `${line} changed` : line));
    const patch = unifiedDiff('f', text(a), text(b));
    expect(applyUnifiedDiff(a, patch)).toEqual(b);
    // MAX_EDITS lines changed, every other one: a shortest script is 2·MAX_EDITS long, past the bound. The shared
    // head (100 lines) and tail are kept out; the middle, first to last changed line, is whole on both sides.
    expect(changedLines(patch)).toBe(2 * (2 * MAX_EDITS - 1));
    expect(patch).toContain('@@ -98,');
  });
});
