/**
 * boundStructured never breaks what it bounds: whatever the package holds
 * (thousands of findings, long multi-byte fields, a giant excerpt), the
 * result serialises within the bound, parses, keeps every section and field
 * type (the result schema still validates) and says it was shrunk; a package
 * that fits comes back untouched (#12 item 20).
 */
import { describe, expect, it } from 'vitest';
import { boundStructured } from '../../../src/mcp/bound-structured.js';
import { ResultPackageSchema } from '../../../src/mcp/result-schema.js';

function pkg(overrides: Record<string, unknown>): Record<string, unknown> {
  return {
    outcome_summary: 'job j in w ran x: success',
    status: 'success',
    key_findings: [],
    evidence: [],
    artifacts: [],
    warnings: [],
    resource_usage: {},
    provenance: { result_schema_version: 2, headspace_version: '0', verb: 'ls', trace_id: 'trace-1', policy_summary: [], inputs: [] },
    attention: [],
    ...overrides,
  };
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('boundStructured', () => {
  it('returns a package that fits unchanged', () => {
    const small = pkg({ key_findings: ['one'] });
    expect(boundStructured(small, 65536)).toEqual({ value: small });
  });

  it.each([
    ['thousands of findings', pkg({ key_findings: Array.from({ length: 20000 }, (_, i) => `workspace ws-${i}: ready on fake`) })],
    [
      'long multi-byte fields',
      pkg({
        outcome_summary: '✓😀'.repeat(30000),
        attention: [
          { kind: 'note', text: 'é'.repeat(50000) },
          { kind: 'note', text: 'ß'.repeat(50000) },
        ],
      }),
    ],
    [
      'a giant excerpt',
      pkg({
        evidence: [
          {
            label: 'captured output',
            kind: 'excerpt',
            source: 'j',
            truncated: false,
            excerpt: 'line with some words\n'.repeat(100000),
            retrieval: 'logs {"jobId":"j"}',
          },
        ],
      }),
    ],
    [
      'a giant single-line excerpt of emoji',
      pkg({ evidence: [{ label: 'captured output', kind: 'excerpt', source: 'j', truncated: false, excerpt: '😀'.repeat(200000) }] }),
    ],
  ])('keeps %s within the bound, valid and flagged', (_name, input) => {
    for (const bound of [4096, 65536]) {
      const { value, originalBytes } = boundStructured(input, bound);
      expect(bytes(value)).toBeLessThanOrEqual(bound);
      expect(originalBytes).toBe(bytes(input));
      const parsed = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
      expect(ResultPackageSchema.safeParse(parsed).success).toBe(true);
      expect(JSON.stringify(parsed)).not.toContain('\\ud8');
      expect((parsed.warnings as string[]).at(-1)).toMatch(/^structuredContent was shrunk to \d+ bytes/);
    }
  });
});
