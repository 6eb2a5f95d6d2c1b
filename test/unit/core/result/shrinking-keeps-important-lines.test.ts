/**
 * When the renderer must shrink text to fit, it keeps what matters rather
 * than a blind head or tail: the error in the middle of an excerpt, the last
 * line (the answer), and, in a long list, the items that report failures.
 * Gap lines keep counting every line left out, including the lines an
 * excerpt had already left out.
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../../src/core/result/render-markdown.js';
import { basePackage } from '../../../helpers/result-packages.js';
import { parseGapMarker } from '../../../../src/core/output/select-excerpt.js';

describe('shrinking keeps important lines', () => {
  it('keeps an error from the middle of an excerpt and its last line', () => {
    const lines = Array.from({ length: 300 }, (_, i) => `iteration ${i}: residual ${(1 / (i + 1)).toFixed(6)}`);
    lines[150] = 'ERROR: matrix is singular at row 42';
    lines.push('answer=17');
    const markdown = renderMarkdown(
      basePackage({ evidence: [{ label: 'o', kind: 'excerpt', source: 'job-abc', truncated: false, excerpt: lines.join('\n') }] }),
      { maxBytes: 1400 },
    );
    expect(markdown).toContain('\nERROR: matrix is singular at row 42\n');
    expect(markdown).toContain('\nanswer=17\n');
    expect(markdown).not.toContain('iteration 100:');
  });

  it('adds lines an excerpt had already left out into the new gap counts', () => {
    const shown = Array.from({ length: 60 }, (_, i) => `kept line ${i} ${'.'.repeat(20)}`);
    const excerpt = [shown.slice(0, 30), '… [1000 lines omitted] …', shown.slice(30)].flat().join('\n');
    const markdown = renderMarkdown(basePackage({ evidence: [{ label: 'o', kind: 'excerpt', source: 'j', truncated: true, excerpt, total_lines: 1060 }] }), {
      maxBytes: 1200,
    });
    const body = markdown.slice(markdown.indexOf('```text\n') + 8, markdown.lastIndexOf('\n```'));
    const gaps = body
      .split('\n')
      .map(parseGapMarker)
      .filter((n): n is number => n !== undefined);
    const kept = body.split('\n').filter((line) => line.startsWith('kept line')).length;
    expect(gaps.reduce((a, b) => a + b, 0) + kept).toBe(1060);
  });

  it('keeps failure items from a long list of findings', () => {
    const findings = Array.from({ length: 200 }, (_, i) => `step ${i} completed in ${i % 7} ms`);
    findings[120] = 'FAILED tests/test_io.py::test_read - OSError';
    const markdown = renderMarkdown(basePackage({ key_findings: findings }), { maxBytes: 1200 });
    expect(markdown).toContain('- FAILED tests/test_io.py::test_read - OSError');
    expect(markdown).toMatch(/- … \[\d+ items omitted\] …/);
    expect(markdown).toMatch(/- …\[truncated: \d+ of \d+ bytes shown -- full text: in the JSON rendering\]/);
  });
});
