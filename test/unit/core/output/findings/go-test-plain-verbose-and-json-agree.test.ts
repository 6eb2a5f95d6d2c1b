/**
 * go test's failures read the same from plain, `-v` and `-json` output: the
 * failing subtest (not its parent again), the t.Errorf line's file:line and
 * text, and a panic's message at the test's frame. Passes and skips are
 * counted where go prints them (-v, -json). Build errors are diagnostics.
 */
import { describe, expect, it } from 'vitest';
import { parseFindings } from '../../../../../src/core/output/findings/index.js';
import { readFixture } from './read-fixture.js';

const FAILURES = [
  { name: 'TestDivide', location: { file: 'calc_test.go', line: 7 }, message: 'Divide(7, 2) = 3; want 4' },
  { name: 'TestAbs/negative', location: { file: 'calc_test.go', line: 19 }, message: 'Abs(-2) = -2; want 2' },
  {
    name: 'TestPanics',
    location: { file: '/tmp/headspace-findings/go-test/calc_test.go', line: 33 },
    message: 'panic: runtime error: integer divide by zero [recovered]',
  },
];

describe('go test findings', () => {
  it('reads plain go test output, which prints failures only', () => {
    expect(parseFindings(readFixture('go-test', 'plain'), { maxItems: 10 })).toEqual([
      { kind: 'test-summary', tool: 'go test', failed: 3, failures: FAILURES, more: 0 },
    ]);
  });

  for (const name of ['verbose', 'json']) {
    it(`reads ${name} output with its pass and skip counts`, () => {
      expect(parseFindings(readFixture('go-test', name), { maxItems: 10 })).toEqual([
        { kind: 'test-summary', tool: 'go test', failed: 3, passed: 3, skipped: 1, failures: FAILURES, more: 0 },
      ]);
    });
  }

  it('reads build errors as diagnostics', () => {
    expect(parseFindings(readFixture('go-build', 'default'), { maxItems: 10 })).toEqual([
      {
        kind: 'diagnostics',
        tool: 'go',
        errors: 2,
        warnings: 0,
        more: 0,
        items: [
          { file: './b.go', line: 4, col: 9, severity: 'error', message: 'undefined: undefinedThing' },
          { file: './b.go', line: 7, col: 26, severity: 'error', message: 'cannot use 1 (untyped int constant) as string value in return statement' },
        ],
      },
    ]);
  });
});
