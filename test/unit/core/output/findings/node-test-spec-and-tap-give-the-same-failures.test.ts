/**
 * node --test reports the same run the same way whichever reporter printed
 * it: spec (a terminal's default) or TAP (the default when piped, as in a
 * job). Suites that fail because a child failed are not failures of their own.
 */
import { describe, expect, it } from 'vitest';
import { parseFindings } from '../../../../../src/core/output/findings/index.js';
import type { TestSummaryFinding } from '../../../../../src/core/output/findings/index.js';
import { readFixture } from './read-fixture.js';

function summaryOf(name: string): TestSummaryFinding {
  const findings = parseFindings(readFixture('node-test', name), { maxItems: 10 });
  expect(findings).toHaveLength(1);
  const [summary] = findings;
  if (summary?.kind !== 'test-summary') throw new Error('expected a test summary');
  return summary;
}

describe('node:test findings', () => {
  it('reads counts, names, lines and assertions from the spec reporter', () => {
    const summary = summaryOf('spec');
    expect(summary).toMatchObject({ tool: 'node:test', failed: 3, passed: 2, skipped: 1, more: 0 });
    expect(summary.failures).toEqual([
      {
        name: 'applies quantity',
        location: { file: 'cart.test.mjs', line: 13, col: 3 },
        message: 'AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 10 !== 12',
      },
      {
        name: 'rejects bad items',
        location: { file: 'cart.test.mjs', line: 17, col: 3 },
        message: "TypeError [Error]: Cannot read properties of null (reading 'price')",
      },
      {
        name: 'top-level strict deep equal',
        location: { file: 'cart.test.mjs', line: 24, col: 1 },
        message: 'AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal: (actual: { a: 1, b: [ 1, 2 ] }; expected: { a: 1, b: [ 1, 3 ] })',
      },
    ]);
  });

  it('reads the same failures from TAP, without the failing suite', () => {
    const summary = summaryOf('tap');
    expect(summary).toMatchObject({ tool: 'node:test', failed: 3, passed: 2, skipped: 1, more: 0 });
    const file = '/tmp/headspace-findings/node-test/cart.test.mjs';
    expect(summary.failures).toEqual([
      { name: 'applies quantity', location: { file, line: 13, col: 3 }, message: 'AssertionError: Expected values to be strictly equal: 10 !== 12' },
      { name: 'rejects bad items', location: { file, line: 17, col: 3 }, message: "TypeError: Cannot read properties of null (reading 'price')" },
      {
        name: 'top-level strict deep equal',
        location: { file, line: 24, col: 1 },
        message: 'AssertionError: Expected values to be strictly deep-equal: + actual - expected',
      },
    ]);
  });

  it('counts plain TAP from another producer by its test points', () => {
    const log = ['TAP version 13', 'ok 1 - adds', 'not ok 2 - divides', 'ok 3 - later # SKIP no time', '1..3'].join('\n');
    expect(parseFindings(log, { maxItems: 5 })).toEqual([
      { kind: 'test-summary', tool: 'tap', failed: 1, passed: 1, skipped: 1, failures: [{ name: 'divides' }], more: 0 },
    ]);
  });
});
