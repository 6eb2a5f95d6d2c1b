/**
 * Result packages for renderer tests: a fixed base package, and a fast-check
 * arbitrary of hostile packages (marker look-alikes, fences, control bytes,
 * long multi-byte runs) shared by the property tests.
 */
import fc from 'fast-check';
import type { Provenance, ResultPackage } from '../../src/core/result/result-package.js';
import { buildResult, emptyUsage } from '../../src/core/result/build-result.js';

/** Provenance of a result about nothing in particular (every id and time unknown): tests override what they need. */
export function emptyProvenance(overrides: Partial<Provenance> = {}): Provenance {
  return {
    result_schema_version: 1,
    headspace_version: '0',
    verb: 'ls',
    workspace_id: null,
    job_id: null,
    provider: null,
    profile: null,
    environment_digest: null,
    command: null,
    started_at: null,
    finished_at: null,
    policy_summary: [],
    inputs: [],
    exit_code: null,
    ...overrides,
  };
}

export function basePackage(overrides: Partial<ResultPackage> = {}): ResultPackage {
  return buildResult({
    outcome_summary: 'job job-abc ran in workspace demo',
    status: 'failure',
    key_findings: [],
    evidence: [],
    artifacts: [],
    warnings: [],
    resource_usage: emptyUsage(),
    provenance: {
      result_schema_version: 1,
      headspace_version: '0.1.0',
      verb: 'run',
      workspace_id: 'demo',
      job_id: 'job-abc',
      provider: 'fake',
      profile: null,
      environment_digest: null,
      command: ['python3', 'run.py'],
      started_at: null,
      finished_at: null,
      policy_summary: [],
      inputs: [],
      exit_code: 1,
    },
    attention: [],
    ...overrides,
  });
}

export const text = fc.oneof(
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

export const arbitraryPackage: fc.Arbitrary<ResultPackage> = fc
  .record({
    outcome_summary: block,
    status: fc.constantFrom('success' as const, 'failure' as const, 'timeout' as const),
    key_findings: fc.array(text, { maxLength: 30 }),
    evidence: fc.array(evidence, { maxLength: 3 }),
    artifacts: fc.array(
      fc.record({
        name: text,
        purpose: text,
        media_type: text,
        digest: fc.option(text, { nil: null }),
        size_bytes: fc.option(fc.nat(), { nil: null }),
        reference: fc.option(text, { nil: null }),
      }),
      { maxLength: 8 },
    ),
    warnings: fc.array(text, { maxLength: 30 }),
    attention: fc.array(
      text.map((t) => ({ kind: 'note', text: t })),
      { maxLength: 30 },
    ),
    command: fc.option(fc.array(text, { maxLength: 6 }), { nil: null }),
    limits: fc.array(
      fc.record({
        name: text,
        value: text,
        label: fc.constantFrom('enforced' as const, 'measured' as const),
        by: fc.constantFrom('provider' as const, 'engine' as const, 'none' as const),
      }),
      { maxLength: 6 },
    ),
  })
  .map((p) =>
    buildResult({
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

/** The key findings as markdown shows them: a structured finding (#13) by its text. */
export function findingTexts(pkg: Pick<ResultPackage, 'key_findings'>): string[] {
  return pkg.key_findings.map((f) => (typeof f === 'string' ? f : f.text));
}

/** The attention items as markdown shows them (each is an object with `kind` and `text`, #13). */
export function attentionTexts(pkg: Pick<ResultPackage, 'attention'>): string[] {
  return pkg.attention.map((a) => a.text);
}
