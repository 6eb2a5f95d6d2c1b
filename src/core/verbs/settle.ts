import type { EngineContext } from '../context.js';
import { crashPoint } from '../crash-points.js';
import { EngineError } from '../errors.js';
import { nextAction } from '../next-action.js';
import { reconcile } from '../reconcile.js';
import { buildResult } from '../result/build-result.js';
import type { KeyFinding, ResultPackage } from '../result/result-package.js';
import { provenanceFor } from '../result/package-parts.js';
import { quotedName } from '../result/visible-text.js';
import { carryChanges, carryRefusal, filesMadeEmptyDirectories, setIdBitsDropped, skippedDirectories, uncarried } from '../snapshots/apply-output.js';
import { reviewProposal } from '../snapshots/review-gate.js';
import {
  parentIsDestroyed,
  requireOutput,
  requireSnapshots,
  requireUsableCheckpoint,
  snapshotRecords,
  type SnapshotTarget,
} from '../snapshots/snapshot-guards.js';
import type { TreeChange } from '../snapshots/snapshot-ops.js';
import type { OutputRecord, ReviewDecision, SettleDecision } from '../snapshots/snapshot-records.js';
import { takeCheckpoint } from '../snapshots/take-checkpoint.js';
import { outputFinding } from '../snapshots/snapshot-findings.js';
import { currentOwner } from '../store/owner.js';
import { destroyWorkspace } from './destroy.js';

export interface SettleInput {
  outputId: string;
  decision: SettleDecision;
}

export const SETTLE_DECISIONS: readonly SettleDecision[] = ['select', 'apply', 'release', 'discard'];

/** What a settle intent's target records: repair rolls a select/apply back to `undo`, and finishes a release/discard. */
export interface SettleTarget {
  output: string;
  decision: SettleDecision;
  undo?: string;
}

const MOVED_SHOWN = 10;
/** How many of the parent's changes since the fork baseline are read; apply refuses past it (it could not check the rest). */
const MOVED_SCANNED = 100_000;

function refuseSettled(ctx: EngineContext, out: OutputRecord): void {
  if (out.state === 'sealed') return;
  const when = out.settledAt === null ? 'was interrupted (doctor’s repair finishes or rolls it back)' : `at ${new Date(out.settledAt).toISOString()}`;
  // The remedy shown must be the one the words name, and one that can work: sealing again needs both sides alive.
  const store = ctx.store();
  const gone = [out.childId, out.parentId].filter((id) => store.getWorkspace(id)?.state !== 'destroyed').length < 2;
  // After a select or apply the fork has settled back (seal refuses it again): the way on is a fresh fork.
  const settledBack = out.decision === 'select' || out.decision === 'apply';
  throw new EngineError('ALREADY_SETTLED', `output ${out.id} was already settled: ${out.decision} ${when}; an output settles exactly once`, {
    hint: gone
      ? `fork ${out.childId} or its parent ${out.parentId} is destroyed: no new output can be sealed from it; there is nothing left to settle`
      : settledBack
        ? `fork ${out.childId} settled back into ${out.parentId}; fork ${out.parentId} again to carry on`
        : `seal the child (${out.childId}) again for a new output`,
    ...(gone ? {} : { action: settledBack ? nextAction('fork', { workspaceId: out.parentId }) : nextAction('seal', { workspaceId: out.childId }) }),
  });
}

/**
 * Both sides left the path exactly alike: both deleted it, or both made it
 * the same type with the same content and mode. Not a conflict (as in git):
 * a new user's apply was refused on a file both sides had written with the
 * same bytes.
 */
function sameEnd(a: TreeChange, b: TreeChange): boolean {
  if (a.kind === 'delete' || b.kind === 'delete') return a.kind === 'delete' && b.kind === 'delete';
  return a.type === b.type && (a.type === 'directory' || a.sha256 !== null) && a.sha256 === b.sha256 && a.mode === b.mode;
}

/**
 * Two changes touch the same thing: the same path (directories both kept are no clash), or one deletes a directory
 * the other writes under, or makes a file (or link) where the other writes under a directory: settle removes a
 * directory the fork made a file, and with it what the parent had put there since the baseline.
 */
