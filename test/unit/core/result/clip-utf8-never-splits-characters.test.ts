/**
 * Byte clipping respects characters: the clipped text is a prefix of the
 * input, within the byte limit, and ends on a character boundary (no split
 * multi-byte sequence, no lone half of a surrogate pair). clipLine's note
 * counts exactly the bytes that were cut.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clipLine, clipUtf8, utf8Length } from '../../../../src/core/result/sanitize-text.js';

describe('UTF-8 clipping', () => {
  it('returns the longest character-aligned prefix within the limit', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), fc.integer({ min: 0, max: 200 }), (text, limit) => {
        const clipped = clipUtf8(text, limit);
        expect(text.startsWith(clipped)).toBe(true);
        expect(utf8Length(clipped)).toBeLessThanOrEqual(limit);
        expect(Buffer.from(clipped).toString('utf8')).toBe(clipped);
        // One more code point would not have fitted.
        const next = text.slice(clipped.length).codePointAt(0);
        if (next !== undefined) expect(utf8Length(clipped + String.fromCodePoint(next))).toBeGreaterThan(limit);
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('notes exactly how many bytes a clipped line lost', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }), fc.integer({ min: 20, max: 120 }), (line, limit) => {
        const clipped = clipLine(line, limit);
        expect(utf8Length(clipped)).toBeLessThanOrEqual(Math.max(limit, 0));
        const note = /…\[\+(\d+) bytes\]$/.exec(clipped);
        if (utf8Length(line) <= limit) {
          expect(clipped).toBe(line);
          return;
        }
        expect(note).not.toBeNull();
        const shown = clipped.slice(0, clipped.length - note![0].length);
        expect(utf8Length(shown) + Number(note![1])).toBe(utf8Length(line));
      }),
      { seed: 42, numRuns: 200 },
    );
  });
});
