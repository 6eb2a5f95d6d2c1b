/**
 * The JSON rendering is the whole package, never clipped: it parses back to
 * a value equal to the package less its null fields (absent means unknown),
 * however large, with the nine sections in
 * SECTION_ORDER, two-space indentation and a trailing newline.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderJson } from '../../../../src/core/result/render-json.js';
import { SECTION_ORDER } from '../../../../src/core/result/result-package.js';
import { basePackage } from '../../../helpers/result-packages.js';

/** The package as JSON means it: object fields holding null are left out (array items are kept). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

describe('JSON rendering', () => {
  it('parses back to the package, whatever its text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.array(fc.string({ maxLength: 40 }), { maxLength: 20 }), (summary, findings) => {
        const pkg = basePackage({ outcome_summary: summary, key_findings: findings });
        expect(JSON.parse(renderJson(pkg))).toEqual(withoutNulls(pkg));
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('is never clipped, even for megabytes of excerpt', () => {
    const excerpt = 'x'.repeat(3_000_000);
    const json = renderJson(basePackage({ evidence: [{ label: 'o', kind: 'excerpt', source: 'j', truncated: false, excerpt }] }));
    expect(JSON.parse(json).evidence[0].excerpt).toBe(excerpt);
  });

  it('lists the sections in order, indented by two spaces, ending in a newline', () => {
    const json = renderJson(basePackage());
    expect(Object.keys(JSON.parse(json))).toEqual([...SECTION_ORDER]);
    expect(json.startsWith('{\n  "outcome_summary": ')).toBe(true);
    expect(json.endsWith('}\n')).toBe(true);
  });

  it('writes lone surrogates as escapes, so the output is valid UTF-8', () => {
    const json = renderJson(basePackage({ outcome_summary: 'half \ud800 pair' }));
    expect(json).toContain('half \\ud800 pair');
    expect(Buffer.from(json).toString('utf8')).toBe(json);
  });
});
