/**
 * The CLI and the engine read the verb table through a manifest built with
 * the project (so they start without zod). A stale manifest would let the
 * CLI's flags or the unknown-key check drift from the table: the built file
 * must equal the manifest made from the table now.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildVerbManifest } from '../../../../src/core/verb-table/verb-manifest.js';
import { VERB_TABLE } from '../../../../src/core/verb-table/verb-table.js';
import { REPO } from '../../../helpers/cli.js';

const BUILT = join(REPO, 'dist', 'core', 'verb-table', 'verb-manifest.json');

describe('the verb manifest', () => {
  it.skipIf(!existsSync(BUILT))('built with the project equals the one made from the table', () => {
    expect(JSON.parse(readFileSync(BUILT, 'utf8'))).toEqual(JSON.parse(JSON.stringify(buildVerbManifest(z, VERB_TABLE))));
  });

  it('describes every verb of the table once, with a strict input schema', () => {
    const manifest = buildVerbManifest(z, VERB_TABLE);
    expect(manifest.map((e) => e.name)).toEqual(VERB_TABLE.map((v) => v.name));
    expect(new Set(manifest.map((e) => e.name)).size).toBe(manifest.length);
    expect(new Set(manifest.map((e) => e.method)).size).toBe(manifest.length);
    for (const entry of manifest) expect(entry.input.additionalProperties, entry.name).toBe(false);
  });
});
