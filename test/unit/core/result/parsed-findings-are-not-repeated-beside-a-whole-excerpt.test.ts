/**
 * Nothing is printed twice (#13): while the whole output is shown, a parsed
 * finding (a test summary, compiler diagnostics) keeps only its headline in
 * markdown, since the output's own lines carry each failure; once the output
 * is cut, the finding's lines come back, because they are then the only
 * place those facts survive. JSON always has every field.
 */
import { describe, expect, it } from 'vitest';
import { renderJson } from '../../../../src/core/result/render-json.js';
import { renderMarkdown } from '../../../../src/core/result/render-markdown.js';
import { basePackage } from '../../../helpers/result-packages.js';

const FAILURE = 'FAILED tests/test_x.py:12 test_divide — AssertionError: 3 != 4';
const summary = { kind: 'test-summary', text: ['tests: 1 failed, 3 passed (pytest)', FAILURE].join('\n'), failed: 1 };
const output = (lines: number) =>
  [...Array.from({ length: lines }, (_, i) => `collected line ${i}`), 'E   AssertionError: 3 != 4', 'tests/test_x.py:12: AssertionError'].join('\n');
const pkg = (lines: number, truncated: boolean) =>
  basePackage({
    key_findings: [summary, 'exit 1, output 900 bytes'],
    evidence: [{ label: 'captured output', kind: 'excerpt', source: 'job-abc', truncated, excerpt: output(lines) }],
  });

describe('parsed findings beside the output', () => {
  it('show only their headline while the output is whole', () => {
    const markdown = renderMarkdown(pkg(3, false));
    expect(markdown).toContain('- tests: 1 failed, 3 passed (pytest)\n- exit 1, output 900 bytes\n');
    expect(markdown).not.toContain(FAILURE);
  });

  it('show their lines again once the output is cut', () => {
    expect(renderMarkdown(pkg(3, true))).toContain(`- ${FAILURE}\n`);
    expect(renderMarkdown(pkg(400, false), { maxBytes: 2048 })).toContain(`- ${FAILURE}\n`);
  });

  it('keep every field in JSON', () => {
    expect(JSON.parse(renderJson(pkg(3, false))).key_findings[0]).toEqual(summary);
  });
});
