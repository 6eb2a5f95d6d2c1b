/**
 * seal --exclude (a new user's every apply conflicted on the .pyc files and
 * test reports each run rewrote on both sides): a change whose path, or a
 * directory above it, matches a glob is left out of the output, named in the
 * result, stays in the fork, and never reaches the parent, so apply carries
 * the real change past byproducts both sides wrote.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TreeChange } from '../../../../src/core/snapshots/snapshot-ops.js';
import { excludedUnderTakenDirectory, withoutExcluded } from '../../../../src/core/verbs/seal.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { idAfter, refusal } from '../../../helpers/snapshots.js';

let t: TestEngine | undefined;
afterEach(() => t?.cleanup());

const created = (path: string, type: TreeChange['type'] = 'file'): TreeChange => ({
  path,
  kind: 'create',
  type,
  size: 0,
  sha256: null,
  mode: null,
  previousSha256: null,
});

describe('seal --exclude', () => {
  it('leaves out a path that matches, or lies under a directory that matches, and keeps the rest', () => {
    const changes = [
      created('src', 'directory'),
      created('src/__pycache__', 'directory'),
      created('src/__pycache__/m.pyc'),
      created('src/m.py'),
      created('report.xml'),
      created('build/out/a.o'),
    ];
    const { kept, left } = withoutExcluded(changes, ['__pycache__', 'report.xml', 'build/**']);
    expect(kept.map((c) => c.path)).toEqual(['src', 'src/m.py']);
    expect(left.map((c) => c.path)).toEqual(['src/__pycache__', 'src/__pycache__/m.pyc', 'report.xml', 'build/out/a.o']);
    expect(withoutExcluded(changes, []).kept).toHaveLength(changes.length);
  });

  it('lets apply carry the fix past byproducts both sides wrote, which stay out of the parent', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'p' });
    await t.engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
    await t.engine.run({ workspaceId: 'c', argv: ['write', 'fix.py', 'the fix'] });
    await t.engine.run({ workspaceId: 'c', argv: ['write', 'report.xml', 'fork run'] });
    await t.engine.run({ workspaceId: 'p', argv: ['write', 'report.xml', 'parent run'] });
    const sealed = await t.engine.seal({ workspaceId: 'c', exclude: ['report.xml'] });
    expect(sealed.key_findings.join('\n')).toContain('left out by exclude: 1 change(s) (report.xml)');
    const out = idAfter(sealed.key_findings, 'output');
    await t.engine.settle({ outputId: out, decision: 'apply' });
    const read = async (path: string) => (await t!.engine.readFile({ workspaceId: 'p', path, maxBytes: 1024 })).bytes.toString('utf8');
    expect(await read('fix.py')).toBe('the fix');
    expect(await read('report.xml')).toBe('parent run');
  });

  it('refuses to leave out a path whose directory the output deletes or replaces, which would take it along', () => {
    const removed = (path: string, type: TreeChange['type'] = 'file'): TreeChange => ({ ...created(path, type), kind: 'delete' });
    const madeFile: TreeChange = { ...created('secrets'), kind: 'modify', previousSha256: null };
    const changes = [removed('secrets', 'directory'), removed('secrets/readme'), removed('secrets/prod.key')];
    const { kept, left } = withoutExcluded(changes, ['*.key']);
    expect(excludedUnderTakenDirectory(kept, left)?.message).toBe(
      'exclude leaves out secrets/prod.key, but the output deletes secrets, which takes it along; nothing was sealed',
    );
    const retyped = withoutExcluded([madeFile, removed('secrets/prod.key')], ['*.key']);
    expect(excludedUnderTakenDirectory(retyped.kept, retyped.left)?.message).toContain('the output replaces secrets');
    const whole = withoutExcluded(changes, ['secrets']);
    expect(excludedUnderTakenDirectory(whole.kept, whole.left)).toBeNull();
  });

  it('refuses a second seal of an unchanged fork that would leave out something else, pointing at release', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'p' });
    await t.engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
    await t.engine.run({ workspaceId: 'c', argv: ['write', 'fix.py', 'the fix'] });
    await t.engine.run({ workspaceId: 'c', argv: ['write', '__pycache__/fix.pyc', 'bytes'] });
    const first = idAfter((await t.engine.seal({ workspaceId: 'c' })).key_findings, 'output');
    const error = await refusal(t.engine.seal({ workspaceId: 'c', exclude: ['__pycache__'] }));
    expect(error.code).toBe('ALREADY_SEALED');
    expect(error.message).toContain(`is sealed as output ${first}, not settled yet, which holds 2 change(s); with what this seal leaves out it would hold 1`);
    expect(error.action).toEqual({ verb: 'settle', args: { outputId: first, decision: 'release' } });
    // The same seal again is still that output.
    expect(idAfter((await t.engine.seal({ workspaceId: 'c' })).key_findings, 'output')).toBe(first);
  });

  it('refuses an empty glob as a bad argument naming the input', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'p' });
    await t.engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
    const error = await refusal(t.engine.seal({ workspaceId: 'c', exclude: [''] }));
    expect(error.code).toBe('BAD_ARGUMENT');
    expect(error.message).toContain('exclude takes at most 100 globs');
  });
});
