/**
 * prepare is idempotent by digest (#17): with nothing changed it does
 * nothing and says so; a changed input or manifest is refused naming what
 * changed (nothing done), and plan says the same beforehand; recreate
 * replaces the workspace. A comment or a reordered key is not a change: the
 * manifest's digest is of its meaning.
 */
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

const env = { PI_TOKEN: 'tok' };

async function jobCount(): Promise<number> {
  const inspected = await t.engine.inspect({ handle: 'pi-digits' });
  return inspected.key_findings.filter((f) => typeof f === 'object' && f.kind === 'job').length;
}

describe('a second prepare', () => {
  it('does nothing when nothing changed, saying so by digest, even with a comment added', async () => {
    t = makeTestEngine();
    project = makeProject(EXAMPLE_FILES);
    const file = join(project.dir, 'headspace.yml');
    const first = await t.engine.prepare({ file, env });
    const jobs = await jobCount();
    expect(jobs).toBe(2);
    project.write('headspace.yml', `# a comment\n${EXAMPLE_MANIFEST}`);
    const second = await t.engine.prepare({ file, env });
    expect(second.status).toBe('success');
    expect(second.outcome_summary).toBe(`workspace pi-digits is already prepared from ${file} and nothing changed: nothing was done`);
    expect(String(second.key_findings[0] && typeof second.key_findings[0] === 'object' ? second.key_findings[0].text : '')).toContain(
      first.outcome_summary.match(/manifest (sha256:[0-9a-f]{64})/)![1]!,
    );
    expect(await jobCount()).toBe(jobs);
    const plan = await t.engine.plan({ file, env });
    expect(plan.outcome_summary).toMatch(/prepare would do nothing$/);
  });

  it('refuses a changed input naming it and both digests, and plan says so first', async () => {
    t = makeTestEngine();
    project = makeProject(EXAMPLE_FILES);
    const file = join(project.dir, 'headspace.yml');
    await t.engine.prepare({ file, env });
    project.write('src/pi.py', 'print("3")\n');
    const plan = await t.engine.plan({ file, env });
    expect(plan.outcome_summary).toMatch(/prepare would refuse: .*inputs\[0\] \(src\) changed: sha256:\w+ → sha256:\w+/);
    const jobs = await jobCount();
    await expect(t.engine.prepare({ file, env })).rejects.toMatchObject({
      code: 'MANIFEST_CHANGED',
      message: expect.stringMatching(
        /^prepare refused: workspace pi-digits was prepared before, and since then inputs\[0\] \(src\) changed: .*; nothing was done$/,
      ),
      action: { verb: 'prepare', args: { file, recreate: true } },
    });
    expect(await jobCount()).toBe(jobs);
  });

  it('refuses a changed manifest naming it, and recreate replaces the workspace', async () => {
    t = makeTestEngine();
    project = makeProject(EXAMPLE_FILES);
    const file = join(project.dir, 'headspace.yml');
    await t.engine.prepare({ file, env });
    project.write('headspace.yml', EXAMPLE_MANIFEST.replace('wallClockSeconds: 60', 'wallClockSeconds: 90'));
    await expect(t.engine.prepare({ file, env })).rejects.toMatchObject({
      code: 'MANIFEST_CHANGED',
      message: expect.stringMatching(/the manifest changed: sha256:\w+ → sha256:\w+/),
    });
    const again = await t.engine.prepare({ file, env, recreate: true });
    expect(again.status).toBe('success');
    expect(again.warnings).toContain('workspace pi-digits was destroyed and prepared anew (recreate); unexported artifacts were discarded');
    const inspected = await t.engine.inspect({ handle: 'pi-digits' });
    expect(JSON.stringify(inspected.provenance.policy_summary)).toContain('90');
    expect((await t.engine.prepare({ file, env })).outcome_summary).toMatch(/nothing was done$/);
  });

  it('refuses a workspace of the same id it did not prepare, unless recreate', async () => {
    t = makeTestEngine();
    project = makeProject(EXAMPLE_FILES);
    const file = join(project.dir, 'headspace.yml');
    await t.engine.create({ workspaceId: 'pi-digits' });
    await expect(t.engine.prepare({ file, env })).rejects.toMatchObject({
      code: 'MANIFEST_CHANGED',
      message: expect.stringContaining('workspace pi-digits exists (ready) but was not prepared from a manifest'),
    });
    expect((await t.engine.prepare({ file, env, recreate: true })).status).toBe('success');
  });
});
