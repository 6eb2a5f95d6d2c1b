/**
 * Line scores put what an agent needs above routine output: failures and
 * diagnostics above summaries and answers, those above warnings, warnings
 * above plain lines. Context matters: every frame of a Python traceback
 * scores, only the first few Node stack frames do, and the same error
 * repeated a thousand times stops outranking new information.
 */
import { describe, expect, it } from 'vitest';
import { classifyLine, createLineScorer, KIND_SCORES, positionScore, scoreLogLines, type LineKind } from '../../../../src/core/output/line-scoring.js';

const KINDS: Array<[string, LineKind]> = [
  ['Segmentation fault (core dumped)', 'fatal'],
  ['panic: runtime error: invalid memory address', 'fatal'],
  ['FATAL: role "x" does not exist', 'fatal'],
  ["src/main.c:12:5: error: expected ';' after expression", 'diagnostic'],
  ["src/x.ts(3,7): error TS2322: Type 'string' is not assignable", 'diagnostic'],
  ['FAILED tests/x.py::test_y - assert 1 == 2', 'test_failure'],
  ['--- FAIL: TestAdd (0.00s)', 'test_failure'],
  [' FAIL  src/a.test.ts', 'test_failure'],
  ['ERROR: checksum drift at step 7777', 'error'],
  ['ValueError: bad input', 'error'],
  ['java.lang.NullPointerException', 'error'],
  ['=== 3 failed, 297 passed in 1.2s ===', 'test_summary'],
  ['Tests: 1 failed, 41 passed, 42 total', 'test_summary'],
  ['12 passed, 0 failed', 'test_summary'],
  ['AssertionError', 'error'],
  ['assert x == 4', 'assertion'],
  ['Expected: 4', 'assertion'],
  ['answer=42', 'answer'],
  ['result: 3.14159', 'answer'],
  ['final loss 0.031', 'answer'],
  ['    at Object.<anonymous> (/w/a.js:1:1)', 'stack_frame'],
  ['warning: unused variable', 'warning'],
  ['step 000123 seed=99 value=7 collatz_len=16', 'plain'],
  ['   ', 'blank'],
];

describe('line scoring', () => {
  for (const [line, kind] of KINDS) {
    it(`classifies ${JSON.stringify(line)} as ${kind}`, () => {
      expect(classifyLine(line)).toBe(kind);
    });
  }

  it('orders kinds from failures down to plain output', () => {
    const s = KIND_SCORES;
    expect(s.fatal).toBeGreaterThan(s.error);
    expect(s.error).toBeGreaterThan(s.answer);
    expect(s.answer).toBeGreaterThan(s.warning);
    expect(s.warning).toBeGreaterThan(s.plain);
  });

  it('scores every frame of a Python traceback and the exception line that closes it', () => {
    const score = createLineScorer();
    const lines = ['Traceback (most recent call last):', '  File "a.py", line 3, in <module>', '    main()', "KeyError: 'x'", 'next plain line'];
    const scores = lines.map(score);
    expect(scores.slice(0, 4).every((s) => s >= KIND_SCORES.traceback)).toBe(true);
    expect(scores[3]).toBe(KIND_SCORES.fatal);
    expect(scores[4]).toBe(KIND_SCORES.plain);
  });

  it('scores only the first three stack frames after an error', () => {
    const score = createLineScorer();
    const scores = ['TypeError: x', ...Array.from({ length: 6 }, (_, i) => `    at f${i} (/w/a.js:${i}:1)`)].map(score);
    expect(scores.slice(1, 4)).toEqual([45, 45, 45]);
    expect(scores.slice(4).every((s) => s === KIND_SCORES.plain)).toBe(true);
  });

  it('demotes an error shape after it has been seen twice, digits aside', () => {
    const score = createLineScorer();
    const scores = Array.from({ length: 5 }, (_, i) => score(`ERROR: retry ${i} failed`));
    expect(scores.slice(0, 2)).toEqual([KIND_SCORES.error, KIND_SCORES.error]);
    expect(scores.slice(2).every((s) => s < KIND_SCORES.warning)).toBe(true);
    expect(score('ERROR: a different failure')).toBe(KIND_SCORES.error);
  });

  it('ranks the final lines above everything and the rest of the tail just below errors', () => {
    expect(positionScore(99, 100)).toBe(100);
    expect(positionScore(97, 100)).toBeGreaterThan(KIND_SCORES.fatal);
    expect(positionScore(90, 100)).toBeLessThan(KIND_SCORES.error);
    expect(positionScore(90, 100)).toBeGreaterThan(KIND_SCORES.assertion);
  });

  it('lifts the source and caret lines after a compiler diagnostic', () => {
    const scores = scoreLogLines(['noise', 'a.c:1:2: error: bad', '    int x = ;', '            ^', 'noise', 'noise', 'noise', ...Array(20).fill('noise')]);
    expect(scores[2]).toBeGreaterThan(KIND_SCORES.warning - 5);
    expect(scores[3]).toBeGreaterThan(KIND_SCORES.warning - 5);
    expect(scores[5]).toBeLessThan(scores[3]!);
  });
});
