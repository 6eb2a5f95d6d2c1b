import type { EngineContext } from '../context.js';
import { crashPoint } from '../crash-points.js';
import { EngineError } from '../errors.js';
import { inputRef } from '../verb-table/command-words.js';
import { validateId } from '../ids.js';
import { jobUserOfSlot } from '../job-identity.js';
import { workspaceExists } from '../lifecycle/workspace-exists.js';
import { nextAction } from '../next-action.js';
import { BUDGET_FIELDS, validateBudget } from '../policy/budget-fields.js';
import type { Budget, Policy } from '../policy/policy.js';
import { reconcile } from '../reconcile.js';
import { buildResult } from '../result/build-result.js';
import { attentionItem, type ResultPackage } from '../result/result-package.js';
import { provenanceFor } from '../result/package-parts.js';
import { requireSnapshots, requireUsableCheckpoint } from '../snapshots/snapshot-guards.js';
import { takeCheckpoint } from '../snapshots/take-checkpoint.js';
import { requireUnexpired } from './workspace-guards.js';
import { forkBaselineFinding } from '../snapshots/snapshot-findings.js';
import { currentOwner } from '../store/owner.js';
import { runningJobsSubject } from '../store/sqlite-store.js';

export interface ForkInput {
  workspaceId: string;
  /** How many children (default 1, or as many as workspaceIds names). */
  count?: number;
  /** Choose the children's ids. */
  workspaceIds?: string[];
  /** Fork from this checkpoint (the only way while a job runs in the parent). */
  at?: string;
  /** Narrow the children's budgets: each field at most the parent's. */
  budget?: Partial<Budget>;
  /**
   * Aborting it (the CLI's Ctrl-C, a served call's relayed signal, an MCP cancel) stops between children: the ones
   * made stay whole and ready, the rest are never started, and the result reads cancelled. Without it, Ctrl-C killed an
   * in-process fork mid-child (an intent for doctor), and through `serve` every child was still made.
   */
  signal?: AbortSignal;
}

export const MAX_FORKS = 16;

/** The parent's policy with a narrower budget; a field past the parent's is refused (a fork never widens). */
export function narrowedPolicy(parent: Policy, budget: Partial<Budget>): Policy {
  validateBudget(budget, 'fork');
  const wider = BUDGET_FIELDS.filter((f) => budget[f.key] !== undefined && budget[f.key]! > parent.budget[f.key]);
  if (wider.length > 0)
    throw new EngineError(
      'POLICY_DENIED',
      `a fork may narrow a budget, never widen one: ${wider.map((f) => `${inputRef(`budget.${f.key}`, budget[f.key]!)} > the parent's ${parent.budget[f.key]}`).join('; ')}`,
      { hint: 'ask for at most the parent’s budget, or create a new workspace with the larger one', inputsOf: 'fork' },
    );
  const given = Object.fromEntries(Object.entries(budget).filter(([, v]) => v !== undefined)) as Partial<Budget>;
  return { ...parent, hostPaths: [...parent.hostPaths], budget: { ...parent.budget, ...given } };
}

function childIds(ctx: EngineContext, input: ForkInput): string[] {
  const named = input.workspaceIds ?? [];
  const count = input.count ?? Math.max(1, named.length);
  if (!Number.isInteger(count) || count < 1 || count > MAX_FORKS)
    throw new EngineError('BAD_ARGUMENT', `${inputRef('count')} takes a whole number from 1 to ${MAX_FORKS}`, {
      hint: `for example ${inputRef('count', 2)}`,
      inputsOf: 'fork',
    });
  if (named.length > count)
    throw new EngineError('BAD_ARGUMENT', `${named.length} workspace ids were named for ${count} fork(s)`, {
      hint: `name at most ${inputRef('count')} ids`,
      inputsOf: 'fork',
    });
  const ids = named.map((id) => validateId('workspace', id));
  if (new Set(ids).size !== ids.length) throw new EngineError('BAD_ARGUMENT', 'a workspace id was named twice', { hint: 'name each child once' });
  while (ids.length < count) ids.push(ctx.ids('ws'));
  return ids;
}

/**
 * Makes N workspaces whose files are exactly the parent's at one instant,
 * each with the parent's policy (narrowed, never widened), its own job
 * identity, a recorded fork baseline and a link to the parent. Each child is
 * recorded like a create (requested → provisioning, a `create` intent)
 * before the provider makes it, so a crash leaves what doctor already knows
 * how to settle and never a workspace the store does not list.
 */
