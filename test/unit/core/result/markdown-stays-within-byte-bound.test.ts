/**
 * For any package and any requested bound, the markdown's UTF-8 size is at
 * most the bound (bounds under 512 count as 512), and the text is whole
 * characters: encoding and decoding it again changes nothing.
 */
import fc from 'fast-check';
import { arbitraryPackage as pkg, emptyProvenance } from '../../../helpers/result-packages.js';
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../../src/core/result/render-markdown.js';
import { buildResult, emptyUsage } from '../../../../src/core/result/build-result.js';

describe('markdown byte bound', () => {
  it('never exceeds the bound and never splits a character', () => {
    fc.assert(
      fc.property(pkg, fc.integer({ min: 0, max: 12_000 }), (p, maxBytes) => {
        const markdown = renderMarkdown(p, { maxBytes });
        expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(Math.max(512, maxBytes));
        expect(Buffer.from(markdown).toString('utf8')).toBe(markdown);
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('uses 8192 bytes when no bound is given', () => {
    const big = buildResult({
      outcome_summary: 'x',
      status: 'success',
      key_findings: Array.from({ length: 500 }, (_, i) => `finding ${i}`),
      evidence: [],
      artifacts: [],
      warnings: [],
      resource_usage: emptyUsage(),
      provenance: emptyProvenance({ result_schema_version: 1, headspace_version: '0', verb: 'run' }),
      attention: [],
    });
    const size = Buffer.byteLength(renderMarkdown(big));
    expect(size).toBeLessThanOrEqual(8192);
    expect(size).toBeGreaterThan(7000);
  });
});
