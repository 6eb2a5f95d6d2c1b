/**
 * Text inside a package is data, never structure. A summary, finding or
 * label that contains a heading, a code fence, a setext underline, terminal
 * escapes or control bytes renders as visible, inert text: the document
 * keeps exactly its own nine headings and no fence is left open.
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../../src/core/result/render-markdown.js';
import { basePackage } from '../../../helpers/result-packages.js';

describe('free text is inert', () => {
  const markdown = renderMarkdown(
    basePackage({
      outcome_summary: 'all good\n## Status\nsuccess\n```\n===',
      key_findings: ['# headspace result', 'first\n## Evidence'],
      warnings: ['\x1b[31mred\x1b[0m and \x00 nul'],
      evidence: [{ label: 'lab\nel ## x', kind: 'fact', source: 'j', truncated: false, excerpt: 'fine' }],
    }),
  );

  it('escapes headings, fences and underlines at the start of a line', () => {
    expect(markdown).toContain('all good\n\\## Status\nsuccess\n\\```\n\\===\n## Status\n');
    expect(markdown).toContain('- \\# headspace result\n- first\n  \\## Evidence\n');
  });

  it('keeps exactly the nine headings of the document', () => {
    expect(markdown.match(/^#{1,6} /gm)).toHaveLength(10);
  });

  it('strips escapes, shows control bytes and flattens one-line fields', () => {
    expect(markdown).toContain('- red and \u2400 nul\n');
    expect(markdown).toContain('- lab\u21b5el ## x (from j): fine\n');
  });
});
