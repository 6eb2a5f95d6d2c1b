/**
 * Values render the same way everywhere: lists as `- item`, an empty section
 * as one `(none)` line; resource usage and provenance compact (known figures
 * only, nothing the summary already says: JSON keeps every field); evidence
 * as a heading with its size and a fenced excerpt, the retrieval command only
 * when something was left out; an artifact on one line; the whole policy
 * with who enforces each limit at `create` and `inspect`, elsewhere one line
 * of what differs from the defaults with its digest; and the command as one
 * pasteable, shell-quoted line.
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown, shellJoin } from '../../../../src/core/result/render-markdown.js';
import type { LimitSummary } from '../../../../src/core/result/result-package.js';
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
        '- run by headspace 0.1.0 on fake, workspace demo, job job-abc',
        '## Suggested attention',
        '(none)',
        '',
      ].join('\n'),
    );
  });

  it('renders evidence with its size, and an artifact on one line', () => {
    const markdown = renderMarkdown(
      basePackage({
        key_findings: ['exit code 1'],
        evidence: [
          {
            label: 'captured output',
            kind: 'excerpt',
            source: 'job-abc',
            truncated: false,
            excerpt: 'pi=3.14',
            total_bytes: 8,
            total_lines: 1,
            omitted_lines: 0,
            retrieval: 'headspace inspect job-abc --logs',
          },
        ],
        artifacts: [{ name: 'report.json', purpose: 'the answer', media_type: 'application/json', digest: 'sha256:ab', size_bytes: 42, reference: null }],
      }),
    );
    expect(markdown).toContain('## Key findings\n- exit code 1\n');
    expect(markdown).toContain(
      [
        '## Evidence',
        '- captured output:',
        '```text',
        'pi=3.14',
        '```',
        '## Artifacts',
        '- report.json: the answer (application/json, 42 bytes, sha256:ab, not exported)',
        '## Warnings',
      ].join('\n'),
    );
    expect(markdown).not.toContain('headspace inspect job-abc --logs');
  });

  const limits: LimitSummary[] = [
    { name: 'memory', value: '512 MiB', label: 'enforced', by: 'provider' },
    { name: 'storage', value: '1 GiB', label: 'measured', by: 'engine' },
    { name: 'wall_clock', value: '10 s per job', label: 'enforced', by: 'engine' },
    { name: 'network', value: 'disabled', label: 'measured', by: 'none' },
  ];
  const withPolicy = (verb: string) =>
    basePackage({ provenance: { ...basePackage().provenance, verb, policy_summary: limits, policy_digest: `sha256:${'c'.repeat(64)}` } });

  it('shows every limit with who enforces it where the reader decides on the policy', () => {
    for (const verb of ['create', 'inspect']) {
      expect(renderMarkdown(withPolicy(verb))).toContain(
        '- policy: memory 512 MiB (enforced by provider); storage 1 GiB (measured by engine); wall_clock 10 s per job (enforced by engine); network disabled (measured)\n',
      );
    }
  });

  it('shows the policy elsewhere as what differs from the defaults, what is not enforced, and its digest', () => {
    expect(renderMarkdown(withPolicy('run'))).toContain(
      '- policy: wall_clock 10 s per job; otherwise default closed, storage, network measured (sha256:cccccccc)\n',
    );
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
