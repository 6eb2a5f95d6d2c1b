/**
 * Races and bounds a settle met (red team, session 11), each leaving the
 * parent as its own jobs made it and the output unconsumed:
 *   - a parent changed while apply's checks ran: its undo checkpoint was
 *     taken after them, so the look under the lease (changes since undo)
 *     saw nothing and the output overwrote the parent's edit. The undo
 *     checkpoint now comes first; the change is caught, the settle refused
 *     (exit 2) and the parent's edit kept, not restored away;
 *   - a parent changed past the scan's bound: apply checked only the first
 *     100,000 of its changes for a conflict. It is now refused (exit 3);
 *   - a discard whose destroy of the fork is refused as busy: the output
 *     was already consumed, the fork still there. It is now left sealed.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineWithProviders } from '../../../../src/core/engine.js';
import { exitCodeOf } from '../../../../src/core/errors.js';
import type { SnapshotOps } from '../../../../src/core/snapshots/snapshot-ops.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { SnapshotRecords } from '../../../../src/core/snapshots/snapshot-records.js';
import { currentOwner } from '../../../../src/core/store/owner.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { idAfter, refusal, treeOf, write } from '../../../helpers/snapshots.js';

let t: TestEngine;
afterEach(() => t.cleanup());

/** A parent `p` with shared.txt and a fork `c` that changed it, sealed; returns the output id and the fake's snapshot ops. */
async function sealedFork(): Promise<{ out: string; ops: SnapshotOps; writeParent: (text: string) => Promise<void> }> {
  t = makeTestEngine();
  const { engine } = t;
  await engine.create({ workspaceId: 'p' });
  await write(engine, 'p', 'shared.txt', 'base');
  await engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
  await write(engine, 'c', 'shared.txt', 'child');
  const out = idAfter((await engine.seal({ workspaceId: 'c' })).key_findings, 'output');
  const provider = await (engine as EngineWithProviders).provider('fake');
  const writeParent = async (text: string) => {
    const bytes = Buffer.from(text);
    await provider.write('p', 'shared.txt', bytes, { expectedSha256: createHash('sha256').update(bytes).digest('hex'), overwrite: true });
  };
  return { out, ops: provider.snapshots!, writeParent };
}

describe('settle', () => {
  it("keeps a parent's change made while apply's checks ran, refusing with exit 2 and consuming nothing", async () => {
    const { out, ops, writeParent } = await sealedFork();
    const scan = ops.changes.bind(ops);
    let edited = false;
    // The parent changes right after apply has read its changes since the fork baseline (none then).
    ops.changes = async (workspaceId, checkpointId, limit) => {
      const seen = await scan(workspaceId, checkpointId, limit);
      if (workspaceId === 'p' && limit > 1 && !edited) {
        edited = true;
        await writeParent('parent');
      }
      return seen;
    };
    const error = await refusal(t.engine.settle({ outputId: out, decision: 'apply' }));
    expect(edited).toBe(true);
    expect(error.code).toBe('WORKSPACE_BUSY');
    expect(exitCodeOf(error.category)).toBe(2);
    expect((await treeOf(t.engine, 'p'))['shared.txt']).toBe('parent');
    ops.changes = scan;
    // Unconsumed, and the next apply sees both sides changed the file.
    expect((await refusal(t.engine.settle({ outputId: out, decision: 'apply' }))).code).toBe('SETTLE_CONFLICT');
  });

  it('refuses apply when the parent changed more paths than it can check for a conflict (exit 3)', async () => {
    const { out, ops } = await sealedFork();
    const scan = ops.changes.bind(ops);
    ops.changes = async (workspaceId, checkpointId, limit) => ({ ...(await scan(workspaceId, checkpointId, limit)), truncated: limit > 1 });
    const error = await refusal(t.engine.settle({ outputId: out, decision: 'apply' }));
    expect(error.code).toBe('POLICY_DENIED');
    expect(exitCodeOf(error.category)).toBe(3);
    expect(error.message).toContain('too many to check each against output');
    ops.changes = scan;
    expect((await treeOf(t.engine, 'p'))['shared.txt']).toBe('base');
    expect((await t.engine.settle({ outputId: out, decision: 'apply' })).status).toBe('success');
  });

  it('leaves the output sealed when discard cannot destroy the fork because it is busy', async () => {
    const { out } = await sealedFork();
    // Another operation (a checkpoint, say) holds the fork.
    const other = SqliteStore.open(t.home);
    other.leaseWorkspace({ workspaceId: 'c', op: 'checkpoint', provider: 'fake', owner: currentOwner(), createdAt: Date.now(), traceId: null });
    try {
      expect((await refusal(t.engine.settle({ outputId: out, decision: 'discard' }))).code).toBe('WORKSPACE_BUSY');
    } finally {
      other.close();
    }
    // Still sealed: a release settles it (a consumed output would be refused ALREADY_SETTLED).
    expect((await t.engine.settle({ outputId: out, decision: 'release' })).status).toBe('success');
  });

  it('leaves no undo checkpoint behind when its lease is refused after the checks', async () => {
    const { out, ops } = await sealedFork();
    const scan = ops.changes.bind(ops);
    const other = SqliteStore.open(t.home);
    try {
      // Another operation takes the parent while the checks run: the settle's lease is refused.
      ops.changes = async (workspaceId, checkpointId, limit) => {
        const seen = await scan(workspaceId, checkpointId, limit);
        if (workspaceId === 'p' && limit > 1)
          other.leaseWorkspace({ workspaceId: 'p', op: 'checkpoint', provider: 'fake', owner: currentOwner(), createdAt: Date.now(), traceId: null });
        return seen;
      };
      expect((await refusal(t.engine.settle({ outputId: out, decision: 'apply' }))).code).toBe('WORKSPACE_BUSY');
      expect(new SnapshotRecords(other).checkpointsOf('p', ['undo'])).toEqual([]);
      expect(other.openIntents().filter((i) => i.op === 'settle-check')).toEqual([]);
    } finally {
      other.close();
    }
  });
});
