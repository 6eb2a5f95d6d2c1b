/**
 * Every markdown rendering starts with `# headspace result` and has exactly
 * the nine `## <Section title>` headings of SECTION_ORDER, in order, outside
 * any code fence, whatever the package holds and however hard the bound
 * squeezes it. Text inside the package (a summary reading `## Status`, a log
 * line of backticks) can neither forge a heading nor swallow one into a fence.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../../src/core/result/render-markdown.js';
import { emptyUsage, makeResultPackage, SECTION_ORDER, SECTION_TITLES, type ResultPackage } from '../../../../src/core/result/result-package.js';

const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 120 }),
  fc.constantFrom('## Status', '```', '````text', '…[truncated: 1 of 2 bytes shown]', '… [4 lines omitted] …', 'ERROR: boom', '\x1b[31mred\x00'),
  fc.integer({ min: 200, max: 3000 }).map((n) => '€'.repeat(n)),
);
const block = fc.array(text, { maxLength: 40 }).map((lines) => lines.join('\n'));
const count = fc.option(fc.nat({ max: 10_000_000 }), { nil: undefined });

const evidence = fc.record(
  {
    label: text,
    kind: fc.constantFrom('excerpt' as const, 'fact' as const),
    source: text,
    truncated: fc.boolean(),
    excerpt: block,
    total_bytes: count,
    total_lines: count,
    omitted_lines: count,
    retrieval: fc.option(fc.constantFrom('headspace inspect job-1 --logs', 'a `b` c'), { nil: undefined }),
  },
  { requiredKeys: ['label', 'kind', 'source', 'truncated', 'excerpt'] },
);

const pkg: fc.Arbitrary<ResultPackage> = fc
  .record({
    outcome_summary: block,
    status: fc.constantFrom('success' as const, 'failure' as const, 'timeout' as const),
    key_findings: fc.array(text, { maxLength: 30 }),
    evidence: fc.array(evidence, { maxLength: 3 }),
    artifacts: fc.array(fc.record({ name: text, purpose: text, media_type: text, digest: fc.option(text, { nil: null }), size_bytes: fc.option(fc.nat(), { nil: null }), reference: fc.option(text, { nil: null }) }), { maxLength: 8 }),
    warnings: fc.array(text, { maxLength: 30 }),
    attention: fc.array(text, { maxLength: 30 }),
    command: fc.option(fc.array(text, { maxLength: 6 }), { nil: null }),
    limits: fc.array(fc.record({ name: text, value: text, label: fc.constantFrom('enforced' as const, 'measured' as const), by: fc.constantFrom('provider' as const, 'engine' as const, 'none' as const) }), { maxLength: 6 }),
  })
  .map((p) =>
    makeResultPackage({
      ...p,
      resource_usage: { ...emptyUsage(), wall_time_seconds: 1.5 },
      provenance: {
        result_schema_version: 1,
        headspace_version: '0.1.0',
        verb: 'run',
        workspace_id: 'ws',
        job_id: 'job-1',
        provider: 'fake',
        profile: null,
        environment_digest: null,
        command: p.command,
        started_at: null,
        finished_at: null,
        policy_summary: p.limits,
        inputs: [],
        exit_code: 1,
      },
    }),
  );

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
    const empty = makeResultPackage({
      outcome_summary: '',
      status: 'success',
      key_findings: [],
      evidence: [],
      artifacts: [],
      warnings: [],
      resource_usage: emptyUsage(),
      provenance: { result_schema_version: 1, headspace_version: '0', verb: 'list', workspace_id: null, job_id: null, provider: null, profile: null, environment_digest: null, command: null, started_at: null, finished_at: null, policy_summary: [], inputs: [], exit_code: null },
      attention: [],
    });
    expect(headingsOutsideFences(renderMarkdown(empty, { maxBytes: 1 }))).toEqual(EXPECTED);
  });
});
