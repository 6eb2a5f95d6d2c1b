/**
 * A diagnostic printed twice (a header compiled in two units, `make -k`
 * retrying, a log captured twice) is one diagnostic: listed and counted once.
 * The same message at another line is another diagnostic.
 */
import { describe, expect, it } from 'vitest';
import { parseFindings } from '../../../../../src/core/output/findings/index.js';
import { readFixture } from './read-fixture.js';

describe('diagnostic dedupe', () => {
  it('counts a doubled gcc log as the single log', () => {
    const once = readFixture('gcc', 'small');
    expect(parseFindings(`${once}\n${once}`, { maxItems: 10 })).toEqual(parseFindings(once, { maxItems: 10 }));
  });

  it('keeps the same message at different lines apart', () => {
    const log = ['a.c:1:1: error: boom', 'a.c:1:1: error: boom', 'a.c:2:1: error: boom'].join('\n');
    expect(parseFindings(log, { maxItems: 10 })).toMatchObject([{ errors: 2, items: [{ line: 1 }, { line: 2 }] }]);
  });
});
