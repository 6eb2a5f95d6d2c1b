/**
 * findingLines renders each finding as one line of counts, one line per
 * listed failure or diagnostic, and one line for what was left out; counts a
 * tool did not print are not invented, and zero failures still say so.
 */
import { describe, expect, it } from 'vitest';
import { findingLines } from '../../../../../src/core/output/findings/index.js';

describe('findingLines', () => {
  it('renders a test summary, a diagnostic list and an exception', () => {
    expect(
      findingLines([
        {
          kind: 'test-summary',
          tool: 'pytest',
          failed: 2,
          passed: 398,
          skipped: 0,
          errors: 0,
          failures: [{ name: 'test_divide', location: { file: 'tests/test_calc.py', line: 14 }, message: 'AssertionError: 3 != 4' }, { name: 'test_unplaced' }],
          more: 0,
        },
        {
          kind: 'diagnostics',
          tool: 'tsc',
          errors: 3,
          warnings: 1,
          items: [{ file: 'src/a.ts', line: 3, col: 7, severity: 'error', code: 'TS2322', message: "Type 'string' is not assignable to type 'number'." }],
          more: 3,
        },
        { kind: 'exception', language: 'python', type: 'ZeroDivisionError', message: 'division by zero', location: { file: 'calc.py', line: 7 } },
      ]),
    ).toEqual([
      'tests: 2 failed, 398 passed (pytest)',
      'FAILED tests/test_calc.py:14 test_divide — AssertionError: 3 != 4',
      'FAILED test_unplaced',
      'diagnostics: 3 errors, 1 warning (tsc)',
      "error src/a.ts:3:7 TS2322 Type 'string' is not assignable to type 'number'.",
      '… and 3 more diagnostics (tsc)',
      'exception ZeroDivisionError: division by zero at calc.py:7',
    ]);
  });

  it('states zero failures and leaves out counts the tool did not print', () => {
    expect(findingLines([{ kind: 'test-summary', tool: 'go test', failed: 0, failures: [], more: 0 }])).toEqual(['tests: 0 failed (go test)']);
    expect(findingLines([{ kind: 'test-summary', tool: 'unittest', failed: 0, errors: 1, passed: 4, failures: [], more: 1 }])).toEqual([
      'tests: 0 failed, 1 error, 4 passed (unittest)',
      '… and 1 more failing test (unittest)',
    ]);
  });
});
