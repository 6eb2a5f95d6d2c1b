/**
 * Shrinking goes in a fixed order (#13): provenance and usage detail give way
 * first (the whole policy becomes one line, the environment and input lines
 * go), then the warnings and attention lists, then evidence excerpts (down to
 * 80 bytes each), then the key findings, then other text. A package whose
 * excerpt alone overflows keeps every finding; the budget is the largest that
 * fits, so the result is close to the bound.
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../../src/core/result/render-markdown.js';
import type { LimitSummary } from '../../../../src/core/result/result-package.js';
import { basePackage } from '../../../helpers/result-packages.js';

const LOG = Array.from({ length: 2000 }, (_, i) => `log line ${i}`).join('\n');
const evidence = (excerpt: string) => [{ label: 'o', kind: 'excerpt' as const, source: 'j', truncated: false, excerpt }];
const POLICY: LimitSummary[] = ['network', 'filesystem', 'memory', 'cpu', 'pids', 'storage', 'wall_clock', 'output_bytes', 'concurrency'].map((name) => ({
  name,
  value: `a long value for the ${name} limit`,
  label: 'enforced',
  by: 'provider',
}));

describe('shrink order', () => {
  it('shrinks a long excerpt and leaves the findings whole', () => {
    const findings = Array.from({ length: 20 }, (_, i) => `finding number ${i} stays in full`);
    const markdown = renderMarkdown(basePackage({ key_findings: findings, evidence: evidence(LOG) }), { maxBytes: 4000 });
    for (const finding of findings) expect(markdown).toContain(`- ${finding}\n`);
    expect(markdown).toContain('lines omitted');
    expect(Buffer.byteLength(markdown)).toBeGreaterThan(3900);
    expect(Buffer.byteLength(markdown)).toBeLessThanOrEqual(4000);
  });

  it('drops the whole policy to one line before it cuts a byte of evidence', () => {
    const provenance = {
      ...basePackage().provenance,
      verb: 'inspect',
      environment_digest: `sha256:${'a'.repeat(64)}`,
      policy_summary: POLICY,
      policy_digest: `sha256:${'b'.repeat(64)}`,
    };
    const excerpt = Array.from({ length: 30 }, (_, i) => `ERROR ${i}: this line must survive`).join('\n');
    const whole = renderMarkdown(basePackage({ provenance, evidence: evidence(excerpt) }));
    expect(whole).toContain('(enforced by provider)');
    const tight = renderMarkdown(basePackage({ provenance, evidence: evidence(excerpt) }), { maxBytes: Buffer.byteLength(whole) - 200 });
    expect(tight).not.toContain('(enforced by provider)');
    expect(tight).toContain('- policy: ');
    expect(tight).toContain(excerpt);
  });

  it('shrinks warnings and attention before the evidence', () => {
    const warnings = Array.from({ length: 40 }, (_, i) => `warning number ${i} is long enough to matter here`);
    const excerpt = Array.from({ length: 20 }, (_, i) => `ERROR ${i}: kept`).join('\n');
    const markdown = renderMarkdown(basePackage({ warnings, attention: warnings.map((text) => ({ kind: 'note', text })), evidence: evidence(excerpt) }), {
      maxBytes: 2000,
    });
    expect(markdown).toContain(excerpt);
    expect(markdown).toMatch(/- … \[\d+ items omitted\] …/);
  });

  it('shrinks the findings only once the evidence is a one-line pointer', () => {
    const findings = Array.from({ length: 300 }, (_, i) => `finding number ${i}`);
    const markdown = renderMarkdown(basePackage({ key_findings: findings, evidence: evidence(LOG) }), { maxBytes: 3000 });
    expect(markdown).not.toContain('```text');
    expect(markdown).toMatch(/^- o \(\d+ bytes\): …\[truncated: 0 of \d+ bytes shown/m);
    expect(markdown).toMatch(/- … \[\d+ items omitted\] …/);
  });

  it("keeps a structured finding's headline when its items give way", () => {
    const failures = Array.from({ length: 40 }, (_, i) => `FAILED tests/test_x.py:${i + 10} test_case_${i} — AssertionError: ${i} != ${i + 1}`);
    const summary = { kind: 'test-summary', text: ['tests: 40 failed, 2 passed (pytest)', ...failures].join('\n') };
    const markdown = renderMarkdown(basePackage({ key_findings: [summary, 'exit 1, output 9000 bytes'], evidence: evidence(LOG) }), { maxBytes: 1024 });
    expect(markdown).toContain('- tests: 40 failed, 2 passed (pytest)\n');
    expect(markdown).toContain('test_case_0');
  });
});
