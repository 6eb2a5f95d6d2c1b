import { createHash } from 'node:crypto';
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { nextAction } from '../next-action.js';
import { reconcile } from '../reconcile.js';
import { buildResult } from '../result/build-result.js';
import { attentionItem, type AttentionItem, type KeyFinding, type ResultPackage } from '../result/result-package.js';
import { provenanceFor } from '../result/package-parts.js';
import { parentIsDestroyed, requireSnapshots, requireUsableCheckpoint, type SnapshotTarget } from '../snapshots/snapshot-guards.js';
import type { OutputRecord } from '../snapshots/snapshot-records.js';
import { displayName } from '../result/visible-text.js';
import type { TreeChange } from '../snapshots/snapshot-ops.js';
import { takeCheckpoint } from '../snapshots/take-checkpoint.js';
import { outputFinding } from '../snapshots/snapshot-findings.js';
import { describeChange } from './diff.js';
import { globMatches } from '../snapshots/review-gate.js';
import { inputRef } from '../verb-table/command-words.js';

export interface SealInput {
  workspaceId: string;
  /**
   * Globs of paths the output leaves out (a run's byproducts: __pycache__,
   * *.pyc, report.xml), as the merge gate reads globs (`*` within a name,
   * `**` across names, no `/` a name at any depth); a path is left out when
   * it or a directory above it matches. A new user's every apply conflicted
   * on the .pyc files and reports each test run rewrote on both sides.
   */
  exclude?: string[];
}

const MAX_EXCLUDES = 100;

/** The changes `exclude` leaves in, and how many it left out. */
export function withoutExcluded(changes: readonly TreeChange[], exclude: readonly string[]): { kept: TreeChange[]; left: TreeChange[] } {
  if (exclude.length === 0) return { kept: [...changes], left: [] };
  const matches = (path: string) => {
    const parts = path.split('/');
    for (let depth = 1; depth <= parts.length; depth++) {
      const prefix = parts.slice(0, depth).join('/');
      if (exclude.some((glob) => globMatches(glob, prefix))) return true;
    }
    return false;
  };
  const kept: TreeChange[] = [];
  const left: TreeChange[] = [];
  for (const change of changes) (matches(change.path) ? left : kept).push(change);
  return { kept, left };
}

/**
 * A change kept that takes a whole directory away — its deletion, or a file
 * or link put in its place — takes what is under it too, left out or not.
 * Sealed anyway, a red team's excluded `secrets/prod.key` was said to stay
 * in the fork, passed a deny-path gate that never saw it, and was deleted
 * from the parent with its directory. Refused (the caller drops its seal
 * checkpoint), naming both.
 */
export function excludedUnderTakenDirectory(kept: readonly TreeChange[], left: readonly TreeChange[]): EngineError | null {
  const takers = kept.filter((c) => c.kind === 'delete' || (c.kind === 'modify' && c.type !== 'directory'));
  for (const excluded of left) {
    const taker = takers.find((t) => excluded.path.startsWith(`${t.path}/`));
    if (taker === undefined) continue;
    return new EngineError(
      'BAD_ARGUMENT',
      `${inputRef('exclude')} leaves out ${displayName(excluded.path)}, but the output ${taker.kind === 'delete' ? 'deletes' : 'replaces'} ${displayName(taker.path)}, which takes it along; nothing was sealed`,
      { hint: `leave out ${displayName(taker.path)} too, or keep ${displayName(excluded.path)} in the output`, inputsOf: 'seal' },
    );
  }
  return null;
}

