/**
 * An excerpt is fenced with a backtick run longer than any run inside it,
 * and never shorter than three, so a log that prints code fences of its own
 * can neither close ours early nor leak into the sections after it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeFence, renderMarkdown } from '../../../../src/core/result/render-markdown.js';
import { basePackage } from '../../../helpers/result-packages.js';

describe('excerpt fences', () => {
  it('are longer than any backtick run in the text, and at least three', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('`', 'a', '\n', ' '), { maxLength: 60 }), (chars) => {
        const text = chars.join('');
        const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
        expect(codeFence(text)).toBe('`'.repeat(Math.max(3, longest + 1)));
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('wrap a log that prints its own fences so the next heading survives', () => {
    const excerpt = ['```', '## Artifacts', '`````', 'done'].join('\n');
    const markdown = renderMarkdown(basePackage({ evidence: [{ label: 'o', kind: 'excerpt', source: 'j', truncated: false, excerpt }] }));
    expect(markdown).toContain(`- o (from j):\n\`\`\`\`\`\`text\n${excerpt}\n\`\`\`\`\`\`\n## Artifacts\n`);
  });
});
