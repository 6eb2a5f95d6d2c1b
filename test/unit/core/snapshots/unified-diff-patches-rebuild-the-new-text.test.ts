import { it, expect } from 'vitest';
import fc from 'fast-check';
import { unifiedDiff } from '../../../../src/core/snapshots/unified-diff.js';
import { applyUnifiedDiff as apply } from '../../../helpers/apply-unified-diff.js';

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
