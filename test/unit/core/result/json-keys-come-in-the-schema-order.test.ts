/**
 * The schema decides the order of everything: SECTION_ORDER (which markdown
 * and JSON follow) lists the schema's sections in its order, and renderJson,
 * which restates its key lists to keep zod off the CLI's path, writes each
 * entry's fields in the order the schema declares them, so a field added to
 * the schema but not to the renderer's list is caught here rather than
 * landing, sorted, at the end.
 */
import { describe, expect, it } from 'vitest';
import { buildResult } from '../../../../src/core/result/build-result.js';
import { renderJson } from '../../../../src/core/result/render-json.js';
import { SECTION_ORDER } from '../../../../src/core/result/result-package.js';
import { ArtifactSchema, EvidenceSchema, ProvenanceSchema, ResourceUsageSchema, ResultPackageSchema } from '../../../../src/core/result/result-schema.js';

/** A package with every field of every ordered entry set, none null. */
const full = buildResult({
  outcome_summary: 'everything set',
  status: 'success',
  evidence: [
    {
      retrieval: 'headspace logs job-1',
      retrieval_action: { verb: 'logs', args: { jobId: 'job-1' } },
      omitted_lines: 1,
      total_lines: 3,
      total_bytes: 30,
      excerpt: 'a\nb',
      truncated: true,
      source: 'job-1',
      kind: 'excerpt',
      label: 'output',
    },
  ],
  artifacts: [{ reference: '/tmp/out.json', size_bytes: 2, digest: 'sha256:00', media_type: 'application/json', purpose: 'the report', name: 'out.json' }],
  resource_usage: { output_bytes: 1, storage_bytes: 2, peak_pids: 3, max_memory_scope: 'job', max_memory_bytes: 4, cpu_seconds: 5, wall_time_seconds: 6 },
  provenance: {
    receipt_sha256: 'sha256:44',
    verification: { outcome: 'passed', checks: [] },
    trace_id: 'trace-1',
    exit_code: 0,
    inputs: [],
    policy_digest: 'sha256:11',
    policy_summary: [],
    finished_at: '2026-01-01T00:00:01.000Z',
    started_at: '2026-01-01T00:00:00.000Z',
    cwd: '/workspace/src',
    command: ['true'],
    environment_digest: 'sha256:22',
    image_digest: 'sha256:33',
    profile: 'python',
    provider: 'fake',
    job_id: 'job-1',
    workspace_id: 'ws',
    verb: 'run',
    headspace_version: '0.0.0',
    result_schema_version: 2,
  },
});

describe('key order', () => {
  it('lists the schema’s sections in SECTION_ORDER', () => {
    expect([...SECTION_ORDER]).toEqual(Object.keys(ResultPackageSchema.shape));
  });

  it('writes every entry’s fields in the order the schema declares them', () => {
    const json = JSON.parse(renderJson(full));
    expect(Object.keys(json.evidence[0])).toEqual(Object.keys(EvidenceSchema.shape));
    expect(Object.keys(json.artifacts[0])).toEqual(Object.keys(ArtifactSchema.shape));
    expect(Object.keys(json.resource_usage)).toEqual(Object.keys(ResourceUsageSchema.shape));
    expect(Object.keys(json.provenance)).toEqual(Object.keys(ProvenanceSchema.shape));
  });
});
