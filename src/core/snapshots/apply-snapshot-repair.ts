/** Carries out one safe snapshot repair (plan-snapshot-repairs.ts); each is idempotent, so a doctor killed mid-repair simply re-plans it. */
import type { EngineContext } from '../context.js';
import { finishDiscard } from '../verbs/settle.js';
import type { SnapshotRepairStep } from './plan-snapshot-repairs.js';
import { SnapshotRecords } from './snapshot-records.js';

export async function applySnapshotRepair(
  ctx: EngineContext,
  step: SnapshotRepairStep,
  journal: <T>(provider: string, fn: () => Promise<T>) => Promise<T>,
): Promise<string | { kept: string }> {
  const store = ctx.store();
  const records = new SnapshotRecords(store);
  const now = () => ctx.clock.now();
  switch (step.kind) {
    case 'drop-checkpoint': {
      // Still pending now? An operation that finished since the diagnosis completed it: it is no debris any more.
      const now = records.getCheckpoint(step.checkpointId);
      if (now !== undefined && now.state !== 'pending')
        return { kept: `kept checkpoint ${step.checkpointId} of workspace ${step.workspaceId}: it was completed since the diagnosis` };
      if (step.provider !== null) {
        const ops = (await ctx.provider(step.provider)).snapshots;
        if (ops) await journal(step.provider, () => ops.drop(step.workspaceId, step.checkpointId));
      }
      records.deleteCheckpoint(step.checkpointId);
      return `removed incomplete checkpoint ${step.checkpointId} of workspace ${step.workspaceId}`;
    }
    case 'abandon-settle-check': {
      if (step.provider !== null) {
        const ops = (await ctx.provider(step.provider)).snapshots;
        if (ops) await journal(step.provider, () => ops.drop(step.workspaceId, step.checkpointId));
      }
      store.atomically(() => {
        records.deleteCheckpoint(step.checkpointId);
        store.settleIntent(step.intentId, `settled by doctor's repair: interrupted in its checks; undo checkpoint ${step.checkpointId} dropped`, now());
      });
      return `removed undo checkpoint ${step.checkpointId} of workspace ${step.workspaceId}, left by a settle interrupted before it changed anything`;
    }
    case 'finish-checkpoint':
      records.finishCheckpoint(step.checkpointId, step.facts);
      return `recorded fork baseline ${step.checkpointId} valid (${step.facts.digest})`;
    case 'roll-back-settle': {
      const ops = (await ctx.provider(step.provider)).snapshots;
      if (!ops) throw new Error(`the ${step.provider} provider has no snapshots to roll back with`);
      await journal(step.provider, () => ops.restore(step.parentId, step.undoId));
      store.atomically(() => {
        records.abortSettle(step.outputId);
        records.deleteCheckpoint(step.undoId);
        store.settleIntent(step.intentId, `settled by doctor's repair: rolled back (output ${step.outputId} unconsumed)`, now());
      });
      await ops.drop(step.parentId, step.undoId).catch(() => undefined);
      return `workspace ${step.parentId} restored to ${step.undoId}, as before the interrupted settle; output ${step.outputId} is unconsumed`;
    }
    case 'finish-settle': {
      if (step.decision === 'discard') await finishDiscard(ctx, step.childId);
      store.atomically(() => {
        records.finishSettle(step.outputId, now());
        store.settleIntent(step.intentId, `settled by doctor's repair: ${step.decision} finished`, now());
      });
      return `output ${step.outputId} settled by ${step.decision}${step.decision === 'discard' ? `; workspace ${step.childId} destroyed` : ''}`;
    }
  }
}
