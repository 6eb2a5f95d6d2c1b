/**
 * prepare refuses before anything is made when a readiness check fails
 * (#17), with the refusal the check stands for — a missing input
 * (file_not_found), an unset env name, inputs past the storage budget or a
 * policy the provider cannot enforce (policy_denied) — naming the other
 * failed checks; no workspace, no receipt.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { EXAMPLE_FILES, EXAMPLE_MANIFEST, makeProject, nothingWasCreated } from '../../../helpers/manifest-dir.js';

let t: TestEngine;
let project: ReturnType<typeof makeProject>;
afterEach(() => {
  t.cleanup();
  project.cleanup();
});

const without = (path: string) => Object.fromEntries(Object.entries(EXAMPLE_FILES).filter(([p]) => p !== path));

describe('prepare with a failed readiness check', () => {
  it('refuses a missing input with file_not_found, naming the unset env name too, and makes nothing', async () => {
    t = makeTestEngine();
    project = makeProject(without('data/seed.txt'));
    await expect(t.engine.prepare({ file: join(project.dir, 'headspace.yml') })).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
      message: expect.stringMatching(/^prepare refused, nothing was done: .*seed\.txt.*\(and 1 other check\(s\) failed: env PI_TOKEN\)$/),
    });
    expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
  });

  it('refuses inputs past the storage budget with policy_denied and makes nothing', async () => {
    t = makeTestEngine();
    project = makeProject({ ...EXAMPLE_FILES, 'headspace.yml': EXAMPLE_MANIFEST.replace('wallClockSeconds: 60', 'storageBytes: 1048576') });
    project.write('data/seed.txt', 'x'.repeat(1048577));
    await expect(t.engine.prepare({ file: join(project.dir, 'headspace.yml'), env: { PI_TOKEN: 't' } })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringContaining('storage_bytes budget of 1048576'),
    });
    expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
  });

  it('refuses a policy the provider cannot enforce with policy_denied and makes nothing', async () => {
    t = makeTestEngine({ cannotEnforce: ['memory'] });
    project = makeProject(EXAMPLE_FILES);
    await expect(t.engine.prepare({ file: join(project.dir, 'headspace.yml'), env: { PI_TOKEN: 't' } })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
    });
    expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
  });

  it('refuses an env file that is not NAME=VALUE lines by file and line, never quoting it', async () => {
    t = makeTestEngine();
    project = makeProject({ ...EXAMPLE_FILES, '.env': 'GOOD=1\nexport SECRET="hunter2"\n' });
    const refused = t.engine.prepare({ file: join(project.dir, 'headspace.yml'), env: { PI_TOKEN: 't' } });
    await expect(refused).rejects.toMatchObject({ code: 'BAD_ARGUMENT', message: expect.stringContaining('.env, line 2: not a NAME=VALUE assignment') });
    await expect(refused).rejects.not.toMatchObject({ message: expect.stringContaining('hunter2') });
    expect(await nothingWasCreated(t.engine, t.home)).toEqual({ workspaces: 0, receipts: false });
  });
});
