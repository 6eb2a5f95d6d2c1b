/**
 * Taking a checkpoint, journalled: the record (state `pending`) and the
 * intent land in one transaction before the provider is asked, and the
 * record reads `valid` only after the provider returned its facts. A crash
 * in between leaves a pending record that is never restored and that
 * doctor's repair removes (with the provider's part-made data).
 */
import type { EngineContext } from '../context.js';
import { crashPoint } from '../crash-points.js';
import type { EngineError } from '../errors.js';
import { currentOwner } from '../store/owner.js';
import type { TreeFacts } from './snapshot-ops.js';
import type { SnapshotTarget } from './snapshot-guards.js';
import type { CheckpointKind, CheckpointRecord } from './snapshot-records.js';

export async function takeCheckpoint(
  ctx: EngineContext,
  target: SnapshotTarget,
  kind: CheckpointKind,
  label: string | null,
  /** Its id, when the caller journalled it before (settle's undo checkpoint). */
  id: string = ctx.ids('cp'),
): Promise<CheckpointRecord & { digest: string; fileCount: number; bytes: number }> {
  const store = ctx.store();
  const now = ctx.clock.now();
  // The intent is the lease: no job starts in the workspace while its files are frozen.
  const intent = store.atomically(() => {
    const lease = store.leaseWorkspace({
      workspaceId: target.ws.id,
      op: 'checkpoint',
      provider: target.ws.provider,
      owner: currentOwner(),
      createdAt: now,
      target: id,
      traceId: ctx.traceId,
    });
    target.records.addCheckpoint({ id, workspaceId: target.ws.id, kind, label, createdAt: now });
    return lease;
  });
  crashPoint('checkpoint', 'after-intent');
  let facts: TreeFacts;
  try {
    facts = await target.ops.checkpoint(target.ws.id, id);
    crashPoint('checkpoint', 'after-provider-call');
  } catch (error) {
    store.atomically(() => {
      target.records.deleteCheckpoint(id);
      store.settleIntent(intent, `failed: ${(error as EngineError).code ?? 'error'}`, ctx.clock.now());
    });
    await target.ops.drop(target.ws.id, id).catch(() => undefined);
    throw error;
  }
  store.atomically(() => {
    target.records.finishCheckpoint(id, facts);
    store.settleIntent(intent, 'done', ctx.clock.now());
  });
  return { id, workspaceId: target.ws.id, kind, label, state: 'valid', createdAt: now, consumedAt: null, ...facts };
}
