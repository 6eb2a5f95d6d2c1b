/**
 * A module pytest cannot import is an ERROR, not a failed test: the summary
 * says `0 failed, 1 error`, the entry reads ERROR with the import's file:line
 * and exception, and nothing claims more failing tests than pytest counted
 * (the output is real pytest 9 output, home paths replaced).
 */
import { describe, expect, it } from 'vitest';
import { findingLines, parseFindings } from '../../../../../src/core/output/findings/index.js';
import { readFixture } from './read-fixture.js';

describe('a pytest collection error', () => {
  const findings = parseFindings(readFixture('pytest-collect', 'default'), { maxItems: 10 });

  it('is counted as an error with no failed test', () => {
    expect(findings).toEqual([expect.objectContaining({ kind: 'test-summary', tool: 'pytest', failed: 0, errors: 1, more: 0 })]);
  });

  it('reads ERROR with its file:line and the exception', () => {
    expect(findingLines(findings)).toEqual([
      'tests: 0 failed, 1 error (pytest)',
      "ERROR tests/test_broken.py:1 tests/test_broken.py — ModuleNotFoundError: No module named 'nosuchmod'",
    ]);
  });
});
