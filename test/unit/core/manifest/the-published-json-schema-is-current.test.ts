/**
 * The manifest's JSON Schema is published in the repository
 * (docs/headspace.workspace.v1.schema.json) for editors and validators; it
 * is generated from the zod schema by scripts/build-manifest-schema.mjs, and
 * this test fails when the published file no longer matches.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { manifestJsonSchema } from '../../../../src/core/manifest/manifest-schema.js';
import { REPO } from '../../../helpers/cli.js';

describe('the published manifest JSON Schema', () => {
  it('equals the one generated from the zod schema (run node scripts/build-manifest-schema.mjs after a build to refresh it)', () => {
    const published = JSON.parse(readFileSync(join(REPO, 'docs', 'headspace.workspace.v1.schema.json'), 'utf8')) as unknown;
    expect(published).toEqual(manifestJsonSchema());
  });

  it('is strict: every object refuses keys it does not name', () => {
    const objects: Array<Record<string, unknown>> = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node !== null && typeof node === 'object') {
        const record = node as Record<string, unknown>;
        if (record.type === 'object') objects.push(record);
        Object.values(record).forEach(walk);
      }
    };
    walk(manifestJsonSchema());
    expect(objects.length).toBeGreaterThan(3);
    for (const object of objects) expect(object.additionalProperties).toBe(false);
  });
});
