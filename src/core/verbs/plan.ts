/**
 * `plan [FILE]` (#17): what prepare would do for a manifest — the workspace
 * it creates under which policy, each copy with its size and digest, the
 * artifacts it declares, the setup commands it runs — and whether it is
 * ready (each readiness check with its outcome), changing nothing. With a
 * receipt from an earlier prepare it also says whether prepare would do
 * nothing or refuse, naming what changed. This is also the manifest's
 * doctor: a read-only readiness report (`ready: true|false`, each check).
 */
import { resolve } from 'node:path';
import type { EngineContext } from '../context.js';
import { nextAction } from '../next-action.js';
import type { ManifestPlan, PlanStep, PlannedClone } from '../manifest/plan-manifest.js';
import type { Receipt } from '../manifest/receipt.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import type { KeyFinding, ResultPackage } from '../result/result-package.js';
import type { WorkspaceRecord } from '../store/sqlite-store.js';

export interface PlanInput {
  /** The manifest; default headspace.yml (a relative path is resolved against the process's directory: faces pass it absolute). */
  file?: string;
  /** The caller's environment: only the names the manifest's env declares are taken from it, and their values are never recorded. */
  env?: Record<string, string>;
}

/** What a prepare with this manifest would find: a fresh workspace, one prepared and unchanged, one changed, or one it did not prepare. */
export type PrepareState =
  | { kind: 'fresh' }
  | { kind: 'unchanged'; receipt: Receipt }
  | { kind: 'changed'; receipt: Receipt; changes: string[] }
  /** Only repositories moved, each a fast-forward: prepare updates their clones in place (refusing one a job left dirty). */
  | { kind: 'fast-forward'; receipt: Receipt; moves: RepositoryMove[] }
  | { kind: 'unreceipted'; workspace: WorkspaceRecord }
  /** Nothing but the verify section changed, or its recorded verdict did not pass: prepare judges the checks again after a no-op job, recreating nothing. */
  | { kind: 'reverify'; receipt: Receipt; why: string };

/** A repository whose ref now names a descendant of the commit the workspace's clone was made at. */
export interface RepositoryMove {
  clone: PlannedClone;
  from: string;
}

/** Loads the manifest, works out the plan and what an earlier prepare left; changes nothing. */
export async function gatherPlan(
  ctx: EngineContext,
  input: PlanInput,
): Promise<{ plan: ManifestPlan; steps: PlanStep[]; state: PrepareState; now: Omit<Receipt, 'schema' | 'setup_jobs' | 'prepared_at' | 'env_names'> }> {
  const { loadManifest } = await import('../manifest/read-manifest.js');
  const { MANIFEST_FILE_NAME } = await import('../manifest/manifest-schema.js');
  const { planManifest, planSteps } = await import('../manifest/plan-manifest.js');
  const { readReceipt, receiptChanges } = await import('../manifest/receipt.js');
  const loaded = await loadManifest(resolve(input.file ?? MANIFEST_FILE_NAME));
  const plan = await planManifest(ctx, loaded, input.env ?? {});
  const steps = planSteps(plan);
  const now = {
    workspace_id: plan.workspaceId,
    manifest_file: loaded.file,
    manifest_dir: loaded.dir,
    manifest_sha256: loaded.digest,
    manifest_base_sha256: loaded.baseDigest,
    inputs: plan.copies.map((c) => ({ input: c.key, from: c.path, to: c.to, sha256: c.sha256, size_bytes: c.sizeBytes })),
    repositories: plan.clones.map((c) => ({ input: c.key, source: c.shown, ref: c.ref, commit: c.commit, to: c.to })),
  };
  const ws = ctx.store().getWorkspace(plan.workspaceId);
  const live = ws !== undefined && ws.state !== 'destroyed' ? ws : undefined;
  const receipt = live ? readReceipt(ctx.home, plan.workspaceId) : null;
  let state: PrepareState = { kind: 'fresh' };
  if (live && receipt === null) state = { kind: 'unreceipted', workspace: live };
  else if (live && receipt !== null) {
    const { isFastForward } = await import('../manifest/git-input.js');
    // Whether each moved repository moved forward is asked of git (a remote is cloned to tell) before the receipt is compared.
    const moves: RepositoryMove[] = [];
    for (const clone of plan.clones) {
      const before = (receipt.repositories ?? []).find((r) => r.to === clone.to);
      if (before !== undefined && before.commit !== clone.commit && (await isFastForward(clone, before.commit, clone.commit)))
        moves.push({ clone, from: before.commit });
    }
    const changes = receiptChanges(receipt, now, (repo) => moves.some((m) => m.clone.key === repo.input));
    // Each moved repository is one change: when every change is a fast-forward, nothing else differs.
    const why = changes.length === 0 ? reverifyReason(receipt, loaded) : null;
    // Output checks judge the last setup command's output: only a new prepare (recreate) makes that again.
    if (why !== null && loaded.verification.expectOutput.length > 0)
      changes.push(`${why}, and its output checks judge the last setup command's output, which only a new prepare produces`);
    state =
      why !== null && changes.length === 0
        ? { kind: 'reverify', receipt, why }
        : changes.length === 0
          ? { kind: 'unchanged', receipt }
          : moves.length === changes.length
            ? { kind: 'fast-forward', receipt, moves }
            : { kind: 'changed', receipt, changes };
  }
  return { plan, steps, state, now };
}

