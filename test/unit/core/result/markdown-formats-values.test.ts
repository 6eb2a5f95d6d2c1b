/**
 * Values render the same way everywhere: lists as `- item`, empty values and
 * nulls as `(none)`, booleans in lowercase; resource usage and provenance
 * compact (known figures only: JSON keeps every field), every policy limit
 * on one line with who enforces it, and the command as one pasteable,
 * shell-quoted line.
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown, shellJoin } from '../../../../src/core/result/render-markdown.js';
import { basePackage } from '../../../helpers/result-packages.js';


describe('markdown value formatting', () => {
  it('renders an empty package with (none) in every empty section', () => {
    const markdown = renderMarkdown(basePackage({ outcome_summary: '', provenance: { ...basePackage().provenance, command: null } }));
    expect(markdown).toBe(
      [
        '# headspace result',
        '## Outcome summary',
        '(none)',
        '## Status',
        'failure',
        '## Key findings',
        '(none)',
        '## Evidence',
        '(none)',
        '## Artifacts',
        '(none)',
        '## Warnings and limitations',
        '(none)',
        '## Resource usage',
        '(none)',
        '## Provenance',
        '- run by headspace 0.1.0 (result schema 1): workspace demo, job job-abc, provider fake',
        '- exit code: 1',
        '## Suggested attention',
        '(none)',
        '',
      ].join('\n'),
    );
  });

  it('renders evidence, artifacts and policy limits as nested key lines', () => {
    const markdown = renderMarkdown(
      basePackage({
        key_findings: ['exit code 1'],
        evidence: [{ label: 'captured output', kind: 'excerpt', source: 'job-abc', truncated: false, excerpt: 'pi=3.14', total_bytes: 8, total_lines: 1, omitted_lines: 0, retrieval: 'headspace inspect job-abc --logs' }],
        artifacts: [{ name: 'report.json', purpose: 'the answer', media_type: 'application/json', digest: 'sha256:ab', size_bytes: 42, reference: null }],
        provenance: {
          ...basePackage().provenance,
          policy_summary: [
            { name: 'memory', value: '512 MiB', label: 'enforced', by: 'provider' },
            { name: 'storage', value: '1 GiB', label: 'measured', by: 'engine' },
            { name: 'network', value: 'off', label: 'measured', by: 'none' },
          ],
        },
      }),
    );
    expect(markdown).toContain('## Key findings\n- exit code 1\n');
    expect(markdown).toContain(
      [
        '- label: captured output',
        '  - kind: excerpt, source: job-abc, truncated: false',
        '  - source size: 8 bytes, 1 lines, 0 lines omitted',
        '  - retrieval: `headspace inspect job-abc --logs`',
        '  - excerpt:',
        '```text',
        'pi=3.14',
        '```',
        '## Artifacts',
        '- name: report.json',
        '  - purpose: the answer',
        '  - media_type: application/json',
        '  - digest: sha256:ab',
        '  - size_bytes: 42',
        '  - reference: (none)',
      ].join('\n'),
    );
    expect(markdown).toContain('- policy: memory 512 MiB (enforced by provider); storage 1 GiB (measured by engine); network off (measured)\n');
  });

  it('shell-quotes the command on one line', () => {
    expect(shellJoin(['python3', '-c', "print('hi')", 'a b', '', 'x\ny', '--flag=1'])).toBe("python3 -c 'print('\\''hi'\\'')' 'a b' '' $'x\\ny' --flag=1");
  });

  it('clips a very long command with a note of the bytes cut', () => {
    const markdown = renderMarkdown(basePackage({ provenance: { ...basePackage().provenance, command: ['echo', 'x'.repeat(1000)] } }));
    const line = markdown.split('\n').find((l) => l.startsWith('- command: '))!;
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual('- command: '.length + 240);
    expect(line).toMatch(/…\[\+\d+ bytes\]$/);
  });
});
