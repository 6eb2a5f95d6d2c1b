/**
 * doctor --repair --apply read who was busy first and the facts after it, and
 * applied what it planned without looking again: a checkpoint or a fork that
 * began in between had its pending checkpoint record dropped and a fork its
 * mounts removed, while the operation went on to report success (red team,
 * session 11: 2 of 30 checkpoints, 4 of 20 forks). Who is busy is now read
 * last, asked again before each repair, and a checkpoint completed since the
 * diagnosis is kept.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineWithProviders } from '../../../../src/core/engine.js';
import { SnapshotRecords } from '../../../../src/core/snapshots/snapshot-records.js';
import { currentOwner } from '../../../../src/core/store/owner.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
let other: SqliteStore | null = null;
afterEach(() => {
  other?.close();
  other = null;
  t.cleanup();
});

/** Another process's view of the store: it records a pending checkpoint and leases the workspace, as a checkpoint does. */
function otherProcess(): { store: SqliteStore; records: SnapshotRecords } {
  other = SqliteStore.open(t.home);
  return { store: other, records: new SnapshotRecords(other) };
}

const lease = (store: SqliteStore, workspaceId: string) =>
  store.leaseWorkspace({ workspaceId, op: 'checkpoint', provider: 'fake', owner: currentOwner(), createdAt: Date.now(), traceId: null });

describe('doctor --repair --apply', () => {
  it('leaves alone a checkpoint whose operation began while doctor gathered its facts', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    const provider = await (t.engine as EngineWithProviders).provider('fake');
    const { store, records } = otherProcess();
    // The operation begins after the old busy read and before the pending checkpoints are read.
    provider.leftovers = async () => {
      lease(store, 'w');
      records.addCheckpoint({ id: 'cp-live', workspaceId: 'w', kind: 'user', label: null, createdAt: Date.now() });
      return [];
    };
    const report = await t.engine.doctor({ repair: true, apply: true });
    expect(records.getCheckpoint('cp-live')?.state).toBe('pending');
    expect(JSON.stringify(report.attention)).toContain("an operation 'checkpoint'");
  });

  it('does not make a repair whose workspace became busy after the diagnosis, and says so', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    const provider = await (t.engine as EngineWithProviders).provider('fake');
    const { store, records } = otherProcess();
    await t.engine.create({ workspaceId: 'a' });
    records.addCheckpoint({ id: 'cp-first', workspaceId: 'a', kind: 'user', label: null, createdAt: Date.now() - 1000 });
    records.addCheckpoint({ id: 'cp-dead', workspaceId: 'w', kind: 'user', label: null, createdAt: Date.now() });
    // Both are debris when doctor looks; while it drops the first, an operation on w begins.
    const ops = provider.snapshots!;
    const drop = ops.drop.bind(ops);
    ops.drop = async (workspaceId, checkpointId) => {
      if (checkpointId === 'cp-first') lease(store, 'w');
      return drop(workspaceId, checkpointId);
    };
    const report = await t.engine.doctor({ repair: true, apply: true });
    expect(records.getCheckpoint('cp-first')).toBeUndefined();
    expect(records.getCheckpoint('cp-dead')?.state).toBe('pending');
    expect(report.outcome_summary).toContain('left 1 that changed since the diagnosis');
    expect(JSON.stringify(report.attention)).toContain('began acting on workspace w since the diagnosis');
  });

  it('keeps a checkpoint its operation completed after the diagnosis', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    await t.engine.create({ workspaceId: 'a' });
    const provider = await (t.engine as EngineWithProviders).provider('fake');
    const { records } = otherProcess();
    records.addCheckpoint({ id: 'cp-first', workspaceId: 'a', kind: 'user', label: null, createdAt: Date.now() - 1000 });
    records.addCheckpoint({ id: 'cp-done', workspaceId: 'w', kind: 'user', label: null, createdAt: Date.now() });
    // While doctor drops the first, the operation that took cp-done finishes it (its lease is already gone).
    const ops = provider.snapshots!;
    const drop = ops.drop.bind(ops);
    ops.drop = async (workspaceId, checkpointId) => {
      if (checkpointId === 'cp-first') records.finishCheckpoint('cp-done', { fileCount: 0, bytes: 0, digest: 'sha256:0' });
      return drop(workspaceId, checkpointId);
    };
    const report = await t.engine.doctor({ repair: true, apply: true });
    expect(records.getCheckpoint('cp-done')?.state).not.toBe('pending');
    expect(records.getCheckpoint('cp-done')).toBeDefined();
    expect(JSON.stringify(report.attention)).toContain('kept checkpoint cp-done of workspace w: it was completed since the diagnosis');
  });

  it('drops the undo checkpoint of a settle killed while its checks ran, before it changed anything', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    const { store, records } = otherProcess();
    records.addCheckpoint({ id: 'cp-undo', workspaceId: 'w', kind: 'undo', label: 'before settling out-x', createdAt: Date.now() });
    records.finishCheckpoint('cp-undo', { fileCount: 0, bytes: 0, digest: 'sha256:0' });
    // Its settle's process is gone (a pid no process has, started never).
    const dead = { pid: 2 ** 22 + 17, started: 'never' };
    store.openIntent({
      workspaceId: 'w',
      jobId: null,
      op: 'settle-check',
      provider: 'fake',
      owner: dead,
      createdAt: Date.now(),
      target: JSON.stringify({ output: 'out-x', decision: 'apply', undo: 'cp-undo' }),
      traceId: null,
    });
    const report = await t.engine.doctor({ repair: true, apply: true });
    expect(records.getCheckpoint('cp-undo')).toBeUndefined();
    expect(store.openIntents().filter((i) => i.op === 'settle-check')).toEqual([]);
    expect(JSON.stringify(report.key_findings)).toContain('removed undo checkpoint cp-undo of workspace w');
  });

  it('says it kept a leftover its provider found no longer one when it came to remove it, not that it removed it', async () => {
    t = makeTestEngine();
    const provider = await (t.engine as EngineWithProviders).provider('fake');
    provider.leftovers = async () => [{ kind: 'mount', workspaceId: null, target: '/run/x/fs/c1', detail: 'overlay of a fork being made' }];
    provider.removeLeftover = async () => false;
    const report = await t.engine.doctor({ repair: true, apply: true });
    expect(JSON.stringify(report.key_findings)).not.toContain('removed mount /run/x/fs/c1');
    expect(JSON.stringify(report.attention)).toContain('kept mount /run/x/fs/c1: it was no longer a leftover');
  });
});
