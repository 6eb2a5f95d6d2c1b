/**
 * `prepare [FILE]` (#17): the only verb that materialises a manifest. It
 * refuses before anything happens when the manifest is bad or a readiness
 * check fails (the check's own refusal: an input that is not there, a
 * policy the provider cannot enforce, …); then creates the workspace, copies
 * each input in, declares the artifacts, runs the setup commands in order,
 * judges the verify section as the last setup job's checks (a no-op job's
 * when there is no setup), and records a receipt (manifest digest, input
 * digests, setup jobs, the verdict). A failed check is prepare's failure
 * (exit 6), a verifier fault its inconclusive (exit 9); setup is done either
 * way, so the receipt is written and the next prepare judges the checks
 * again (after a no-op job, recreating nothing), as it does when only the
 * verify section changed.
 * Idempotent: with a receipt and nothing changed it does nothing and says
 * so, by digest; when the manifest or an input changed since, it refuses
 * naming what changed, unless `recreate` (the workspace is destroyed, its
 * unexported artifacts discarded, and prepared again).
 */
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { nextAction } from '../next-action.js';
import type { PlanStep } from '../manifest/plan-manifest.js';
import { artifactEntries } from '../result/artifact-view.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import type { KeyFinding, ResultPackage } from '../result/result-package.js';
import { createWorkspace } from './create.js';
import { recordDeclarations } from './declare.js';
import { destroyWorkspace } from './destroy.js';
import { gatherPlan, whyRefused, type PlanInput, type PrepareState } from './plan.js';
import type { ManifestPlan } from '../manifest/plan-manifest.js';
import type { LoadedManifest } from '../manifest/read-manifest.js';
import type { Receipt } from '../manifest/receipt.js';
import type { VerificationBlock } from '../verification/verification.js';
import { verificationFinding, verificationRecord } from '../verification/verification-view.js';

type ReceiptNow = Awaited<ReturnType<typeof gatherPlan>>['now'];
import { putFiles } from './put.js';
import { runJob } from './run.js';

export interface PrepareInput extends PlanInput {
  /** Replace a workspace whose manifest or inputs changed since it was prepared (or that no prepare finished): destroy it, discarding unexported artifacts, and prepare again. */
  recreate?: boolean;
}

