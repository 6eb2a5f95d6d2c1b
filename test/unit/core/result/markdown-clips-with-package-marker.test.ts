/**
 * When even the minimum budgets overflow, the markdown is clipped block by
 * block within each section: the title and all nine headings stay, clipped
 * sections say so, and a final package marker says the result was clipped
 * and how to get the whole package as JSON, all within the bound.
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../../src/core/result/render-markdown.js';
import { basePackage } from '../../../helpers/result-packages.js';

const HUGE = basePackage({
  artifacts: Array.from({ length: 300 }, (_, i) => ({
    name: `out-${i}.csv`,
    purpose: 'table',
    media_type: 'text/csv',
    digest: null,
    size_bytes: i,
    reference: null,
  })),
  provenance: {
    ...basePackage().provenance,
    policy_summary: Array.from({ length: 100 }, (_, i) => ({ name: `limit-${i}`, value: `${i} units`, label: 'measured' as const, by: 'engine' as const })),
  },
});

describe('clipping as a last resort', () => {
  for (const maxBytes of [512, 1024, 2048]) {
    it(`keeps every heading and ends with the package marker at ${maxBytes} bytes`, () => {
      const markdown = renderMarkdown(HUGE, { maxBytes });
      expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(maxBytes);
      expect(markdown.match(/^## /gm)).toHaveLength(9);
      expect(markdown).toContain('…[section clipped]');
      expect(markdown.endsWith(`…[result clipped to fit ${maxBytes} bytes -- full result: in the JSON rendering]\n`)).toBe(true);
    });
  }

  it('names the full-result command when the caller gives one', () => {
    const markdown = renderMarkdown(HUGE, { maxBytes: 600, fullResult: 'headspace inspect demo --json' });
    expect(markdown.endsWith('…[result clipped to fit 600 bytes -- full result: `headspace inspect demo --json`]\n')).toBe(true);
  });

  it('raises bounds under 512 to 512', () => {
    expect(renderMarkdown(HUGE, { maxBytes: 10 })).toBe(renderMarkdown(HUGE, { maxBytes: 512 }));
  });
});
