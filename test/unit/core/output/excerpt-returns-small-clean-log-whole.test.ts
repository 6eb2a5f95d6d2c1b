/**
 * A log that fits the budget and needs no cleaning is returned byte for
 * byte, untruncated; one that fits but carries escapes or control bytes is
 * returned whole and cleaned, still untruncated (cleaning leaves nothing out).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { selectExcerpt } from '../../../../src/core/output/select-excerpt.js';
import { FORMAT_CHAR_PATTERN } from '../../../../src/core/result/visible-text.js';

/** Invisible and format characters are shown as escapes (visible-text.ts): a clean line holds none. */
const invisible = new RegExp(FORMAT_CHAR_PATTERN.source, 'u');

describe('selectExcerpt on a log that fits', () => {
  it('returns any clean log within budget unchanged', () => {
    const cleanLine = fc.string({ unit: 'grapheme', maxLength: 60 }).filter((s) => !/[\x00-\x1f\x7f-\x9f]/.test(s) && !invisible.test(s) && !s.startsWith('…'));
    fc.assert(
      fc.property(fc.array(cleanLine, { maxLength: 30 }), fc.boolean(), (lines, finalNewline) => {
        const log = lines.join('\n') + (finalNewline && lines.length > 0 ? '\n' : '');
        const size = Buffer.byteLength(log);
        const result = selectExcerpt(log, { budgetBytes: Math.max(80, size) });
        expect(result).toEqual({
          excerpt: log,
          truncated: false,
          total_bytes: size,
          total_lines: log === '' ? 0 : log.split('\n').length - (log.endsWith('\n') ? 1 : 0),
          omitted_lines: 0,
        });
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('returns an empty log as an empty excerpt of zero lines', () => {
    expect(selectExcerpt(Buffer.alloc(0), { budgetBytes: 100 })).toEqual({ excerpt: '', truncated: false, total_bytes: 0, total_lines: 0, omitted_lines: 0 });
  });

  it('returns a small log with colour codes whole, cleaned and untruncated', () => {
    const result = selectExcerpt('\x1b[32mok\x1b[0m 3 tests\r\n', { budgetBytes: 200 });
    expect(result.excerpt).toBe('ok 3 tests');
    expect(result.truncated).toBe(false);
    expect(result.omitted_lines).toBe(0);
  });
});