export function overlapping(parentChanges: readonly TreeChange[], outputChanges: readonly TreeChange[]): string[] {
  const replacesUnder = (a: TreeChange, b: TreeChange) => (a.kind === 'delete' || a.type !== 'directory') && b.path.startsWith(`${a.path}/`);
  const clash = (a: TreeChange, b: TreeChange) =>
    (a.path === b.path && !(a.type === 'directory' && b.type === 'directory' && a.kind !== 'delete' && b.kind !== 'delete') && !sameEnd(a, b)) ||
    replacesUnder(a, b) ||
    replacesUnder(b, a);
  return [...new Set(outputChanges.filter((o) => parentChanges.some((p) => clash(p, o))).map((o) => o.path))].sort();
}

/**
 * Consumes a sealed output exactly once. select (the parent unchanged since
 * the fork baseline) and apply (three-way onto a moved parent, refused on
 * overlapping paths) first run the parent's reviewers, journalling each
 * decision; a refusal of any kind consumes nothing. The decision itself is
 * the one transition sealed → applying, so two callers cannot both settle.
 */
export async function settleOutput(ctx: EngineContext, input: SettleInput): Promise<ResultPackage> {
  if (!SETTLE_DECISIONS.includes(input.decision))
    throw new EngineError('BAD_ARGUMENT', `decision takes one of ${SETTLE_DECISIONS.join(', ')}, not '${String(input.decision).slice(0, 40)}'`, {
      hint: 'select to take the output into an unchanged parent, apply onto a moved one, release to let it go, discard to destroy the child too',
    });
  const out = requireOutput(ctx, input.outputId);
  refuseSettled(ctx, out);
  return input.decision === 'select' || input.decision === 'apply' ? settleIntoParent(ctx, out, input.decision) : letGo(ctx, out, input.decision);
}

