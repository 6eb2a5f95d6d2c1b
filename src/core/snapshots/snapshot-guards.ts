/**
 * What every snapshot verb checks first: the workspace exists, its provider
 * offers the `snapshots` feature (else POLICY_DENIED, exit 3, naming it,
 * before anything is done), and the checkpoint or output named is this
 * workspace's and usable.
 */
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { validateId } from '../ids.js';
import { nextAction } from '../next-action.js';
import type { Provider } from '../provider.js';
import type { WorkspaceRecord } from '../store/sqlite-store.js';
import { requireLiveWorkspace } from '../verbs/workspace-guards.js';
import type { SnapshotOps } from './snapshot-ops.js';
import { SnapshotRecords, type CheckpointRecord, type OutputRecord } from './snapshot-records.js';

export interface SnapshotTarget {
  ws: WorkspaceRecord;
  provider: Provider;
  ops: SnapshotOps;
  records: SnapshotRecords;
}

export function snapshotRecords(ctx: EngineContext): SnapshotRecords {
  return new SnapshotRecords(ctx.store());
}

/** A live workspace whose provider has snapshots; POLICY_DENIED (exit 3) naming the capability otherwise. */
export async function requireSnapshots(ctx: EngineContext, workspaceId: string, verb: string): Promise<SnapshotTarget> {
  const ws = requireLiveWorkspace(ctx, workspaceId);
  const provider = await ctx.provider(ws.provider);
  const caps = await provider.capabilities();
  if (!caps.features?.includes('snapshots') || provider.snapshots === undefined) {
    throw new EngineError(
      'POLICY_DENIED',
      `${verb} needs the snapshots capability, which the ${ws.provider} provider does not have (workspace ${ws.id}); nothing was done`,
      { hint: 'use a workspace on a provider whose capabilities list snapshots (native)', action: nextAction('create', { provider: 'native' }) },
    );
  }
  return { ws, provider, ops: provider.snapshots, records: snapshotRecords(ctx) };
}

/** A checkpoint of this workspace that may be restored or forked from: valid, verified against its recorded digest. */
export async function requireUsableCheckpoint(target: SnapshotTarget, checkpointId: string): Promise<CheckpointRecord & { digest: string }> {
  validateId('checkpoint', checkpointId);
  const cp = target.records.getCheckpoint(checkpointId);
  const listing = nextAction('inspect', { handle: target.ws.id });
  if (!cp || cp.workspaceId !== target.ws.id)
    throw new EngineError('CHECKPOINT_NOT_FOUND', `workspace ${target.ws.id} has no checkpoint ${checkpointId}`, {
      hint: 'inspect the workspace for its checkpoints',
      action: listing,
    });
  if (cp.state === 'consumed')
    throw new EngineError(
      'CHECKPOINT_CONSUMED',
      `checkpoint ${cp.id} was consumed by a restore at ${new Date(cp.consumedAt ?? 0).toISOString()}; it restores once`,
      {
        hint: 'take a new checkpoint; a consumed one is single-use',
        action: nextAction('checkpoint', { workspaceId: target.ws.id }),
      },
    );
  if (cp.state === 'pending')
    throw new EngineError('CHECKPOINT_INVALID', `checkpoint ${cp.id} was never finished (its checkpoint was interrupted); it is never restored`, {
      hint: "doctor's repair plan removes it",
      action: nextAction('doctor', { repair: true }),
    });
  if (cp.state === 'invalid' || cp.digest === null || !(await target.ops.verify(target.ws.id, cp.id, cp.digest))) {
    target.records.markCheckpoint(cp.id, 'invalid');
    throw new EngineError('CHECKPOINT_INVALID', `checkpoint ${cp.id} is invalid: its data is gone or does not hold its recorded digest; it is never restored`, {
      hint: 'choose another checkpoint',
      action: listing,
    });
  }
  return { ...cp, digest: cp.digest };
}

/**
 * Whether a fork's parent is gone (destroy --force does not wait for its forks):
 * an output sealed or settled against it could never land, so seal and settle
 * ask this first and refuse with a remedy that works, not "create a new one".
 */
export function parentIsDestroyed(ctx: EngineContext, parentId: string): boolean {
  return ctx.store().getWorkspace(parentId)?.state === 'destroyed';
}

export function requireOutput(ctx: EngineContext, outputId: string): OutputRecord {
  validateId('output', outputId);
  const out = snapshotRecords(ctx).getOutput(outputId);
  if (!out)
    throw new EngineError('OUTPUT_NOT_FOUND', `no output ${outputId}`, {
      hint: 'seal a forked workspace to make one; inspect the child for its outputs',
    });
  return out;
}
