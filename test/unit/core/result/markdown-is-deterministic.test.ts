/**
 * Rendering is a pure function of the package and options: the same
 * package, or an equal one built separately, renders to the same bytes, in
 * both renderings and at every bound.
 */
import { describe, expect, it } from 'vitest';
import { renderJson } from '../../../../src/core/result/render-json.js';
import { renderMarkdown } from '../../../../src/core/result/render-markdown.js';
import { basePackage } from '../../../helpers/result-packages.js';

const build = () =>
  basePackage({
    key_findings: Array.from({ length: 80 }, (_, i) => (i % 17 === 0 ? `ERROR: shard ${i}` : `shard ${i} ok`)),
    evidence: [
      {
        label: 'o',
        kind: 'excerpt',
        source: 'j',
        truncated: true,
        excerpt: Array.from({ length: 500 }, (_, i) => `line ${i}`).join('\n'),
        total_bytes: 99_999,
        retrieval: 'headspace inspect j --logs',
      },
    ],
  });

describe('determinism', () => {
  for (const maxBytes of [512, 1000, 3000, 8192]) {
    it(`renders equal packages to equal markdown at ${maxBytes} bytes`, () => {
      expect(renderMarkdown(build(), { maxBytes })).toBe(renderMarkdown(build(), { maxBytes }));
    });
  }

  it('renders equal packages with keys in a different order to equal JSON', () => {
    const a = build();
    const b = structuredClone(a);
    b.evidence = b.evidence.map((e) => Object.fromEntries(Object.entries(e).reverse()) as typeof e);
    b.provenance = Object.fromEntries(Object.entries(b.provenance).reverse()) as typeof b.provenance;
    expect(renderJson(b)).toBe(renderJson(a));
    expect(renderMarkdown(b)).toBe(renderMarkdown(a));
  });
});