async function settleIntoParent(ctx: EngineContext, out: OutputRecord, decision: 'select' | 'apply'): Promise<ResultPackage> {
  const store = ctx.store();
  if (parentIsDestroyed(ctx, out.parentId))
    throw new EngineError('WORKSPACE_DESTROYED', `output ${out.id} cannot be taken into ${out.parentId}: that workspace was destroyed; nothing was consumed`, {
      hint: `release lets the output go (keeping fork ${out.childId}; export what you need from it), discard also destroys the fork`,
      action: nextAction('settle', { outputId: out.id, decision: 'release' }),
    });
  const parent = await requireSnapshots(ctx, out.parentId, 'settle');
  const fork = parent.records.forkOf(out.childId)!;
  store.refuseIfRunning(parent.ws.id);
  const attention = await reconcile(ctx, { workspaceId: parent.ws.id });
  const startedAt = ctx.clock.now();
  const baseline = await requireUsableCheckpoint(parent, fork.parentCheckpointId);
  // The undo checkpoint first, then the checks: a job's change after it is caught under the lease below, and one
  // before it is in what the checks read. Taken after the checks, a parent edit made while they ran was in the undo
  // checkpoint, so the lease's look saw no change and the output overwrote it (red team, session 11).
  // Journalled first (not a lease: jobs may run while the checks read): a process killed before the lease leaves a
  // dead settle-check intent naming the undo checkpoint, which doctor's repair drops; without it nothing named the
  // checkpoint, and it held the parent's layers for good (red team, session 11).
  const undoId = ctx.ids('cp');
  const check = store.openIntent({
    workspaceId: parent.ws.id,
    jobId: null,
    op: 'settle-check',
    provider: parent.ws.provider,
    owner: currentOwner(),
    createdAt: ctx.clock.now(),
    target: JSON.stringify({ output: out.id, decision, undo: undoId } satisfies SettleTarget),
    traceId: ctx.traceId,
  });
  let undo: Awaited<ReturnType<typeof takeCheckpoint>>;
  try {
    undo = await takeCheckpoint(ctx, parent, 'undo', `before settling ${out.id}`, undoId);
  } catch (error) {
    store.settleIntent(check, `refused: ${(error as EngineError).code ?? 'error'}`, ctx.clock.now());
    throw error;
  }
  // Every way out before the lease is held drops it again: a refusal of the checks, of the lease (a job started, a
  // second settle), or of the output (settled meanwhile).
  const dropUndo = async (error: unknown) => {
    store.atomically(() => {
      parent.records.deleteCheckpoint(undo.id);
      store.settleIntent(check, `refused: ${(error as EngineError).code ?? 'error'}`, ctx.clock.now());
    });
    await parent.ops.drop(parent.ws.id, undo.id).catch(() => undefined);
  };
  let decisions: ReviewDecision[];
  try {
    decisions = await checkSettle();
  } catch (error) {
    await dropUndo(error);
    throw error;
  }
  // The checks, in a function so that any refusal of theirs drops the undo checkpoint above.
  async function checkSettle(): Promise<ReviewDecision[]> {
    const scanned = await parent.ops.changes(parent.ws.id, baseline.id, MOVED_SCANNED);
    const moved = scanned.changes;
    if (decision === 'apply' && scanned.truncated)
      throw new EngineError(
        'POLICY_DENIED',
        `workspace ${parent.ws.id} changed more than ${MOVED_SCANNED} paths since the fork baseline, too many to check each against output ${out.id} for a conflict; nothing was applied or consumed`,
        {
          hint: 'restore the parent nearer its fork baseline, or release the output and copy what you need by hand',
          action: nextAction('diff', { workspaceId: parent.ws.id, from: baseline.id }),
        },
      );
    if (decision === 'select' && moved.length > 0)
      throw new EngineError(
        'PARENT_MOVED',
        `workspace ${parent.ws.id} changed since the fork baseline (${moved
          .slice(0, MOVED_SHOWN)
          .map((c) => `${c.kind} ${c.path}`)
          .join(', ')}${moved.length > MOVED_SHOWN ? ', …' : ''}); select takes an output only into an unchanged parent; nothing was consumed`,
        {
          hint: 'apply merges it onto the moved parent (refused where both changed a path)',
          action: nextAction('settle', { outputId: out.id, decision: 'apply' }),
        },
      );
    const conflicts = overlapping(moved, out.changes);
    if (conflicts.length > 0)
      throw new EngineError(
        'SETTLE_CONFLICT',
        `output ${out.id} and workspace ${parent.ws.id} both changed: ${conflicts.slice(0, 20).join(', ')}${conflicts.length > 20 ? `, … (${conflicts.length} paths)` : ''}; nothing was applied or consumed`,
        {
          hint: `settle the paths by hand (restore or edit one side), then release this output (its decision release), seal the child again and apply the new output; paths that are only a run's byproducts (__pycache__, test reports) can be left out of that seal (seal's exclude)`,
          action: nextAction('diff', { workspaceId: parent.ws.id, from: baseline.id }),
        },
      );
    const links = uncarried(out.changes);
    if (links.length > 0)
      throw new EngineError(
        'POLICY_DENIED',
        `settle cannot carry symbolic links yet: ${links.map((c) => c.path).join(', ')}; nothing was applied or consumed`,
        {
          hint: 'release the output and copy the links by hand, or replace them with files and seal again',
        },
      );
    const emptied = filesMadeEmptyDirectories(out.changes);
    if (emptied.length > 0)
      throw new EngineError(
        'POLICY_DENIED',
        `settle cannot carry a file made into an empty directory yet: ${emptied.map((c) => c.path).join(', ')} (the parent's file would go and nothing would take its place); nothing was applied or consumed`,
        {
          hint: 'put a file in the directory in the fork and seal again, or release the output',
          action: nextAction('settle', { outputId: out.id, decision: 'release' }),
        },
      );
    const tooBig = carryRefusal(out.changes, parent.ws.policy.budget.storageBytes);
    if (tooBig !== null)
      throw new EngineError('POLICY_DENIED', `${tooBig}; nothing was applied or consumed`, {
        hint: 'release the output and copy the large files out with export, or remove them in the fork and seal again',
        action: nextAction('settle', { outputId: out.id, decision: 'release' }),
      });
    const decisions = reviewProposal(out.changes, parent.records.reviewPolicy(parent.ws.id));
    parent.records.recordReviews(out.id, parent.ws.id, out.proposalDigest, decisions, ctx.clock.now());
    const denied = decisions.filter((d) => d.verdict === 'deny');
    if (denied.length > 0)
      throw new EngineError(
        'REVIEW_DENIED',
        `the merge gate of ${parent.ws.id} denied output ${out.id}: ${denied.map((d) => `${d.reviewer}: ${d.reason}`).join('; ')}; nothing was applied or consumed`,
        {
          hint: 'release the output, or change the review policy if the rule is wrong',
          action: nextAction('settle', { outputId: out.id, decision: 'release' }),
        },
      );
    return decisions;
  }
  const target: SettleTarget = { output: out.id, decision, undo: undo.id };
  const leased = () =>
    store.atomically(() => {
      const lease = store.leaseWorkspace({
        workspaceId: parent.ws.id,
        op: 'settle',
        provider: parent.ws.provider,
        owner: currentOwner(),
        createdAt: ctx.clock.now(),
        target: JSON.stringify(target),
        traceId: ctx.traceId,
      });
      if (!parent.records.beginSettle(out.id, decision)) refuseSettled(ctx, parent.records.getOutput(out.id)!);
      store.settleIntent(check, `leased: settle intent #${lease}`, ctx.clock.now());
      return lease;
    });
  let intent: number;
  try {
    intent = leased();
  } catch (error) {
    await dropUndo(error);
    throw error;
  }
  crashPoint('settle', 'after-intent');
  // Between the undo checkpoint and the lease a job may have changed the parent: the checks held only if nothing
  // moved. Nothing is carried yet, so the parent is left as that job made it (a restore to undo would lose its work).
  let changedMeanwhile: boolean;
  try {
    changedMeanwhile = (await parent.ops.changes(parent.ws.id, undo.id, 1)).changes.length > 0;
  } catch (error) {
    await rollBack(ctx, parent, out.id, undo.id);
    store.settleIntent(intent, `rolled back: ${(error as EngineError).code ?? 'error'}`, ctx.clock.now());
    throw error;
  }
  if (changedMeanwhile) {
    store.atomically(() => {
      parent.records.abortSettle(out.id);
      parent.records.deleteCheckpoint(undo.id);
      store.settleIntent(intent, 'rolled back: WORKSPACE_BUSY', ctx.clock.now());
    });
    await parent.ops.drop(parent.ws.id, undo.id).catch(() => undefined);
    throw new EngineError('WORKSPACE_BUSY', `workspace ${parent.ws.id} changed while output ${out.id} was being settled; nothing was applied or consumed`, {
      hint: 'settle it again: its checks run on the parent as it is now',
      action: nextAction('settle', { outputId: out.id, decision }),
    });
  }
  let steps: number;
  try {
    steps = await carryChanges(parent.provider, parent.ops, out, parent.ws.policy.budget.storageBytes);
    crashPoint('settle', 'after-provider-call');
  } catch (error) {
    await rollBack(ctx, parent, out.id, undo.id);
    store.settleIntent(intent, `rolled back: ${(error as EngineError).code ?? 'error'}`, ctx.clock.now());
    throw error;
  }
  store.atomically(() => {
    parent.records.finishSettle(out.id, ctx.clock.now());
    store.settleIntent(intent, `settled: ${decision}`, ctx.clock.now());
    parent.records.deleteCheckpoint(undo.id);
  });
  await parent.ops.drop(parent.ws.id, undo.id).catch(() => undefined);
  const skipped = skippedDirectories(out.changes);
  return buildResult({
    outcome_summary: `output ${out.id} is settled by ${decision}: ${steps} change(s) of ${out.childId} are now in ${parent.ws.id}`,
    status: 'success',
    key_findings: [
      settledFinding(out, decision),
      `decision: ${decision}`,
      `proposal digest: ${out.proposalDigest}`,
      ...reviewFindings(decisions),
      `changes carried: ${steps}`,
    ],
    warnings: [
      ...(skipped.length ? [`directory entries carry nothing themselves (a file write makes its directories): ${skipped.map((c) => c.path).join(', ')}`] : []),
      ...setIdBitsDropped(out.changes).map(
        (c) =>
          `${c.path} lands with mode ${(c.mode! & 0o777).toString(8).padStart(4, '0')}: its set-id and sticky bits (${(c.mode! & 0o7777).toString(8)}) are not carried`,
      ),
    ],
    provenance: provenanceFor(ctx, 'settle', { workspace: parent.ws, startedAt, finishedAt: ctx.clock.now() }),
    attention,
  });
}

