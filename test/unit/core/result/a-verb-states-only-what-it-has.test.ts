/**
 * buildResult fills every section a verb leaves out with its empty default
 * (no findings, evidence, artifacts, warnings or attention; every usage
 * figure unknown), takes usage figure by figure, keeps an undefined figure
 * unknown (null, never undefined), copies what it is given, and refuses an
 * unknown status at construction.
 */
import { describe, expect, it } from 'vitest';
import { buildResult, emptyUsage } from '../../../../src/core/result/build-result.js';
import type { ResultPackage } from '../../../../src/core/result/result-package.js';
import { emptyProvenance } from '../../../helpers/result-packages.js';

const provenance = emptyProvenance({ result_schema_version: 2, headspace_version: '0.0.0', trace_id: 'trace-1' });

describe('buildResult', () => {
  it('gives every section the verb leaves out its empty default', () => {
    expect(buildResult({ outcome_summary: 'no workspaces', status: 'success', provenance })).toEqual({
      outcome_summary: 'no workspaces',
      status: 'success',
      key_findings: [],
      evidence: [],
      artifacts: [],
      warnings: [],
      resource_usage: emptyUsage(),
      provenance,
      attention: [],
    } satisfies ResultPackage);
  });

  it('takes usage figure by figure, an undefined one staying unknown', () => {
    const pkg = buildResult({ outcome_summary: 's', status: 'success', provenance, resource_usage: { storage_bytes: 42, output_bytes: undefined } });
    expect(pkg.resource_usage).toEqual({ ...emptyUsage(), storage_bytes: 42 });
    expect(pkg.resource_usage.output_bytes).toBeNull();
  });

  it('copies what it is given, so a later edit by the verb cannot change the result', () => {
    const warnings = ['first'];
    const pkg = buildResult({ outcome_summary: 's', status: 'success', provenance, warnings });
    warnings.push('second');
    expect(pkg.warnings).toEqual(['first']);
  });

  it('refuses an unknown status', () => {
    expect(() => buildResult({ outcome_summary: 's', status: 'fine' as ResultPackage['status'], provenance })).toThrow(/unknown result status 'fine'/);
  });
});
