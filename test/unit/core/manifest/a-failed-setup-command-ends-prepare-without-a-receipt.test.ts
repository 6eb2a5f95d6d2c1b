/**
 * A setup command that fails ends prepare with the job's own status (#17):
 * the workspace stays for inspection with what was done, no receipt is
 * written, so a second prepare refuses it as unfinished and recreate starts
 * over.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { EXAMPLE_FILES, EXAMPLE_MANIFEST, makeProject } from '../../../helpers/manifest-dir.js';

let t: TestEngine;
let project: ReturnType<typeof makeProject>;
afterEach(() => {
  t.cleanup();
  project.cleanup();
});

describe('a failed setup command', () => {
  it('ends prepare with the job status, no receipt, and a suggestion to prepare again with recreate', async () => {
    t = makeTestEngine();
    project = makeProject({ ...EXAMPLE_FILES, 'headspace.yml': EXAMPLE_MANIFEST.replace('argv: [env, PI_TOKEN]', 'argv: [fail, "3"]') });
    const file = join(project.dir, 'headspace.yml');
    const pkg = await t.engine.prepare({ file, env: { PI_TOKEN: 't' } });
    expect(pkg.status).toBe('failure');
    expect(pkg.outcome_summary).toMatch(/^prepare of workspace pi-digits stopped at setup\[1\]: job \S+ ended failure; no receipt was written$/);
    expect(pkg.attention.map((a) => a.action)).toContainEqual({ verb: 'prepare', args: { file, recreate: true } });
    expect(existsSync(join(t.home, 'receipts', 'pi-digits.json'))).toBe(false);
    await expect(t.engine.prepare({ file, env: { PI_TOKEN: 't' } })).rejects.toMatchObject({ code: 'MANIFEST_CHANGED' });
  });
});
