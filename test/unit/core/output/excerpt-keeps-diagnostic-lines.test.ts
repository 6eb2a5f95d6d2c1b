/**
 * An excerpt is chosen for an agent, not cut head-and-tail: when a failure
 * is buried in the middle of a long log, the lines that say what failed
 * (errors, compiler diagnostics, tracebacks, failed assertions, test-runner
 * failures and summaries) survive, alongside the last lines.
 */
import { describe, expect, it } from 'vitest';
import { selectExcerpt } from '../../../../src/core/output/select-excerpt.js';

/** `signal` buried after 3000 lines of noise and followed by 3000 more. */
function buried(signal: readonly string[]): string {
  const noise = (from: number) => Array.from({ length: 3000 }, (_, i) => `progress ${from + i}: processed chunk ${(from + i) * 7} of 60000`);
  return [...noise(0), ...signal, ...noise(3000), 'done'].join('\n');
}

const CASES: Array<{ name: string; signal: string[]; expected: string[] }> = [
  { name: 'a plain ERROR line', signal: ['ERROR: checksum drift at step 7777'], expected: ['ERROR: checksum drift at step 7777'] },
  { name: 'a fatal line', signal: ['FATAL: could not open database'], expected: ['FATAL: could not open database'] },
  { name: 'a Go panic', signal: ['panic: runtime error: index out of range [5] with length 3'], expected: ['panic: runtime error'] },
  { name: 'a segmentation fault', signal: ['Segmentation fault (core dumped)'], expected: ['Segmentation fault (core dumped)'] },
  {
    name: 'a C compiler diagnostic with its source and caret lines',
    signal: ["src/main.c:12:5: error: use of undeclared identifier 'cout'", '   12 |     cout << x;', '      |     ^'],
    expected: ["src/main.c:12:5: error: use of undeclared identifier 'cout'", '   12 |     cout << x;', '      |     ^'],
  },
  { name: 'a TypeScript diagnostic', signal: ["src/x.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'."], expected: ['error TS2322'] },
  {
    name: 'a Python traceback with every frame and the exception line',
    signal: [
      'Traceback (most recent call last):',
      '  File "/w/run.py", line 9, in <module>',
      '    main()',
      '  File "/w/run.py", line 5, in main',
      '    1 / 0',
      'ZeroDivisionError: division by zero',
    ],
    expected: ['Traceback (most recent call last):', '  File "/w/run.py", line 9, in <module>', '    1 / 0', 'ZeroDivisionError: division by zero'],
  },
  {
    name: 'a Node error with its first stack frames',
    signal: ["TypeError: Cannot read properties of undefined (reading 'x')", '    at f (/w/a.js:1:10)', '    at g (/w/a.js:2:3)'],
    expected: ["TypeError: Cannot read properties of undefined (reading 'x')", '    at f (/w/a.js:1:10)'],
  },
  { name: 'a failed assertion', signal: ['AssertionError: expected 3 to equal 4'], expected: ['AssertionError: expected 3 to equal 4'] },
  {
    name: 'a pytest failure and its summary',
    signal: ['FAILED tests/test_math.py::test_add - assert 3 == 4', '=== 1 failed, 297 passed in 1.20s ==='],
    expected: ['FAILED tests/test_math.py::test_add - assert 3 == 4', '=== 1 failed, 297 passed in 1.20s ==='],
  },
  {
    name: 'a vitest failure',
    signal: [' FAIL  test/a.test.ts > adds', '      Tests  1 failed | 41 passed (42)'],
    expected: [' FAIL  test/a.test.ts > adds', 'Tests  1 failed | 41 passed (42)'],
  },
  {
    name: 'a go test failure',
    signal: ['--- FAIL: TestAdd (0.00s)', '    add_test.go:9: got 3, want 4'],
    expected: ['--- FAIL: TestAdd (0.00s)', 'add_test.go:9: got 3, want 4'],
  },
  { name: 'a cross-marked test', signal: ['  × adds two numbers 3ms'], expected: ['  × adds two numbers 3ms'] },
];

describe('selectExcerpt keeps the lines that say what failed', () => {
  for (const { name, signal, expected } of CASES) {
    it(`keeps ${name} from the middle of a long log`, () => {
      const { excerpt, truncated } = selectExcerpt(buried(signal), { budgetBytes: 1200 });
      expect(truncated).toBe(true);
      for (const line of expected) expect(excerpt).toContain(line);
      expect(excerpt.endsWith('done')).toBe(true);
    });
  }

  it('keeps answer-like lines even when they are not last', () => {
    const log = buried(['answer=42']) + '\n' + Array.from({ length: 50 }, (_, i) => `cleanup ${i}`).join('\n');
    expect(selectExcerpt(log, { budgetBytes: 1200 }).excerpt).toContain('answer=42');
  });

  it('keeps the last line first of all, under the smallest budget', () => {
    const { excerpt } = selectExcerpt(buried(['ERROR: x']) + '\nanswer=7', { budgetBytes: 0 });
    expect(excerpt).toContain('answer=7');
    expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(80);
  });
});