export async function planWorkspace(ctx: EngineContext, input: PlanInput = {}): Promise<ResultPackage> {
  const startedAt = ctx.clock.now();
  const { plan, steps, state } = await gatherPlan(ctx, input);
  const { stepText } = await import('../manifest/plan-manifest.js');
  const failed = plan.checks.filter((c) => !c.ok);
  const file = plan.loaded.file;
  const findings: KeyFinding[] = [
    {
      kind: 'readiness',
      text: `ready: ${plan.ready}${plan.ready ? '' : ` (${failed.length} check(s) failed)`}`,
      ready: plan.ready,
      manifest: file,
      manifest_sha256: plan.loaded.digest,
    },
    ...plan.checks.map((c): KeyFinding => ({ kind: 'check', text: `${c.ok ? 'ok' : 'FAILED'} ${c.name}: ${c.detail}`, name: c.name, ok: c.ok })),
    ...steps.map((s): KeyFinding => ({ kind: 'step', text: stepText(s), ...s })),
  ];
  const prepareWould = describeState(state, plan.workspaceId);
  findings.push({ kind: 'prepare', text: prepareWould, state: state.kind });
  const attention =
    plan.ready && state.kind === 'fresh'
      ? [{ kind: 'next-step' as const, text: 'prepare the workspace', action: nextAction('prepare', { file }) }]
      : state.kind === 'fast-forward' || state.kind === 'reverify'
        ? [
            {
              kind: 'next-step' as const,
              text: state.kind === 'reverify' ? 'judge the checks again' : 'fast-forward the clones in place',
              action: nextAction('prepare', { file }),
            },
          ]
        : state.kind === 'changed' || state.kind === 'unreceipted'
          ? [{ kind: 'next-step' as const, text: 'replace the workspace (it is destroyed first)', action: nextAction('prepare', { file, recreate: true }) }]
          : [];
  return buildResult({
    outcome_summary: `plan for workspace ${plan.workspaceId}: ${steps.length} step(s); ${plan.ready ? 'ready' : `not ready, ${failed.length} check(s) failed`}; ${prepareWould}`,
    status: 'success',
    key_findings: findings,
    warnings: failed.map((c) => `${c.name}: ${c.detail}`),
    provenance: provenanceFor(ctx, 'plan', { startedAt, finishedAt: ctx.clock.now() }),
    attention,
  });
}

/** Why a prepared workspace's checks are to be judged again, or null: the verify section changed, or the verdict recorded did not pass. */
function reverifyReason(receipt: Receipt, loaded: { verifyDigest: string; checks: readonly unknown[] }): string | null {
  if (receipt.manifest_base_sha256 !== undefined && receipt.verify_sha256 !== loaded.verifyDigest) return 'the verify section changed';
  const outcome = receipt.verification?.outcome;
  if (loaded.checks.length > 0 && outcome !== undefined && outcome !== 'passed' && outcome !== 'none')
    return `the verification recorded at ${receipt.verified_at ?? receipt.prepared_at} did not pass (${outcome})`;
  return null;
}

/** Why prepare refuses a workspace that exists (without recreate). */
export function whyRefused(state: Extract<PrepareState, { kind: 'changed' | 'unreceipted' }>, workspaceId: string): string {
  return state.kind === 'changed'
    ? `workspace ${workspaceId} was prepared before, and since then ${state.changes.join('; ')}`
    : `workspace ${workspaceId} exists (${state.workspace.state}) but was not prepared from a manifest, or its prepare did not finish`;
}

export function describeState(state: PrepareState, workspaceId: string): string {
  switch (state.kind) {
    case 'fresh':
      return `prepare would create workspace ${workspaceId}`;
    case 'unchanged':
      return `workspace ${workspaceId} is prepared and nothing changed (manifest ${state.receipt.manifest_sha256}): prepare would do nothing`;
    case 'reverify':
      return `workspace ${workspaceId} is prepared and ${state.why}: prepare would judge the verify section's checks again after a no-op job, recreating nothing`;
    case 'fast-forward':
      return `prepare would fast-forward in place ${state.moves.map((m) => `${m.clone.key} (${m.clone.to}/) ${m.from} → ${m.clone.commit}`).join(', ')}, unless a job changed a tracked file there (setup is not run again)`;
    case 'changed':
    case 'unreceipted':
      return `prepare would refuse: ${whyRefused(state, workspaceId)}`;
  }
}