export async function prepareWorkspace(ctx: EngineContext, input: PrepareInput = {}): Promise<ResultPackage> {
  const startedAt = ctx.clock.now();
  const { plan, steps, state, now } = await gatherPlan(ctx, input);
  const { stepText } = await import('../manifest/plan-manifest.js');
  const { removeReceipt, writeReceipt, RECEIPT_SCHEMA } = await import('../manifest/receipt.js');
  const id = plan.workspaceId;
  const file = plan.loaded.file;

  if (state.kind === 'unchanged') {
    const ws = ctx.store().getWorkspace(id);
    return buildResult({
      outcome_summary: `workspace ${id} is already prepared from ${file} and nothing changed: nothing was done`,
      status: 'success',
      key_findings: [
        { kind: 'prepare', text: `manifest ${plan.loaded.digest} unchanged since ${state.receipt.prepared_at}`, state: 'unchanged' },
        ...(state.receipt.verification === undefined
          ? []
          : [
              `verification recorded at ${state.receipt.verified_at ?? state.receipt.prepared_at}: ${state.receipt.verification.outcome} (not judged again: nothing changed)`,
            ]),
        ...state.receipt.inputs.map((i): KeyFinding => ({ kind: 'input', text: `${i.input} ${i.from} → ${i.to}: ${i.sha256} unchanged`, ...i })),
      ],
      provenance: provenanceFor(ctx, 'prepare', { workspace: ws, startedAt, finishedAt: ctx.clock.now() }),
    });
  }
  if ((state.kind === 'changed' || state.kind === 'unreceipted') && input.recreate !== true) {
    throw new EngineError('MANIFEST_CHANGED', `prepare refused: ${whyRefused(state, id)}; nothing was done`, {
      hint: 'prepare again with recreate to destroy the workspace (discarding unexported artifacts) and prepare it anew',
      action: nextAction('prepare', { file, recreate: true }),
    });
  }
  const failed = plan.checks.filter((c) => !c.ok);
  if (failed.length > 0) {
    const first = failed[0]!;
    const others =
      failed.length > 1
        ? ` (and ${failed.length - 1} other check(s) failed: ${failed
            .slice(1)
            .map((c) => c.name)
            .join(', ')})`
        : '';
    throw new EngineError(
      first.error?.code ?? 'BAD_ARGUMENT',
      `prepare refused, nothing was done: ${first.error?.message ?? `${first.name}: ${first.detail}`}${others}`,
      {
        hint: first.error?.hint ?? 'see plan for each readiness check',
        ...(first.error?.action ? { action: first.error.action } : {}),
      },
    );
  }

  if (state.kind === 'reverify' && input.recreate !== true) return reverify(ctx, { plan, state, now, startedAt });

  if (state.kind === 'fast-forward' && input.recreate !== true) {
    const { fastForwardClones } = await import('./fast-forward-clones.js');
    const lines = await fastForwardClones(ctx, id, file, state.moves);
    writeReceipt(ctx.home, { ...state.receipt, ...now, prepared_at: new Date(ctx.clock.now()).toISOString() });
    const ws = ctx.store().getWorkspace(id);
    return buildResult({
      outcome_summary: `workspace ${id} is prepared from ${file}: ${lines.length} repository clone(s) fast-forwarded in place; setup was not run again`,
      status: 'success',
      key_findings: lines.map((text, i): KeyFinding => ({
        kind: 'fast-forward',
        text,
        input: state.moves[i]!.clone.key,
        from: state.moves[i]!.from,
        commit: state.moves[i]!.clone.commit,
      })),
      artifacts: artifactEntries(ctx.store(), id),
      provenance: provenanceFor(ctx, 'prepare', { workspace: ws, startedAt, finishedAt: ctx.clock.now() }),
    });
  }

  const warnings: string[] = [];
  if (state.kind === 'changed' || state.kind === 'unreceipted' || state.kind === 'fast-forward' || state.kind === 'reverify') {
    await destroyWorkspace(ctx, { workspaceId: id, force: true });
    removeReceipt(ctx.home, id);
    warnings.push(`workspace ${id} was destroyed and prepared anew (recreate); unexported artifacts were discarded`);
  }

  const done: PlanStep[] = [];
  const created = await createWorkspace(ctx, {
    workspaceId: id,
    provider: plan.provider,
    profile: plan.profile,
    budget: plan.policy.budget,
    ...(plan.loaded.manifest.purpose === undefined ? {} : { purpose: plan.loaded.manifest.purpose }),
    ...(plan.loaded.manifest.owner === undefined ? {} : { owner: plan.loaded.manifest.owner }),
    ...(plan.ttlSeconds === undefined ? {} : { ttlSeconds: plan.ttlSeconds }),
  });
  warnings.push(...created.warnings);
  done.push(steps[0]!);
  const inputs: ResultPackage['provenance']['inputs'] = [];
  for (const copy of plan.copies) {
    const put = await putFiles(ctx, { workspaceId: id, hostPath: copy.hostPath, destination: copy.to, withoutGitMetadata: true });
    for (const item of put.attention) if (item.kind === 'left-out') warnings.push(`${copy.key}: ${item.text}`);
    const recorded = put.provenance.inputs[0]!;
    inputs.push(recorded);
    const step = steps.find((s) => s.step === 'copy' && s.input === copy.key)!;
    if (recorded.sha256 !== copy.sha256) {
      throw new EngineError(
        'DIGEST_MISMATCH',
        `${copy.key} (${copy.path}) changed while prepare copied it (${copy.sha256} planned, ${recorded.sha256} copied); no receipt was written`,
        {
          hint: 'let the input settle, then prepare again with recreate',
          action: nextAction('prepare', { file, recreate: true }),
        },
      );
    }
    done.push(step);
  }
  for (const clone of plan.clones) {
    const { independentClone } = await import('../manifest/git-input.js');
    const made = await independentClone(clone, clone.commit, { maxCheckoutBytes: plan.policy.budget.storageBytes });
    try {
      const put = await putFiles(ctx, { workspaceId: id, hostPath: made.dir, destination: clone.to });
      inputs.push(put.provenance.inputs[0]!);
    } finally {
      made.remove();
    }
    done.push(steps.find((s) => s.step === 'clone' && s.input === clone.key)!);
  }
  recordDeclarations(ctx, ctx.store(), id, plan.loaded.artifacts, null);
  done.push(...steps.filter((s) => s.step === 'declare'));

  // The verify section (#16) is the verification contract of the last setup command's job, or of a no-op job when there is none.
  const checks = plan.loaded.checks;
  const setupSteps = steps.filter((s): s is Extract<PlanStep, { step: 'setup' }> => s.step === 'setup');
  const jobs: string[] = [];
  let judged: Judged | null = null;
  for (const [i, step] of setupSteps.entries()) {
    const last = i === setupSteps.length - 1 && checks.length > 0;
    const result = await runJob(ctx, { workspaceId: id, argv: step.argv, env: plan.env, ...(last ? plan.loaded.verification : {}) });
    if (result.provenance.job_id) jobs.push(result.provenance.job_id);
    const block = last ? verificationOf(result) : null;
    if (result.status !== 'success' && !decidedByChecks(block)) return stopped(`setup[${step.index}]`, result);
    done.push(step);
    if (last) judged = { result, block: block!, jobId: result.provenance.job_id ?? '' };
  }
  if (checks.length > 0 && setupSteps.length === 0) {
    const { NO_OP_ARGV } = await import('../manifest/plan-manifest.js');
    const result = await runJob(ctx, { workspaceId: id, argv: NO_OP_ARGV, env: plan.env, ...plan.loaded.verification });
    const block = verificationOf(result);
    if (result.status !== 'success' && !decidedByChecks(block)) return stopped('the verify section’s no-op job', result);
    judged = { result, block: block!, jobId: result.provenance.job_id ?? '' };
  }
  if (judged !== null) done.push(...steps.filter((s) => s.step === 'verify'));

  writeReceipt(ctx.home, {
    schema: RECEIPT_SCHEMA,
    ...now,
    env_names: Object.keys(plan.env).sort(),
    setup_jobs: jobs,
    prepared_at: new Date(ctx.clock.now()).toISOString(),
    ...verifyFields(ctx, plan.loaded, judged),
  });
  const ws = ctx.store().getWorkspace(id);
  const provenance = provenanceFor(ctx, 'prepare', { workspace: ws, startedAt, finishedAt: ctx.clock.now() });
  provenance.inputs = inputs;
  if (judged !== null) provenance.verification = verificationRecord(judged.block);
  const verdict = judged === null ? null : verificationFinding(judged.block);
  const passed = judged === null || judged.result.status === 'success';
  return buildResult({
    outcome_summary: `workspace ${id} is prepared from ${file}: ${done.length} step(s) done, receipt recorded (manifest ${plan.loaded.digest})${
      judged === null ? '' : passed ? `; ${verdict}` : `, but ${verdict}`
    }`,
    status: judged?.result.status ?? 'success',
    key_findings: [...(verdict === null ? [] : [verdict]), ...done.map((s): KeyFinding => ({ kind: 'step', text: stepText(s), ...s }))],
    ...(passed ? {} : { evidence: judged!.result.evidence }),
    artifacts: artifactEntries(ctx.store(), id),
    warnings,
    provenance,
    ...(passed ? {} : { attention: [againAttention(file, plan.loaded.verification.expectOutput.length > 0)] }),
  });

  /** A setup job (or the no-op job) that did not succeed by its own exit ends prepare without a receipt. */
  function stopped(what: string, result: ResultPackage): ResultPackage {
    return buildResult({
      outcome_summary: `prepare of workspace ${id} stopped at ${what}: job ${result.provenance.job_id ?? '?'} ended ${result.status}; no receipt was written`,
      status: result.status,
      key_findings: [...done.map((s): KeyFinding => ({ kind: 'step', text: stepText(s), ...s })), ...result.key_findings],
      evidence: result.evidence,
      warnings: [...warnings, ...result.warnings],
      resource_usage: result.resource_usage,
      provenance: { ...result.provenance, verb: 'prepare', inputs },
      attention: [
        {
          kind: 'next-step',
          text: 'fix the setup command, then prepare again (the workspace is replaced)',
          action: nextAction('prepare', { file, recreate: true }),
        },
      ],
    });
  }
}