export async function forkWorkspace(ctx: EngineContext, input: ForkInput): Promise<ResultPackage> {
  const target = await requireSnapshots(ctx, input.workspaceId, 'fork');
  // Refused as run refuses it, before anything is made: a child inherits the parent's expiry, so a fork of an
  // expired workspace was created (and said ready) already expired, refusing its first run.
  const parent = requireUnexpired(ctx, target.ws, 'nothing was forked (a fork inherits its expiry)');
  const policy = narrowedPolicy(parent.policy, input.budget ?? {});
  const ids = childIds(ctx, input);
  const store = ctx.store();
  for (const id of ids) {
    const existing = store.getWorkspace(id);
    if (existing && existing.state !== 'destroyed') throw workspaceExists(id, existing.state);
  }
  const running = store.runningJobsOf(parent.id);
  if (input.at === undefined && (parent.state === 'running' || running.length > 0))
    throw new EngineError(
      'WORKSPACE_BUSY',
      `workspace ${parent.id} is busy: ${runningJobsSubject(running.map((j) => j.id))} running, so its files are moving; nothing was forked`,
      { hint: 'fork from a checkpoint taken before, or wait for the job', action: nextAction('fork', { workspaceId: parent.id }, ['at']) },
    );
  const attention = await reconcile(ctx, { workspaceId: parent.id });
  const startedAt = ctx.clock.now();
  const source = input.at !== undefined ? await requireUsableCheckpoint(target, input.at) : await takeCheckpoint(ctx, target, 'fork-source', null);
  const reviewPolicy = target.records.reviewPolicy(parent.id);
  const made: string[] = [];
  for (const childId of ids) {
    // One turn of the event loop first: a provider whose fork is synchronous work (the fake's) would otherwise hold
    // the loop from the first child to the last, and a Ctrl-C or a relayed signal would land only after all of them.
    if (input.signal !== undefined) await new Promise((resolve) => setImmediate(resolve));
    if (input.signal?.aborted === true) break;
    const baseId = ctx.ids('cp');
    const now = ctx.clock.now();
    const { intent, jobSlot } = store.atomically(() => {
      // A destroy of the parent under way (or done) since the checks above would reclaim what the child is built on.
      store.refuseForkOfRemoved(parent.id);
      const recorded = store.insertWorkspace({
        id: childId,
        provider: parent.provider,
        state: 'requested',
        profile: parent.profile,
        policy,
        environmentDigest: null,
        purpose: `fork of ${parent.id}`,
        owner: parent.owner,
        createdAt: now,
        updatedAt: now,
        expiresAt: parent.expiresAt,
        lifecyclePath: ['requested'],
      });
      store.moveWorkspace(childId, 'provisioning', now);
      target.records.setReviewPolicy(childId, reviewPolicy);
      target.records.addCheckpoint({ id: baseId, workspaceId: childId, kind: 'fork-base', label: `fork of ${parent.id} at ${source.id}`, createdAt: now });
      target.records.addFork({
        childId,
        parentId: parent.id,
        parentCheckpointId: source.id,
        parentDigest: source.digest,
        childBaseId: baseId,
        createdAt: now,
      });
      return {
        intent: store.openIntent({
          workspaceId: childId,
          jobId: null,
          op: 'create',
          provider: parent.provider,
          owner: currentOwner(),
          createdAt: now,
          target: `fork of ${parent.id}`,
          traceId: ctx.traceId,
        }),
        jobSlot: recorded.jobSlot,
      };
    });
    crashPoint('fork', 'after-intent');
    let descriptor;
    try {
      descriptor = await target.ops.fork(
        parent.id,
        source.id,
        { workspaceId: childId, policy, profile: parent.profile, jobUser: jobUserOfSlot(jobSlot) },
        baseId,
      );
      crashPoint('fork', 'after-provider-call');
    } catch (error) {
      store.atomically(() => {
        target.records.markCheckpoint(baseId, 'invalid');
        store.settleIntent(intent, 'failed', ctx.clock.now());
        store.moveWorkspace(childId, 'failed', ctx.clock.now());
      });
      throw error;
    }
    store.atomically(() => {
      target.records.finishCheckpoint(baseId, { fileCount: source.fileCount ?? 0, bytes: source.bytes ?? 0, digest: source.digest });
      store.settleIntent(intent, 'created', ctx.clock.now());
      store.moveWorkspace(childId, 'ready', ctx.clock.now(), { environmentDigest: descriptor.environmentDigest });
    });
    ctx.events.emit({ type: 'workspace.created', workspaceId: childId, provider: parent.provider });
    made.push(childId);
  }
  for (const childId of made)
    attention.push(
      attentionItem('next-step', `when ${childId} is done, freeze its changes`, {
        workspace_id: childId,
        action: nextAction('seal', { workspaceId: childId }),
      }),
    );
  const cancelled = made.length < ids.length;
  if (cancelled)
    attention.push(
      attentionItem(
        'note',
        `interrupted: ${ids.length - made.length} of ${ids.length} forks were not made (${ids.slice(made.length).join(', ')}); fork again for more`,
      ),
    );
  return buildResult({
    outcome_summary: cancelled
      ? made.length === 0
        ? `interrupted before any fork of ${parent.id} was made; nothing was forked`
        : `interrupted: workspace ${parent.id} forked into ${made.join(', ')} only (${made.length} of ${ids.length}), each holding exactly its files at checkpoint ${source.id}`
      : `workspace ${parent.id} forked into ${made.join(', ')}, each holding exactly its files at checkpoint ${source.id}`,
    status: cancelled ? 'cancelled' : 'success',
    key_findings: [
      ...made.map((id) => ({ kind: 'workspace', text: `fork ${id}: ready`, id, state: 'ready' })),
      forkBaselineFinding(`fork baseline: checkpoint ${source.id} of ${parent.id}, digest ${source.digest}`, {
        parentId: parent.id,
        parentCheckpointId: source.id,
        parentDigest: source.digest,
      }),
      `files: ${source.fileCount ?? 0}, bytes: ${source.bytes ?? 0}`,
    ],
    provenance: provenanceFor(ctx, 'fork', { workspace: parent, startedAt, finishedAt: ctx.clock.now() }),
    attention,
  });
}
