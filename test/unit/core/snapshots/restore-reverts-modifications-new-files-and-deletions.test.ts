/**
 * restore makes a workspace's files exactly the checkpoint's: a modified
 * file back, a new file gone, a deleted file back; checkpoints are reusable.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { idAfter, remove, treeOf, write } from '../../../helpers/snapshots.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('restore', () => {
  it('reverts a modification, a new file and a deletion, and the checkpoint stays reusable', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'w' });
    await write(engine, 'w', 'keep.txt', 'original');
    await write(engine, 'w', 'gone.txt', 'will be deleted');
    const cp = await engine.checkpoint({ workspaceId: 'w', label: 'before' });
    expect(cp.status).toBe('success');
    const id = idAfter(cp.key_findings, 'checkpoint');
    expect(cp.key_findings).toContain('files: 2');
    const before = await treeOf(engine, 'w');

    await write(engine, 'w', 'keep.txt', 'modified');
    await write(engine, 'w', 'new/deep.txt', 'new');
    await remove(engine, 'w', 'gone.txt');
    expect(await treeOf(engine, 'w')).not.toEqual(before);

    const restored = await engine.restore({ workspaceId: 'w', checkpointId: id });
    expect(restored.status).toBe('success');
    expect(await treeOf(engine, 'w')).toEqual(before);

    await write(engine, 'w', 'keep.txt', 'again');
    await engine.restore({ workspaceId: 'w', checkpointId: id });
    expect(await treeOf(engine, 'w')).toEqual(before);
  });
});