interface Judged {
  result: ResultPackage;
  block: VerificationBlock;
  jobId: string;
}

/**
 * Only the verify section changed, or its recorded verdict did not pass:
 * the checks are judged again after a no-op job in the prepared workspace,
 * nothing is recreated and setup is not run again, and the receipt records
 * the new verdict. (A section with output checks never comes here: those
 * judge the last setup command's output, so plan calls that a change.)
 */
async function reverify(
  ctx: EngineContext,
  { plan, state, now, startedAt }: { plan: ManifestPlan; state: Extract<PrepareState, { kind: 'reverify' }>; now: ReceiptNow; startedAt: number },
): Promise<ResultPackage> {
  const { writeReceipt } = await import('../manifest/receipt.js');
  const { NO_OP_ARGV } = await import('../manifest/plan-manifest.js');
  const id = plan.workspaceId;
  const file = plan.loaded.file;
  let judged: Judged | null = null;
  let result: ResultPackage | null = null;
  if (plan.loaded.checks.length > 0) {
    result = await runJob(ctx, { workspaceId: id, argv: NO_OP_ARGV, env: plan.env, ...plan.loaded.verification });
    judged = { result, block: verificationOf(result) ?? { outcome: 'skipped', checks: [] }, jobId: result.provenance.job_id ?? '' };
  }
  const { verification: _dropped, verify_job: _job, verified_at: _at, ...kept } = state.receipt;
  writeReceipt(ctx.home, { ...kept, ...now, ...verifyFields(ctx, plan.loaded, judged) });
  const verdict =
    judged === null ? 'the verify section is gone: nothing to judge' : (verificationFinding(judged.block) ?? `the no-op job ended ${judged.result.status}`);
  const status = result?.status ?? 'success';
  const ws = ctx.store().getWorkspace(id);
  const provenance = provenanceFor(ctx, 'prepare', { workspace: ws, startedAt, finishedAt: ctx.clock.now() });
  if (judged !== null) provenance.verification = verificationRecord(judged.block);
  if (result?.provenance.job_id) provenance.job_id = result.provenance.job_id;
  return buildResult({
    outcome_summary: `workspace ${id} is prepared from ${file} and ${state.why}: ${verdict}; nothing was recreated, setup was not run again, receipt recorded`,
    status,
    key_findings: [verdict, ...(judged?.block.checks ?? []).map((c) => `${c.kind} ${c.check}: ${c.outcome}, ${c.detail}`)],
    ...(status === 'success' || result === null ? {} : { evidence: result.evidence }),
    warnings: result?.warnings ?? [],
    provenance,
    ...(status === 'success' ? {} : { attention: [againAttention(file, plan.loaded.verification.expectOutput.length > 0)] }),
  });
}

