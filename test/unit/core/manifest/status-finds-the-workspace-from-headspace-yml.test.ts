/**
 * status without an id (#17) finds the workspace from headspace.yml in the
 * given directory or its parents (the directory is an input: the CLI passes
 * its own, core never reads the process's); several workspaces prepared
 * from manifests in that directory are refused listing the candidates; a
 * manifest not yet prepared says so; no manifest anywhere falls back to the
 * most recently used workspace.
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

const env = { PI_TOKEN: 't' };

describe('status without an id', () => {
  it('finds the workspace prepared from headspace.yml in a parent directory, over a more recently used one', async () => {
    t = makeTestEngine();
    project = makeProject({ ...EXAMPLE_FILES, 'deep/er/here.txt': 'x\n' });
    await t.engine.prepare({ file: join(project.dir, 'headspace.yml'), env });
    await t.engine.create({ workspaceId: 'newer' });
    await t.engine.run({ workspaceId: 'newer', argv: ['echo', 'hi'] });
    const pkg = await t.engine.status({ manifestDir: join(project.dir, 'deep', 'er') });
    expect(pkg.provenance.workspace_id).toBe('pi-digits');
    expect(pkg.key_findings).toContain(`found from ${join(project.dir, 'headspace.yml')}`);
    expect((await t.engine.status({})).provenance.workspace_id).toBe('newer');
  });

  it('lists the candidates when workspaces were prepared from two manifests in one directory', async () => {
    t = makeTestEngine();
    project = makeProject({ ...EXAMPLE_FILES, 'other.yml': EXAMPLE_MANIFEST.replace('id: pi-digits', 'id: pi-other') });
    await t.engine.prepare({ file: join(project.dir, 'headspace.yml'), env });
    await t.engine.prepare({ file: join(project.dir, 'other.yml'), env });
    await expect(t.engine.status({ manifestDir: project.dir })).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringMatching(/^2 workspaces were prepared from manifests in .*: pi-digits \(.*headspace\.yml\), pi-other \(.*other\.yml\)$/),
      action: { verb: 'status', args: { workspaceId: 'pi-digits' } },
    });
  });

  it('says a manifest is not prepared yet and suggests plan', async () => {
    t = makeTestEngine();
    project = makeProject(EXAMPLE_FILES);
    await t.engine.create({ workspaceId: 'unrelated' });
    const pkg = await t.engine.status({ manifestDir: project.dir });
    expect(pkg.outcome_summary).toBe(`${join(project.dir, 'headspace.yml')} names workspace pi-digits, which is not prepared`);
    expect(pkg.attention.map((a) => a.action)).toEqual([{ verb: 'plan', args: { file: join(project.dir, 'headspace.yml') } }]);
  });

  it('falls back to the most recently used workspace where no manifest is found', async () => {
    t = makeTestEngine();
    project = makeProject({ 'plain/file.txt': 'x\n' });
    await t.engine.create({ workspaceId: 'only' });
    const pkg = await t.engine.status({ manifestDir: join(project.dir, 'plain') });
    expect(pkg.provenance.workspace_id).toBe('only');
  });
});