function checkedExcludes(exclude: unknown): string[] {
  if (exclude === undefined) return [];
  if (!Array.isArray(exclude) || exclude.length > MAX_EXCLUDES || exclude.some((g) => typeof g !== 'string' || g === '' || g.length > 256))
    throw new EngineError('BAD_ARGUMENT', `${inputRef('exclude')} takes at most ${MAX_EXCLUDES} globs, each 1 to 256 characters`, {
      hint: `e.g. ${inputRef('exclude', '__pycache__')} or ${inputRef('exclude', '*.pyc')}`,
      inputsOf: 'seal',
    });
  return exclude as string[];
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
  const exclude = checkedExcludes(input.exclude);
  const target = await requireSnapshots(ctx, input.workspaceId, 'seal');
  const fork = target.records.forkOf(target.ws.id);
  if (!fork)
    throw new EngineError('BAD_ARGUMENT', `workspace ${target.ws.id} is not a fork: seal freezes a fork's changes for its parent`, {
      hint: 'fork a workspace first',
      action: nextAction('fork', { workspaceId: target.ws.id }),
    });
  if (parentIsDestroyed(ctx, fork.parentId))
    throw new EngineError(
      'WORKSPACE_DESTROYED',
      `workspace ${target.ws.id} is a fork of ${fork.parentId}, which was destroyed: an output sealed now could never be settled into it; nothing was sealed`,
      {
        hint: `export what you need from ${target.ws.id} (declare, then export), then destroy the fork`,
        action: nextAction('destroy', { workspaceId: target.ws.id }),
      },
    );
  refuseSettledBack(target, fork.parentId);
  ctx.store().refuseIfRunning(target.ws.id);
  const attention = await reconcile(ctx, { workspaceId: target.ws.id });
  const startedAt = ctx.clock.now();
  await requireUsableCheckpoint(target, fork.childBaseId);
  const open = unsettledOutputOf(target);
  if (open) return resealed(ctx, target, open, attention, startedAt, exclude, fork.childBaseId);
  const sealed = await takeCheckpoint(ctx, target, 'seal', null);
  // Against the seal checkpoint, not the live files: what the list names is what the checkpoint holds.
  const scanned = await target.ops.changes(target.ws.id, fork.childBaseId, MAX_OUTPUT_CHANGES);
  const { truncated } = scanned;
  const { kept: changes, left } = withoutExcluded(scanned.changes, exclude);
  const takenAlong = excludedUnderTakenDirectory(changes, left);
  if (takenAlong !== null) {
    target.records.deleteCheckpoint(sealed.id);
    await target.ops.drop(target.ws.id, sealed.id).catch(() => undefined);
    throw takenAlong;
  }
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
  const output = {
    id: ctx.ids('out'),
    childId: target.ws.id,
    parentId: fork.parentId,
    sealCheckpointId: sealed.id,
    changes,
    proposalDigest: proposalDigest(changes),
    createdAt: ctx.clock.now(),
  };
  // Checked again in the insert's transaction: two seals racing must not both leave an output.
  const raced = ctx.store().atomically(() => {
    const first = unsettledOutputOf(target);
    if (!first) target.records.addOutput(output);
    return first;
  });
  if (raced) {
    target.records.deleteCheckpoint(sealed.id);
    await target.ops.drop(target.ws.id, sealed.id).catch(() => undefined);
    return resealed(ctx, target, raced, attention, startedAt, exclude, fork.childBaseId);
  }
  return sealedResult(ctx, target, { ...output, state: 'sealed', decision: null, settledAt: null }, attention, startedAt, false, left);
}

/**
 * A fork settles back into its parent at most once. Sealed again after a select or apply, its output held the
 * settled changes again, against the same baseline, so select found the parent moved (by that settle) and
 * apply found both sides changed the same paths (a new user, session 12: every hint led to an output that
 * could never settle). Refused instead, pointing at a fresh fork of the parent. After a release the fork may
 * be sealed again: nothing of it reached the parent.
 */
function refuseSettledBack(target: SnapshotTarget, parentId: string): void {
  const taken = target.records.outputsOf(target.ws.id).find((o) => o.childId === target.ws.id && (o.decision === 'select' || o.decision === 'apply'));
  if (taken === undefined) return;
  throw new EngineError(
    'ALREADY_SETTLED',
    `fork ${target.ws.id} already settled back into ${parentId} (output ${taken.id}, ${taken.decision}); a fork settles back at most once; nothing was sealed`,
    {
      hint: `fork ${parentId} again to carry on from what it holds now (export from ${target.ws.id} anything it has that the parent lacks)`,
      action: nextAction('fork', { workspaceId: parentId }),
    },
  );
}

/** The fork's output not settled yet, if any: a fork holds at most one, so none is left behind unsettled (orphaned) by a second seal. */
function unsettledOutputOf(target: SnapshotTarget): OutputRecord | undefined {
  return target.records.outputsOf(target.ws.id).find((o) => o.childId === target.ws.id && o.state !== 'settled');
}

/**
 * A second seal while the first output is unsettled. Unchanged since then, it
 * is the same proposal: the first output is returned (seal is idempotent
 * there). Changed since, a new output would leave the first one unsettled
 * forever beside it, so it is refused, naming it and how to let it go.
 */