function verificationOf(result: ResultPackage): VerificationBlock | null {
  return (result.provenance.verification as VerificationBlock | undefined) ?? null;
}

/** The job exited 0 and its checks decided its status (failure or inconclusive): setup is done, and the verdict is recorded. */
function decidedByChecks(block: VerificationBlock | null): boolean {
  return block !== null && (block.outcome === 'failed' || block.outcome === 'fault');
}

/** The receipt's record of the verify section: its digests, the verdict (no excerpts) and the job it was judged after. */
function verifyFields(ctx: EngineContext, loaded: LoadedManifest, judged: Judged | null): Partial<Receipt> {
  return {
    manifest_base_sha256: loaded.baseDigest,
    verify_sha256: loaded.verifyDigest,
    ...(judged === null
      ? {}
      : { verification: verificationRecord(judged.block), verify_job: judged.jobId, verified_at: new Date(ctx.clock.now()).toISOString() }),
  };
}

/**
 * What to do after a failed verification. Output checks judge the setup's last command's output, which only a new
 * prepare (recreate) produces: "prepare again, nothing is recreated" then met a refusal, and its remedy (recreate)
 * discarded a fix made in the workspace (new user). Said up front, with the call that works.
 */
function againAttention(file: string, outputChecks: boolean) {
  return outputChecks
    ? {
        kind: 'next-step' as const,
        text: "fix the setup or the verify section, then prepare with recreate: its output checks judge the setup's last command's output, which only a new prepare makes (a fix made inside the workspace is discarded with it: make it in the manifest's inputs or setup)",
        action: nextAction('prepare', { file, recreate: true }),
      }
    : {
        kind: 'next-step' as const,
        text: 'fix the workspace or the verify section, then prepare again: only the checks are judged again (after a no-op job), nothing is recreated',
        action: nextAction('prepare', { file }),
      };
}
