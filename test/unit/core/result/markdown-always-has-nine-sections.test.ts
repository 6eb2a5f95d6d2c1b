/**
 * Every markdown rendering starts with `# headspace result` and has exactly
 * the nine `## <Section title>` headings of SECTION_ORDER, in order, outside
 * any code fence, whatever the package holds and however hard the bound
 * squeezes it. Text inside the package (a summary reading `## Status`, a log
 * line of backticks) can neither forge a heading nor swallow one into a fence.
 */
import fc from 'fast-check';
import { arbitraryPackage as pkg, emptyProvenance } from '../../../helpers/result-packages.js';
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../../src/core/result/render-markdown.js';
import { SECTION_ORDER, SECTION_TITLES } from '../../../../src/core/result/result-package.js';
import { buildResult, emptyUsage } from '../../../../src/core/result/build-result.js';

/** Headings (`#`/`##` at column 0) outside fenced code blocks, read the CommonMark way. */
function headingsOutsideFences(markdown: string): string[] {
  const headings: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    if (fence !== undefined) {
      if (new RegExp(`^ {0,3}${fence}\`*\\s*$`).test(line)) fence = undefined;
      continue;
    }
    const open = /^ {0,3}(`{3,})[^`]*$/.exec(line);
    if (open) fence = open[1];
    else if (/^#{1,6}(\s|$)/.test(line)) headings.push(line);
  }
  expect(fence).toBeUndefined();
  return headings;
}

const EXPECTED = ['# headspace result', ...SECTION_ORDER.map((name) => `## ${SECTION_TITLES[name]}`)];

describe('markdown sections', () => {
  it('has the title and the nine headings in order, for any package and bound', () => {
    fc.assert(
      fc.property(pkg, fc.integer({ min: 0, max: 12_000 }), (p, maxBytes) => {
        const markdown = renderMarkdown(p, { maxBytes });
        expect(markdown.startsWith('# headspace result\n')).toBe(true);
        expect(headingsOutsideFences(markdown)).toEqual(EXPECTED);
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('keeps all nine headings for an empty package at the smallest bound', () => {
    const empty = buildResult({
      outcome_summary: '',
      status: 'success',
      key_findings: [],
      evidence: [],
      artifacts: [],
      warnings: [],
      resource_usage: emptyUsage(),
      provenance: emptyProvenance({ result_schema_version: 1, headspace_version: '0', verb: 'list' }),
      attention: [],
    });
    expect(headingsOutsideFences(renderMarkdown(empty, { maxBytes: 1 }))).toEqual(EXPECTED);
  });
});
