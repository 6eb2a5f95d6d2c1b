/**
 * vitest and jest failures are named as the runner shows them (suite and
 * test), located at the line in the test file, and carry the first error
 * line; the counts come from the `Tests` line.
 */
import { describe, expect, it } from 'vitest';
import { parseFindings } from '../../../../../src/core/output/findings/index.js';
import { readFixture } from './read-fixture.js';

describe('vitest and jest findings', () => {
  it('reads a vitest run', () => {
    expect(parseFindings(readFixture('vitest', 'default'), { maxItems: 10 })).toEqual([
      {
        kind: 'test-summary',
        tool: 'vitest',
        failed: 3,
        passed: 1,
        skipped: 1,
        more: 0,
        failures: [
          {
            name: 'money > converts whole euros',
            location: { file: 'money.spec.mjs', line: 9, col: 22 },
            message: 'AssertionError: expected 30 to be 300 // Object.is equality',
          },
          {
            name: 'money > formats a label',
            location: { file: 'money.spec.mjs', line: 17, col: 47 },
            message: "AssertionError: expected { label: 'EUR', value: 10 } to deeply equal { label: 'EUR', value: 100 }",
          },
          {
            name: 'throws on strings',
            location: { file: 'money.spec.mjs', line: 24, col: 28 },
            message: 'AssertionError: expected [Function] to throw an error',
          },
        ],
      },
    ]);
  });

  it('reads a jest run, preferring the test file frame over the helper it called', () => {
    expect(parseFindings(readFixture('jest', 'handwritten'), { maxItems: 10 })).toEqual([
      {
        kind: 'test-summary',
        tool: 'jest',
        failed: 2,
        passed: 4,
        skipped: 1,
        more: 0,
        failures: [
          {
            name: 'price › rounds to cents',
            location: { file: 'src/price.test.js', line: 12, col: 19 },
            message: 'expect(received).toBe(expected) // Object.is equality',
          },
          {
            name: 'price › rejects negative amounts',
            location: { file: 'src/price.test.js', line: 17, col: 12 },
            message: "TypeError: Cannot read properties of undefined (reading 'amount')",
          },
        ],
      },
    ]);
  });
});
