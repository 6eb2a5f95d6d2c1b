/**
 * A truncation marker reads `…[truncated: N of M bytes shown -- full text: `<retrieval>`]`:
 * M is the true size of the source (evidence.total_bytes), N the bytes shown,
 * and the retrieval command appears exactly as given, once. The seed wrapped
 * an already complete command again and printed
 * `headspace inspect headspace inspect x --logs --logs`; this guards that.
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../../src/core/result/render-markdown.js';
import { basePackage } from '../../../helpers/result-packages.js';
import { selectExcerpt } from '../../../../src/core/output/select-excerpt.js';

const RETRIEVAL = 'headspace inspect job-abc --logs';
const LOG = Array.from({ length: 5000 }, (_, i) => `record ${i} processed without incident`).join('\n');

function markersIn(markdown: string): string[] {
  return markdown.split('\n').filter((line) => line.includes('…[truncated:'));
}

describe('truncation markers', () => {
  it('name the retrieval command once, unwrapped, for an excerpt from selectExcerpt', () => {
    const selected = selectExcerpt(LOG, { budgetBytes: 3000, retrieval: RETRIEVAL });
    expect(selected.excerpt).toContain(`\`${RETRIEVAL}\``);
    const markdown = renderMarkdown(basePackage({ evidence: [{ label: 'output', kind: 'excerpt', source: 'job-abc', retrieval: RETRIEVAL, ...selected }] }));
    const markers = markersIn(markdown);
    expect(markers).toEqual([
      `…[truncated: ${Buffer.byteLength(selected.excerpt.slice(0, selected.excerpt.lastIndexOf('\n')))} of ${Buffer.byteLength(LOG)} bytes shown -- full text: \`${RETRIEVAL}\`]`,
    ]);
    expect(markdown).not.toContain('inspect headspace inspect');
    expect(markdown).not.toContain('--logs --logs');
    expect(markdown.split(RETRIEVAL).length - 1).toBe(1);
  });

  it('state the true total, not the excerpt size, when the renderer shrinks further', () => {
    const selected = selectExcerpt(LOG, { budgetBytes: 6000, retrieval: RETRIEVAL });
    const markdown = renderMarkdown(basePackage({ evidence: [{ label: 'output', kind: 'excerpt', source: 'job-abc', retrieval: RETRIEVAL, ...selected }] }), {
      maxBytes: 1500,
    });
    const [marker, ...rest] = markersIn(markdown);
    expect(rest).toEqual([]);
    const [, shown, total] = /^…\[truncated: (\d+) of (\d+) bytes shown -- full text: `(.*)`\]$/.exec(marker ?? '') ?? [];
    expect(Number(total)).toBe(Buffer.byteLength(LOG));
    expect(Number(shown)).toBeLessThan(1500);
    expect(marker).toContain(`\`${RETRIEVAL}\``);
  });

  it('fall back to the excerpt length when the evidence has no total', () => {
    const excerpt = Array.from({ length: 400 }, (_, i) => `line ${i}`).join('\n');
    const markdown = renderMarkdown(
      basePackage({ evidence: [{ label: 'output', kind: 'excerpt', source: 'job-abc', truncated: false, excerpt, retrieval: RETRIEVAL }] }),
      { maxBytes: 1200 },
    );
    expect(markersIn(markdown)).toHaveLength(1);
    expect(markersIn(markdown)[0]).toMatch(new RegExp(`of ${Buffer.byteLength(excerpt)} bytes shown -- full text: \`${RETRIEVAL}\``));
  });

  it('quote a retrieval command holding backticks with a longer delimiter', () => {
    const markdown = renderMarkdown(
      basePackage({ evidence: [{ label: 'o', kind: 'excerpt', source: 'j', truncated: true, excerpt: 'x', total_bytes: 9, retrieval: 'echo `date`' }] }),
    );
    expect(markersIn(markdown)).toEqual(['…[truncated: 1 of 9 bytes shown -- full text: `` echo `date` ``]']);
  });
});
