/**
 * A manifest's byte budgets take a number or one with a K, M, G or T suffix
 * (powers of 1024), as the CLI's budget flags do: a new user's
 * `memoryBytes: 100M` was refused with "expected number, received string".
 * `explain manifest` lists every key from the published schema, this one
 * with the suffix said.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { manifestKeyLines } from '../../../../src/cli/explain-manifest.js';
import { manifestJsonSchema } from '../../../../src/core/manifest/manifest-schema.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { makeProject } from '../../../helpers/manifest-dir.js';

let t: TestEngine | undefined;
let project: ReturnType<typeof makeProject> | undefined;
afterEach(() => {
  t?.cleanup();
  project?.cleanup();
});

describe('a byte budget in a manifest', () => {
  it('takes 100M and 1G as the flags do', async () => {
    t = makeTestEngine();
    project = makeProject();
    const file = project.write(
      'headspace.yml',
      'schema: headspace.workspace/v1\nid: w\nprovider: fake\npolicy:\n  budget:\n    memoryBytes: 100M\n    storageBytes: 1G\n',
    );
    const plan = await t.engine.plan({ file });
    expect(JSON.stringify(plan.key_findings)).toContain('memory 100 MiB');
    expect(JSON.stringify(plan.key_findings)).toContain('storage 1 GiB');
  });

  it('is listed by explain manifest with its suffix, beside every other key', () => {
    const lines = manifestKeyLines(manifestJsonSchema() as never);
    expect(lines.find((l) => l.startsWith('  policy.budget.memoryBytes '))).toContain('K, M, G or T suffix');
    expect(lines.some((l) => l.startsWith('  inputs[].path (string, required)'))).toBe(true);
    expect(lines.some((l) => l.startsWith('  id (string, required)'))).toBe(true);
  });
});