/** Puts the parent back as it was before the settle began and leaves the output unconsumed. */
export async function rollBack(ctx: EngineContext, parent: SnapshotTarget, outputId: string, undoId: string): Promise<void> {
  await parent.ops.restore(parent.ws.id, undoId);
  ctx.store().atomically(() => {
    parent.records.abortSettle(outputId);
    parent.records.deleteCheckpoint(undoId);
  });
  await parent.ops.drop(parent.ws.id, undoId).catch(() => undefined);
}

/** release and discard: the parent is never touched, so no reviewer runs. */
async function letGo(ctx: EngineContext, out: OutputRecord, decision: 'release' | 'discard'): Promise<ResultPackage> {
  const store = ctx.store();
  const child = store.getWorkspace(out.childId);
  if (decision === 'discard' && child && child.state !== 'destroyed') {
    store.refuseIfRunning(child.id);
    refuseDiscardingArtifacts(store.listArtifacts(child.id), out);
  }
  const startedAt = ctx.clock.now();
  const target: SettleTarget = { output: out.id, decision };
  const records = snapshotRecords(ctx);
  const intent = store.atomically(() => {
    if (!records.beginSettle(out.id, decision)) refuseSettled(ctx, records.getOutput(out.id)!);
    return store.openIntent({
      workspaceId: out.childId,
      jobId: null,
      op: `settle-${decision}`,
      provider: child?.provider ?? 'unknown',
      owner: currentOwner(),
      createdAt: startedAt,
      target: JSON.stringify(target),
      traceId: ctx.traceId,
    });
  });
  crashPoint('settle', 'after-intent');
  let destroyed = false;
  try {
    if (decision === 'discard') destroyed = await finishDiscard(ctx, out.childId);
  } catch (error) {
    // A destroy refused before it changed anything (the fork busy with a checkpoint, a fork or a job begun since the
    // check above) leaves the output as it was: consumed with the fork still there, it was wedged until doctor's
    // repair destroyed the fork (red team, session 11). A destroy that failed part-way stays interrupted for doctor.
    if ((error as EngineError).code === 'WORKSPACE_BUSY')
      store.atomically(() => {
        records.abortSettle(out.id);
        store.settleIntent(intent, 'rolled back: WORKSPACE_BUSY', ctx.clock.now());
      });
    throw error;
  }
  store.atomically(() => {
    records.finishSettle(out.id, ctx.clock.now());
    store.settleIntent(intent, `settled: ${decision}`, ctx.clock.now());
  });
  return buildResult({
    outcome_summary:
      decision === 'discard'
        ? `output ${out.id} is discarded and workspace ${out.childId} ${destroyed ? 'destroyed' : 'was already gone'}; ${out.parentId} was not touched`
        : `output ${out.id} is released; ${out.parentId} was not touched and ${out.childId} stays as it is`,
    status: 'success',
    key_findings: [
      settledFinding(out, decision),
      `decision: ${decision}`,
      `proposal digest: ${out.proposalDigest}`,
      `${out.changes.length} change(s) not taken into ${out.parentId}`,
    ],
    provenance: provenanceFor(ctx, 'settle', { workspace: child, startedAt, finishedAt: ctx.clock.now() }),
  });
}

