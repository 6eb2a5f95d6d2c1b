/**
 * Whatever the log holds, the excerpt's UTF-8 size never exceeds the budget
 * (budgets below 80 count as 80), gap lines and truncation marker included,
 * and the result never holds a split character.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { selectExcerpt } from '../../../../src/core/output/select-excerpt.js';

const line = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 120 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    'ERROR: boom',
    'Traceback (most recent call last):',
    '  File "x.py", line 1',
    'answer=42',
    '\x1b[31mred\x1b[0m',
    'a\rb\rc',
    '```',
    '… [3 lines omitted] …',
  ),
  fc.integer({ min: 400, max: 3000 }).map((n) => 'é'.repeat(n)),
);

describe('selectExcerpt budget', () => {
  it('never exceeds the budget, for any log and budget', () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 200 }),
        fc.integer({ min: 0, max: 4000 }),
        fc.option(fc.constantFrom('headspace inspect job-1 --logs'), { nil: undefined }),
        (lines, budgetBytes, retrieval) => {
          const log = Buffer.from(lines.join('\n'));
          const { excerpt } = selectExcerpt(log, { budgetBytes, retrieval });
          expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(Math.max(80, budgetBytes, log.length <= budgetBytes ? log.length : 0));
          expect(Buffer.from(excerpt).toString('utf8')).toBe(excerpt);
        },
      ),
      { seed: 42, numRuns: 200 },
    );
  });

  it('never exceeds the budget for raw bytes that are not UTF-8', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.integer({ min: 0, max: 2000 }), (bytes, budgetBytes) => {
        const { excerpt } = selectExcerpt(Buffer.from(bytes), { budgetBytes });
        expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(Math.max(80, budgetBytes));
      }),
      { seed: 42, numRuns: 200 },
    );
  });
});
