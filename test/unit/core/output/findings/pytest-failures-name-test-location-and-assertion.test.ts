/**
 * A pytest run's finding names every failing test with its file:line in the
 * test file and its assertion, and carries the closing counts, whether the
 * run printed the default report or the `-q` one. Errors (a broken fixture)
 * are listed and counted apart from failures.
 */
import { describe, expect, it } from 'vitest';
import { parseFindings } from '../../../../../src/core/output/findings/index.js';
import { readFixture } from './read-fixture.js';

describe('pytest findings', () => {
  for (const name of ['default', 'quiet']) {
    it(`lists each failure with its test-file line and first E line (${name} report)`, () => {
      const findings = parseFindings(readFixture('pytest', name), { maxItems: 20 });
      expect(findings).toHaveLength(1);
      const [summary] = findings;
      expect(summary).toMatchObject({ kind: 'test-summary', tool: 'pytest', failed: 6, passed: 3, skipped: 1, errors: 1, more: 0 });
      if (summary?.kind !== 'test-summary') throw new Error('expected a test summary');
      expect(summary.failures).toEqual([
        { name: 'test_add_negative', location: { file: 'test_calc.py', line: 11 }, message: 'assert -2 == -3' },
        { name: 'test_divide', location: { file: 'test_calc.py', line: 15 }, message: 'assert 3 == 3.5' },
        // The ZeroDivisionError is raised in calc.py, but the test's own line is where to look first.
        { name: 'test_mean_empty', location: { file: 'test_calc.py', line: 19 }, message: 'ZeroDivisionError: division by zero' },
        { name: 'test_add_table[2-3-6]', location: { file: 'test_calc.py', line: 28 }, message: 'assert 5 == 6' },
        { name: 'test_add_table[0-0-1]', location: { file: 'test_calc.py', line: 28 }, message: 'assert 0 == 1' },
        // The block's E line is whole where the short summary cut it (`'ABd'` became `=...`).
        { name: 'TestStrings::test_upper', location: { file: 'test_calc.py', line: 47 }, message: "AssertionError: assert 'ABC' == 'ABd'" },
        { name: 'test_uses_broken', location: { file: 'test_calc.py', line: 38 }, message: 'RuntimeError: fixture exploded', outcome: 'error' },
      ]);
    });
  }
});
