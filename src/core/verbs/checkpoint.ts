import type { EngineContext } from '../context.js';
import { crashPoint } from '../crash-points.js';
import { EngineError } from '../errors.js';
import { nextAction } from '../next-action.js';
import { reconcile } from '../reconcile.js';
import { buildResult } from '../result/build-result.js';
import { attentionItem, type ResultPackage } from '../result/result-package.js';
import { provenanceFor } from '../result/package-parts.js';
import { requireSnapshots, requireUsableCheckpoint } from '../snapshots/snapshot-guards.js';
import { takeCheckpoint } from '../snapshots/take-checkpoint.js';
import { checkpointFinding } from '../snapshots/snapshot-findings.js';
import { currentOwner } from '../store/owner.js';

export interface CheckpointInput {
  workspaceId: string;
  label?: string;
}

export interface RestoreInput {
  workspaceId: string;
  checkpointId: string;
  /** Make the checkpoint single-use: a second restore of it is refused. */
  consume?: boolean;
}

const MAX_LABEL = 200;

/** Freezes a workspace's files as a checkpoint: the id, label, file count, bytes and content digest are recorded. */
export async function checkpointWorkspace(ctx: EngineContext, input: CheckpointInput): Promise<ResultPackage> {
  if (input.label !== undefined && (typeof input.label !== 'string' || input.label.length > MAX_LABEL || /[\0-\x1f\x7f]/.test(input.label)))
    throw new EngineError('BAD_ARGUMENT', `a label is one line of at most ${MAX_LABEL} characters`, { hint: 'for example "before the refactor"' });
  const target = await requireSnapshots(ctx, input.workspaceId, 'checkpoint');
  const attention = await reconcile(ctx, { workspaceId: target.ws.id });
  const startedAt = ctx.clock.now();
  const cp = await takeCheckpoint(ctx, target, 'user', input.label ?? null);
  attention.push(
    attentionItem('next-step', 'to go back to it', {
      workspace_id: target.ws.id,
      action: nextAction('restore', { workspaceId: target.ws.id, checkpointId: cp.id }),
    }),
  );
  return buildResult({
    outcome_summary: `checkpoint ${cp.id} of workspace ${target.ws.id} holds ${cp.fileCount} file(s), ${cp.bytes} bytes`,
    status: 'success',
    key_findings: [
      checkpointFinding(`checkpoint: ${cp.id}`, cp),
      ...(cp.label ? [`label: ${cp.label}`] : []),
      `files: ${cp.fileCount}`,
      `bytes: ${cp.bytes}`,
      `digest: ${cp.digest}`,
    ],
    provenance: provenanceFor(ctx, 'checkpoint', { workspace: target.ws, startedAt, finishedAt: ctx.clock.now() }),
    attention,
  });
}

/**
 * Makes a workspace's files exactly a checkpoint's. Refused while a job runs
 * (the lease), for a consumed checkpoint, and for one whose data does not
 * verify. With consume, the checkpoint is consumed in the commit that
 * settles the restore; the lease keeps a second restore of the workspace out
 * until then, so two restores racing cannot both use it.
 */
export async function restoreCheckpoint(ctx: EngineContext, input: RestoreInput): Promise<ResultPackage> {
  const target = await requireSnapshots(ctx, input.workspaceId, 'restore');
  const store = ctx.store();
  store.refuseIfRunning(target.ws.id);
  const attention = await reconcile(ctx, { workspaceId: target.ws.id });
  const cp = await requireUsableCheckpoint(target, input.checkpointId);
  const startedAt = ctx.clock.now();
  const intent = store.atomically(() => {
    const lease = store.leaseWorkspace({
      workspaceId: target.ws.id,
      op: 'restore',
      provider: target.ws.provider,
      owner: currentOwner(),
      createdAt: startedAt,
      target: cp.id,
      traceId: ctx.traceId,
    });
    // Read again under the lease: a restore that consumed it may have finished since the check above.
    if (target.records.getCheckpoint(cp.id)?.state !== 'valid')
      throw new EngineError('CHECKPOINT_CONSUMED', `checkpoint ${cp.id} was consumed by another restore; it restores once`, {
        hint: 'take a new checkpoint; a consumed one is single-use',
      });
    return lease;
  });
  crashPoint('restore', 'after-intent');
  try {
    await target.ops.restore(target.ws.id, cp.id);
    crashPoint('restore', 'after-provider-call');
  } catch (error) {
    store.settleIntent(intent, `failed: ${(error as EngineError).code ?? 'error'}`, ctx.clock.now());
    throw error;
  }
  // Consumed with the restore's settlement, in one commit: a restore cut short leaves it usable, to restore again.
  store.atomically(() => {
    if (input.consume === true) target.records.consumeCheckpoint(cp.id, ctx.clock.now());
    store.settleIntent(intent, 'done', ctx.clock.now());
  });
  const view = await target.provider.inspect(target.ws.id).catch(() => null);
  return buildResult({
    outcome_summary: `workspace ${target.ws.id} holds exactly checkpoint ${cp.id} again (${cp.fileCount} file(s), ${cp.bytes} bytes)`,
    status: 'success',
    key_findings: [
      checkpointFinding(`checkpoint: ${cp.id}${cp.label ? ` (${cp.label})` : ''}`, { ...cp, state: input.consume === true ? 'consumed' : 'valid' }),
      `digest: ${cp.digest}`,
      input.consume === true ? 'the checkpoint is consumed: a second restore of it is refused' : 'the checkpoint stays usable',
    ],
    resource_usage: { storage_bytes: view?.storageBytes ?? null },
    provenance: provenanceFor(ctx, 'restore', { workspace: target.ws, startedAt, finishedAt: ctx.clock.now() }),
    attention,
  });
}
