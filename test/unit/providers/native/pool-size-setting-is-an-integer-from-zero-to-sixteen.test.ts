/**
 * HEADSPACE_POOL_SIZE: unset or blank means the default (2); an integer from
 * 0 to 16 is taken as is; anything else is refused with a remedy rather than
 * guessed at (a pool that grew without bound would fill the disk).
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { DEFAULT_POOL_SIZE, MAX_POOL_SIZE, poolSizeFrom } from '../../../../src/providers/native/image-pool.js';

test('pool size setting is an integer from zero to sixteen, the default when unset', () => {
  expect(poolSizeFrom(undefined)).toBe(DEFAULT_POOL_SIZE);
  expect(poolSizeFrom('  ')).toBe(DEFAULT_POOL_SIZE);
  expect(DEFAULT_POOL_SIZE).toBe(2);
  fc.assert(
    fc.property(fc.integer({ min: 0, max: MAX_POOL_SIZE }), (n) => poolSizeFrom(String(n)) === n),
    { seed: 20, numRuns: 50 },
  );
  fc.assert(
    fc.property(
      fc.oneof(
        fc.integer({ min: MAX_POOL_SIZE + 1 }),
        fc.integer({ max: -1 }),
        fc.double({ noInteger: true, noNaN: true }),
        fc.constantFrom('two', 'NaN', '1e9', '-0.5'),
      ),
      (bad) => {
        expect(() => poolSizeFrom(String(bad))).toThrow(/HEADSPACE_POOL_SIZE must be an integer from 0 to 16/);
      },
    ),
    { seed: 20, numRuns: 100 },
  );
});
