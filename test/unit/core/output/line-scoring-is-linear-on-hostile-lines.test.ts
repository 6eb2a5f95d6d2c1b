/**
 * Line scoring runs fixed patterns over every line of every job's output
 * (up to 64 MiB per result), so none of them may backtrack on what a job
 * prints. Two did: `\s+.*` in the test-summary pattern on `Tests` plus
 * thousands of spaces, and an unanchored `\bexpected\b.*\b(?:…)` on a line of
 * `expected`s — about 6 ms and 2 ms per 4 KiB line, 16 s for a 10 MiB log
 * (#10 item 9). Each hostile shape must score in microseconds per line, and
 * the rewritten patterns must still classify what they did.
 */
import { describe, expect, it } from 'vitest';
import { classifyLine, lineShape } from '../../../../src/core/output/line-scoring.js';

/** The excerpt selector decodes at most 4096 bytes of a line. */
const HOSTILE: Record<string, string> = {
  'a line of expected': 'expected '.repeat(455),
  'Tests and spaces': `Tests${' '.repeat(4090)}`,
  'colons and digits': `a${':1'.repeat(2000)}`,
  'a long digit run': `x:${'1'.repeat(4090)}x`,
  'Error suffixes': 'aError'.repeat(680),
  quotes: "'".repeat(4096),
  slashes: 'a/'.repeat(2048),
  'numbered words': 'a1.'.repeat(1365),
  'ok and spaces': `ok ${'a '.repeat(2000)}`,
};

describe('line scoring on hostile lines', () => {
  it('scores 300 copies of every hostile shape in well under a second', () => {
    const started = performance.now();
    for (const line of Object.values(HOSTILE)) {
      for (let i = 0; i < 300; i++) {
        classifyLine(line);
        lineShape(line);
      }
    }
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('still reads expected … received and a test summary as before', () => {
    expect(classifyLine('expected 3 but received 4')).toBe('assertion');
    expect(classifyLine('  expected value to equal 2')).toBe('assertion');
    expect(classifyLine('expected 3, expectedly got 4')).toBe('assertion');
    expect(classifyLine('the expected output')).toBe('plain');
    expect(classifyLine('Tests:  3 failed, 2 passed')).toBe('test_summary');
    expect(classifyLine('Test Files   1 passed (1)')).toBe('test_summary');
  });
});
