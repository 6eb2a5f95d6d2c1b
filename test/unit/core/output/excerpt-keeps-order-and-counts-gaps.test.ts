/**
 * Kept lines appear in their original order, each run of left-out lines is
 * one `… [N lines omitted] …` line, and the gap counts add up to
 * omitted_lines, which with the kept lines accounts for every line of the log.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseGapMarker, selectExcerpt } from '../../../../src/core/output/select-excerpt.js';

const line = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z0-9 =:]{0,40}$/) },
  { weight: 1, arbitrary: fc.constantFrom('ERROR: disk full', 'FAILED tests/a.py::t - x', 'answer=1', 'warning: slow', '') },
);

describe('selectExcerpt order and gaps', () => {
  it('keeps lines in order and accounts for every left-out line', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 300 }), fc.integer({ min: 80, max: 3000 }), (body, budgetBytes) => {
        // A non-empty last line, so the log's line count is unambiguous (a final newline ends a line).
        const lines = [...body, 'end'];
        const log = lines.join('\n');
        const result = selectExcerpt(log, { budgetBytes });
        expect(result.total_lines).toBe(lines.length);
        if (!result.truncated) return;
        const shown = result.excerpt.split('\n');
        let cursor = 0;
        let gapTotal = 0;
        for (const entry of shown) {
          const gap = parseGapMarker(entry);
          if (gap !== undefined) {
            expect(gap).toBeGreaterThan(0);
            gapTotal += gap;
            cursor += gap;
            continue;
          }
          // A kept line is the very next line of the log after the gaps so far.
          expect(entry).toBe(lines[cursor]);
          cursor++;
        }
        expect(cursor).toBe(lines.length);
        expect(gapTotal).toBe(result.omitted_lines);
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('writes one gap line per run, with a singular for one line', () => {
    const log = ['ERROR: a', 'noise', ...Array.from({ length: 40 }, (_, i) => `noise ${i} ${'x'.repeat(30)}`), 'end'].join('\n');
    const { excerpt } = selectExcerpt(log, { budgetBytes: 120 });
    expect(excerpt.split('\n').filter((l) => parseGapMarker(l) !== undefined).length).toBeGreaterThan(0);
    expect(selectExcerpt(['ERROR: a', 'x'.repeat(90), 'end'].join('\n'), { budgetBytes: 80 }).excerpt).toContain('… [1 line omitted] …');
  });
});
