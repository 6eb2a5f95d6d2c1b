/**
 * Hundreds of failing tests become a count, the first N (N = maxItems) and
 * the number left out, never hundreds of lines. A cap below 1 still lists one
 * failure: the finding exists to name what failed.
 */
import { describe, expect, it } from 'vitest';
import { findingLines, parseFindings } from '../../../../../src/core/output/findings/index.js';
import { readFixture } from './read-fixture.js';

describe('capped test failures', () => {
  const log = readFixture('pytest-many', 'default');

  it('keeps the first maxItems failures of 150 and counts the rest', () => {
    const [summary] = parseFindings(log, { maxItems: 10 });
    if (summary?.kind !== 'test-summary') throw new Error('expected a test summary');
    expect(summary).toMatchObject({ failed: 150, passed: 155, more: 140 });
    expect(summary.failures).toHaveLength(10);
    expect(summary.failures[0]).toEqual({ name: 'test_even[1]', location: { file: 'test_many.py', line: 6 }, message: 'AssertionError: 1 is odd' });
    expect(summary.failures[9]?.name).toBe('test_even[19]');
  });

  it('says how many more failed in one line', () => {
    const lines = findingLines(parseFindings(log, { maxItems: 3 }));
    expect(lines).toEqual([
      'tests: 150 failed, 155 passed (pytest)',
      'FAILED test_many.py:6 test_even[1] — AssertionError: 1 is odd',
      'FAILED test_many.py:6 test_even[3] — AssertionError: 3 is odd',
      'FAILED test_many.py:6 test_even[5] — AssertionError: 5 is odd',
      '… and 147 more failing tests (pytest)',
    ]);
  });

  it('lists one failure when the cap is zero or not a number', () => {
    for (const maxItems of [0, -5, Number.NaN]) {
      const [summary] = parseFindings(log, { maxItems });
      expect(summary?.kind === 'test-summary' && summary.failures.length).toBe(1);
    }
  });
});