async function resealed(
  ctx: EngineContext,
  target: SnapshotTarget,
  out: OutputRecord,
  attention: AttentionItem[],
  startedAt: number,
  exclude: readonly string[],
  baseId: string,
): Promise<ResultPackage> {
  const letGo = nextAction('settle', { outputId: out.id, decision: 'release' });
  if (out.state !== 'sealed')
    throw new EngineError(
      'ALREADY_SEALED',
      `workspace ${target.ws.id} is sealed as output ${out.id}, whose settle${out.decision === null ? '' : ` (${out.decision})`} is under way or was interrupted; nothing was sealed`,
      {
        hint: "let that settle end; if its process is gone, doctor's repair finishes or rolls it back; seal again after",
        action: nextAction('doctor', { repair: true }),
      },
    );
  const since = await target.ops.changes(target.ws.id, out.sealCheckpointId, 1);
  if (since.changes.length > 0)
    throw new EngineError(
      'ALREADY_SEALED',
      `workspace ${target.ws.id} was sealed as output ${out.id}, not settled yet, and changed since (${since.changes[0]!.kind} ${displayName(since.changes[0]!.path)}${since.truncated ? ', …' : ''}); nothing was sealed`,
      { hint: 'settle that output first (release lets it go without touching the parent), then seal again', action: letGo },
    );
  // Unchanged, but asked to leave out something else than that output did: returning it would ignore the exclude (a
  // new user's seal again with __pycache__ excluded got the first output back, .pyc files and all).
  const asked = withoutExcluded((await target.ops.changes(target.ws.id, baseId, MAX_OUTPUT_CHANGES)).changes, exclude).kept;
  if (proposalDigest(asked) !== out.proposalDigest)
    throw new EngineError(
      'ALREADY_SEALED',
      `workspace ${target.ws.id} is sealed as output ${out.id}, not settled yet, which holds ${out.changes.length} change(s); with what this seal leaves out it would hold ${asked.length}; nothing was sealed`,
      { hint: 'release that output (it leaves the parent untouched), then seal again with what to leave out', action: letGo },
    );
  // Read again after the comparison: a settle that decided the output meanwhile (a discard racing this seal) would
  // otherwise be answered as "sealed before", naming an output that is already going or gone.
  const now = target.records.getOutput(out.id);
  if (now?.state !== 'sealed') {
    const decision = now?.decision ?? null;
    throw new EngineError(
      'WORKSPACE_BUSY',
      `output ${out.id} of workspace ${target.ws.id} was being settled${decision === null ? '' : ` (${decision})`} while this seal ran; nothing was sealed`,
      {
        hint:
          decision === 'discard'
            ? `a discard removes the fork ${target.ws.id} with its changes: nothing is left to seal`
            : 'seal the fork again once that settle has ended',
        ...(decision === 'discard' ? {} : { action: nextAction('seal', { workspaceId: target.ws.id }) }),
      },
    );
  }
  return sealedResult(ctx, target, now, attention, startedAt, true);
}

function sealedResult(
  ctx: EngineContext,
  target: SnapshotTarget,
  out: OutputRecord,
  attention: AttentionItem[],
  startedAt: number,
  again: boolean,
  left: readonly TreeChange[] = [],
): ResultPackage {
  const { id, changes, parentId, proposalDigest: digest } = out;
  attention.push(
    attentionItem('next-step', `to take it into ${parentId} (select: only while the parent is unchanged; apply: onto a moved parent)`, {
      workspace_id: parentId,
      action: nextAction('settle', { outputId: id, decision: 'select' }),
    }),
  );
  const findings: KeyFinding[] = [
    outputFinding(`output: ${id}`, out),
    `parent: ${parentId}`,
    `proposal digest: ${digest}`,
    `${changes.length} change(s)`,
    ...changes.slice(0, SHOWN).map(describeChange),
  ];
  if (changes.length > SHOWN) findings.push(`… and ${changes.length - SHOWN} more (diff shows them all)`);
  if (left.length > 0)
    findings.push(
      `left out by exclude: ${left.length} change(s) (${left
        .slice(0, 5)
        .map((c) => displayName(c.path))
        .join(', ')}${left.length > 5 ? ', …' : ''}): they stay in the fork and never reach the parent`,
    );
  if (again)
    findings.push(
      `already sealed at ${new Date(out.createdAt).toISOString()} and unchanged since: this is that output, with what it left out then; no new one was made`,
    );
  return buildResult({
    outcome_summary: `the changes of ${target.ws.id} since its fork are sealed as output ${id} (${changes.length} change(s))${again ? ', sealed before' : ''}; settle it once`,
    status: 'success',
    key_findings: findings,
    provenance: provenanceFor(ctx, 'seal', { workspace: target.ws, startedAt, finishedAt: ctx.clock.now() }),
    attention,
  });
}
