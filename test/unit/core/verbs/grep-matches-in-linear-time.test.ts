/**
 * `logs --grep` runs a caller's pattern over hostile job output, so it must
 * not backtrack: the red team's 260 KB line of repeated words with
 * `(\w+\s?)*$` held a core for over 30 s (#10 item 9). Patterns are RE2
 * (linear time); syntax RE2 cannot match in linear time is refused up front
 * with a hint, and only the first GREP_LINE_MAX_CHARS of a line are searched.
 */
import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../../src/core/errors.js';
import { GREP_LINE_MAX_CHARS, compileGrepPattern } from '../../../../src/core/verbs/grep-pattern.js';

const WORDS = `${'word '.repeat(52_000)}!`;

describe('grep matching', () => {
  it.each(['(\\w+\\s?)*$', '(a|aa)*b', '(.*a){20}', '^(\\w+\\s*)+x$'])('matches %s against a 260 KB line of words in well under a second', (source) => {
    const test = compileGrepPattern(source);
    const started = performance.now();
    test(WORDS);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('finds ordinary matches as a regular expression would', () => {
    expect(compileGrepPattern('pi=\\d')('pi=3.14')).toBe(true);
    expect(compileGrepPattern('^error:')('warning: error: x')).toBe(false);
    expect(compileGrepPattern('(?i)ERROR')('an error')).toBe(true);
  });

  it('searches only the first GREP_LINE_MAX_CHARS characters of a line', () => {
    const test = compileGrepPattern('needle');
    expect(test(`${'x'.repeat(GREP_LINE_MAX_CHARS - 6)}needle`)).toBe(true);
    expect(test(`${'x'.repeat(GREP_LINE_MAX_CHARS)}needle`)).toBe(false);
  });

  it.each([
    ['a backreference', '(a)\\1'],
    ['a lookahead', 'foo(?=bar)'],
    ['a negative lookahead', 'foo(?!bar)'],
    ['a lookbehind', '(?<=foo)bar'],
    ['a negative lookbehind', '(?<!foo)bar'],
  ])('refuses %s with BAD_ARGUMENT and a hint naming what is unsupported', (_what, source) => {
    let error: unknown;
    try {
      compileGrepPattern(source);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).code).toBe('BAD_ARGUMENT');
    expect((error as EngineError).hint).toMatch(/backreferences.*lookaround/);
  });

  it('refuses an unclosed class with a hint about escaping and closing, not about RE2 (#12 item 13)', () => {
    let error: unknown;
    try {
      compileGrepPattern('[abc');
    } catch (caught) {
      error = caught;
    }
    expect((error as EngineError).code).toBe('BAD_ARGUMENT');
    expect((error as EngineError).hint).toMatch(/close every \( and \[/);
  });
});
