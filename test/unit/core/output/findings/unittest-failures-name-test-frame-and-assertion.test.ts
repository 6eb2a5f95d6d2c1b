/**
 * A unittest run's finding names each FAIL and ERROR by its full test id, at
 * the line of the test method's own frame, with the exception line that
 * ended it; passed is what `Ran N tests` leaves after failures, errors and
 * skips. The tracebacks in the report do not add an exception finding.
 */
import { describe, expect, it } from 'vitest';
import { parseFindings } from '../../../../../src/core/output/findings/index.js';
import { readFixture } from './read-fixture.js';

describe('unittest findings', () => {
  it('lists failures and errors with their test line and exception', () => {
    const findings = parseFindings(readFixture('unittest', 'default'), { maxItems: 10 });
    expect(findings).toHaveLength(1);
    const file = '/tmp/headspace-findings/unittest/test_shapes.py';
    expect(findings[0]).toEqual({
      kind: 'test-summary',
      tool: 'unittest',
      failed: 2,
      errors: 1,
      passed: 1,
      skipped: 1,
      more: 0,
      failures: [
        { name: 'test_shapes.AreaTest.test_lookup', location: { file, line: 17 }, message: "KeyError: 'large'", outcome: 'error' },
        { name: 'test_shapes.AreaTest.test_square', location: { file, line: 10 }, message: 'AssertionError: 5 != 4' },
        { name: 'test_shapes.AreaTest.test_zero', location: { file, line: 13 }, message: 'AssertionError: 1 != 0' },
      ],
    });
  });

  it('reads the older header that names only the class', () => {
    const log = [
      'FAIL: test_zero (test_shapes.AreaTest)',
      '-'.repeat(70),
      'Traceback (most recent call last):',
      '  File "t.py", line 13, in test_zero',
      '    x',
      'AssertionError: 1 != 0',
      '',
      '-'.repeat(70),
      'Ran 1 test in 0.001s',
      '',
      'FAILED (failures=1)',
    ].join('\n');
    const [summary] = parseFindings(log, { maxItems: 5 });
    expect(summary).toMatchObject({
      failed: 1,
      passed: 0,
      failures: [{ name: 'test_shapes.AreaTest.test_zero', location: { file: 't.py', line: 13 }, message: 'AssertionError: 1 != 0' }],
    });
  });
});
