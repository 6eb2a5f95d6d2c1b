import { createHash } from 'node:crypto';
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { nextAction } from '../next-action.js';
import { reconcile } from '../reconcile.js';
import { buildResult } from '../result/build-result.js';
import { attentionItem, type ResultPackage } from '../result/result-package.js';
import { provenanceFor } from '../result/package-parts.js';
import { requireSnapshots, requireUsableCheckpoint } from '../snapshots/snapshot-guards.js';
import type { TreeChange } from '../snapshots/snapshot-ops.js';
import { takeCheckpoint } from '../snapshots/take-checkpoint.js';
import { describeChange } from './diff.js';

export interface SealInput {
  workspaceId: string;
}

/** An output holds at most this many changes: its list is recorded whole. */
export const MAX_OUTPUT_CHANGES = 10_000;
const SHOWN = 50;

/** The proposal's digest: its paths, kinds, types, digests and modes, never bodies. */
export function proposalDigest(changes: readonly TreeChange[]): string {
  const hash = createHash('sha256');
  for (const c of changes) hash.update(`${JSON.stringify([c.path, c.kind, c.type, c.sha256, c.mode, c.previousSha256])}\n`);
  return `sha256:${hash.digest('hex')}`;
}

/**
 * Freezes a forked workspace's changes against its fork baseline into an
 * output: the list (paths, kinds, digests) is recorded, and a checkpoint of
 * the child holds the bytes, so settling copies exactly what was sealed
 * whatever the child does afterwards.
 */
export async function sealWorkspace(ctx: EngineContext, input: SealInput): Promise<ResultPackage> {
  const target = await requireSnapshots(ctx, input.workspaceId, 'seal');
  const fork = target.records.forkOf(target.ws.id);
  if (!fork)
    throw new EngineError('BAD_ARGUMENT', `workspace ${target.ws.id} is not a fork: seal freezes a fork's changes for its parent`, {
      hint: 'fork a workspace first',
      action: nextAction('fork', { workspaceId: target.ws.id }),
    });
  ctx.store().refuseIfRunning(target.ws.id);
  const attention = await reconcile(ctx, { workspaceId: target.ws.id });
  const startedAt = ctx.clock.now();
  await requireUsableCheckpoint(target, fork.childBaseId);
  const sealed = await takeCheckpoint(ctx, target, 'seal', null);
  // Against the seal checkpoint, not the live files: what the list names is what the checkpoint holds.
  const { changes, truncated } = await target.ops.changes(target.ws.id, fork.childBaseId, MAX_OUTPUT_CHANGES);
  const moved = await target.ops.changes(target.ws.id, sealed.id, 1);
  if (truncated || moved.changes.length > 0) {
    target.records.deleteCheckpoint(sealed.id);
    await target.ops.drop(target.ws.id, sealed.id).catch(() => undefined);
    throw truncated
      ? new EngineError(
          'POLICY_DENIED',
          `workspace ${target.ws.id} changed more than ${MAX_OUTPUT_CHANGES} paths since its fork; an output holds at most that many`,
          {
            hint: 'settle the work in smaller steps, or copy it out with export',
          },
        )
      : new EngineError('WORKSPACE_BUSY', `workspace ${target.ws.id} changed while it was being sealed; nothing was sealed`, { hint: 'seal it again' });
  }
  const id = ctx.ids('out');
  const digest = proposalDigest(changes);
  target.records.addOutput({
    id,
    childId: target.ws.id,
    parentId: fork.parentId,
    sealCheckpointId: sealed.id,
    changes,
    proposalDigest: digest,
    createdAt: ctx.clock.now(),
  });
  attention.push(
    attentionItem('next-step', `to take it into ${fork.parentId} (select: only while the parent is unchanged; apply: onto a moved parent)`, {
      workspace_id: fork.parentId,
      action: nextAction('settle', { outputId: id, decision: 'select' }),
    }),
  );
  const findings = [
    `output: ${id}`,
    `parent: ${fork.parentId}`,
    `proposal digest: ${digest}`,
    `${changes.length} change(s)`,
    ...changes.slice(0, SHOWN).map(describeChange),
  ];
  if (changes.length > SHOWN) findings.push(`… and ${changes.length - SHOWN} more (diff shows them all)`);
  return buildResult({
    outcome_summary: `the changes of ${target.ws.id} since its fork are sealed as output ${id} (${changes.length} change(s)); settle it once`,
    status: 'success',
    key_findings: findings,
    provenance: provenanceFor(ctx, 'seal', { workspace: target.ws, startedAt, finishedAt: ctx.clock.now() }),
    attention,
  });
}