/**
 * A discard destroys the fork: one holding declared artifacts never exported is refused as destroy refuses it
 * (exit 1, WOULD_DISCARD, nothing changed), naming them. A discard took them silently, its result naming none
 * (a new user's report, session 12). `destroy --force` of the fork is the deliberate way: it names each one it
 * discards, and releases the output.
 */
function refuseDiscardingArtifacts(artifacts: ReadonlyArray<{ name: string; exportedTo: string | null }>, out: OutputRecord): void {
  const unexported = artifacts.filter((a) => a.exportedTo === null);
  if (unexported.length === 0) return;
  throw new EngineError(
    'WOULD_DISCARD',
    `fork ${out.childId} has declared artifacts that were never exported: ${unexported.map((a) => quotedName(a.name)).join(', ')}; discarding output ${out.id} would destroy them with the fork; nothing was settled`,
    {
      hint: `export them first; or release the output and keep the fork; or destroy ${out.childId} with force, which discards them by name and releases the output`,
      action: nextAction('settle', { outputId: out.id, decision: 'release' }),
    },
  );
}

/** Destroys a discarded output's child (a live discard refused first if it held unexported artifacts; doctor's repair finishes one begun); true when it was live. */
export async function finishDiscard(ctx: EngineContext, childId: string): Promise<boolean> {
  const child = ctx.store().getWorkspace(childId);
  if (!child || child.state === 'destroyed') return false;
  await destroyWorkspace(ctx, { workspaceId: childId, force: true });
  return true;
}

const settledFinding = (out: OutputRecord, decision: SettleDecision) =>
  outputFinding(`output: ${out.id} (fork ${out.childId} of ${out.parentId})`, { ...out, state: 'settled', decision });

function reviewFindings(decisions: ReviewDecision[]): KeyFinding[] {
  return decisions.map((d) => `reviewer ${d.reviewer}: ${d.verdict} — ${d.reason}`);
}
