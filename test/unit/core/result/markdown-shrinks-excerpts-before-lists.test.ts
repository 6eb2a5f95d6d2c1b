/**
 * Shrinking goes in a fixed order: evidence excerpts give way first (down to
 * 80 bytes each), then long findings, warnings and attention lists, then
 * other text. A package whose excerpt alone overflows keeps every finding;
 * the budget is the largest that fits, so the result is close to the bound.
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../../src/core/result/render-markdown.js';
import { basePackage } from '../../../helpers/result-packages.js';


describe('shrink order', () => {
  it('shrinks a long excerpt and leaves the findings whole', () => {
    const findings = Array.from({ length: 20 }, (_, i) => `finding number ${i} stays in full`);
    const excerpt = Array.from({ length: 2000 }, (_, i) => `log line ${i}`).join('\n');
    const markdown = renderMarkdown(basePackage({ key_findings: findings, evidence: [{ label: 'o', kind: 'excerpt', source: 'j', truncated: false, excerpt }] }), { maxBytes: 4000 });
    for (const finding of findings) expect(markdown).toContain(`- ${finding}\n`);
    expect(markdown).toContain('lines omitted');
    expect(Buffer.byteLength(markdown)).toBeGreaterThan(3900);
    expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(4000);
  });

  it('shrinks lists only once excerpts are at their 80-byte minimum', () => {
    const findings = Array.from({ length: 300 }, (_, i) => `finding number ${i}`);
    const excerpt = Array.from({ length: 2000 }, (_, i) => `log line ${i}`).join('\n');
    const markdown = renderMarkdown(basePackage({ key_findings: findings, evidence: [{ label: 'o', kind: 'excerpt', source: 'j', truncated: false, excerpt }] }), { maxBytes: 3000 });
    const body = markdown.slice(markdown.indexOf('```text\n') + 8, markdown.lastIndexOf('\n```'));
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(80);
    expect(body).toContain('log line 1999');
    expect(markdown).toMatch(/- … \[\d+ items omitted\] …/);
  });
});
