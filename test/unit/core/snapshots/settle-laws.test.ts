/**
 * The settle laws (#14): an output is consumed exactly once; select needs a
 * parent unchanged since the fork baseline; apply merges onto a moved parent
 * but refuses overlapping paths by name, consuming nothing; release leaves
 * the parent alone; discard destroys the child.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { idAfter, refusal, remove, treeOf, write } from '../../../helpers/snapshots.js';

let t: TestEngine;
afterEach(() => t.cleanup());

/** A parent with two files and one fork `c` that changed one, created one and deleted one, sealed. */
async function sealedFork(): Promise<string> {
  t = makeTestEngine();
  const { engine } = t;
  await engine.create({ workspaceId: 'p' });
  await write(engine, 'p', 'shared.txt', 'base');
  await write(engine, 'p', 'old.txt', 'old');
  await engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
  await write(engine, 'c', 'shared.txt', 'child');
  await write(engine, 'c', 'added.txt', 'added');
  await remove(engine, 'c', 'old.txt');
  const sealed = await engine.seal({ workspaceId: 'c' });
  expect(sealed.key_findings).toContain('3 change(s)');
  return idAfter(sealed.key_findings, 'output');
}

describe('settle', () => {
  it('select takes the sealed changes into an unchanged parent, once; a second settle names the first decision (exit 2)', async () => {
    const out = await sealedFork();
    const { engine } = t;
    const settled = await engine.settle({ outputId: out, decision: 'select' });
    expect(settled.status).toBe('success');
    expect(await treeOf(engine, 'p')).toEqual({ 'shared.txt': 'child', 'added.txt': 'added' });
    for (const decision of ['select', 'apply', 'release', 'discard'] as const) {
      const error = await refusal(engine.settle({ outputId: out, decision }));
      expect(error.code).toBe('ALREADY_SETTLED');
      expect(exitCodeOf(error.category)).toBe(2);
      expect(error.message).toContain('select');
    }
  });

  it('copies what was sealed, not what the child holds later', async () => {
    const out = await sealedFork();
    const { engine } = t;
    await write(engine, 'c', 'shared.txt', 'after the seal');
    await engine.settle({ outputId: out, decision: 'select' });
    expect((await treeOf(engine, 'p'))['shared.txt']).toBe('child');
  });

  it('select refuses a parent that moved (exit 2, pointing at apply) and consumes nothing', async () => {
    const out = await sealedFork();
    const { engine } = t;
    await write(engine, 'p', 'elsewhere.txt', 'parent moved');
    const error = await refusal(engine.settle({ outputId: out, decision: 'select' }));
    expect(error.code).toBe('PARENT_MOVED');
    expect(exitCodeOf(error.category)).toBe(2);
    expect(error.action).toEqual({ verb: 'settle', args: { outputId: out, decision: 'apply' } });
    // Unconsumed: apply still takes it, three-way, keeping the parent's own change.
    expect((await engine.settle({ outputId: out, decision: 'apply' })).status).toBe('success');
    expect(await treeOf(engine, 'p')).toEqual({ 'shared.txt': 'child', 'added.txt': 'added', 'elsewhere.txt': 'parent moved' });
  });

  it('apply refuses paths both sides changed, naming them, and consumes nothing', async () => {
    const out = await sealedFork();
    const { engine } = t;
    await write(engine, 'p', 'shared.txt', 'parent edit');
    const before = await treeOf(engine, 'p');
    const error = await refusal(engine.settle({ outputId: out, decision: 'apply' }));
    expect(error.code).toBe('SETTLE_CONFLICT');
    expect(exitCodeOf(error.category)).toBe(2);
    expect(error.message).toContain('shared.txt');
    expect(error.message).not.toContain('added.txt');
    expect(await treeOf(engine, 'p')).toEqual(before);
    expect((await engine.settle({ outputId: out, decision: 'release' })).status).toBe('success');
  });

  it('release consumes the output without touching the parent or the child', async () => {
    const out = await sealedFork();
    const { engine } = t;
    const parent = await treeOf(engine, 'p');
    const child = await treeOf(engine, 'c');
    await engine.settle({ outputId: out, decision: 'release' });
    expect(await treeOf(engine, 'p')).toEqual(parent);
    expect(await treeOf(engine, 'c')).toEqual(child);
    expect((await refusal(engine.settle({ outputId: out, decision: 'select' }))).message).toContain('release');
  });

  it('discard consumes the output and destroys the child, leaving the parent', async () => {
    const out = await sealedFork();
    const { engine } = t;
    const parent = await treeOf(engine, 'p');
    const result = await engine.settle({ outputId: out, decision: 'discard' });
    expect(result.outcome_summary).toContain('c destroyed');
    expect((await refusal(engine.inspect({ handle: 'c' }))).code).toBe('WORKSPACE_DESTROYED');
    expect(await treeOf(engine, 'p')).toEqual(parent);
  });

  it("carries a file's mode, and refuses a symbolic link by name (exit 3) consuming nothing", async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'p' });
    await engine.checkpoint({ workspaceId: 'p' });
    await engine.fork({ workspaceId: 'p', workspaceIds: ['m', 'l'] });
    await write(engine, 'm', 'tool.sh', 'echo hi');
    expect((await engine.run({ workspaceId: 'm', argv: ['chmod', '755', 'tool.sh'] })).status).toBe('success');
    await engine.settle({ outputId: idAfter((await engine.seal({ workspaceId: 'm' })).key_findings, 'output'), decision: 'select' });
    expect((await engine.diff({ workspaceId: 'p' })).key_findings[0]).toMatch(/^created tool\.sh: 7 bytes, sha256:[0-9a-f]{64}, mode 0755$/);

    expect((await engine.run({ workspaceId: 'l', argv: ['ln', '-s', '/etc/passwd', 'pw'] })).status).toBe('success');
    const out = idAfter((await engine.seal({ workspaceId: 'l' })).key_findings, 'output');
    const error = await refusal(engine.settle({ outputId: out, decision: 'apply' }));
    expect(error.code).toBe('POLICY_DENIED');
    expect(exitCodeOf(error.category)).toBe(3);
    expect(error.message).toContain('symbolic links yet: pw');
    expect((await engine.settle({ outputId: out, decision: 'release' })).status).toBe('success');
  });

  it('seal refuses a workspace that is not a fork', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    expect((await refusal(t.engine.seal({ workspaceId: 'w' }))).code).toBe('BAD_ARGUMENT');
  });
});
