/**
 * A fork outlives its parent when the parent is destroyed with force. Sealing
 * it then would make an output that can never be settled into anything, so
 * seal refuses before anything is taken, naming the destroyed parent, with a
 * remedy that works (export what you need, destroy the fork) offered as the
 * next action.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { SnapshotRecords } from '../../../../src/core/snapshots/snapshot-records.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { refusal, write } from '../../../helpers/snapshots.js';

let t: TestEngine;
afterEach(() => t.cleanup());

function snapshotsOf(home: string, workspaceId: string): { outputs: number; checkpoints: number } {
  const store = SqliteStore.open(home);
  try {
    const records = new SnapshotRecords(store);
    return { outputs: records.outputsOf(workspaceId).length, checkpoints: records.checkpointsOf(workspaceId).length };
  } finally {
    store.close();
  }
}

describe('sealing a fork whose parent is destroyed', () => {
  it('is refused naming the parent, sealing nothing, with export and destroy as the remedy', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'par' });
    await engine.fork({ workspaceId: 'par', workspaceIds: ['kid'] });
    await write(engine, 'kid', 'a.txt', 'work');
    await engine.destroy({ workspaceId: 'par', force: true });
    const before = snapshotsOf(t.home, 'kid');

    const error = await refusal(engine.seal({ workspaceId: 'kid' }));
    expect(error.code).toBe('WORKSPACE_DESTROYED');
    expect(exitCodeOf(error.category)).toBe(1);
    expect(error.message).toContain('par');
    expect(error.message).toContain('nothing was sealed');
    expect(error.hint).toContain('export');
    expect(error.hint).toContain('destroy the fork');
    expect(error.action).toMatchObject({ verb: 'destroy', args: { workspaceId: 'kid' } });
    expect(snapshotsOf(t.home, 'kid')).toEqual(before);
  });
});
