/**
 * `prepare [FILE]` (#17): the only verb that materialises a manifest. It
 * refuses before anything happens when the manifest is bad or a readiness
 * check fails (the check's own refusal: an input that is not there, a
 * policy the provider cannot enforce, …); then creates the workspace, copies
 * each input in, declares the artifacts, runs the setup commands in order,
 * and records a receipt (manifest digest, input digests, setup jobs).
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
import { gatherPlan, whyRefused, type PlanInput } from './plan.js';
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
  if (state.kind === 'changed' || state.kind === 'unreceipted' || state.kind === 'fast-forward') {
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
  const inputs = [];
  for (const copy of plan.copies) {
    const put = await putFiles(ctx, { workspaceId: id, hostPath: copy.hostPath, destination: copy.to });
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
    const made = await independentClone(clone, clone.commit);
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

  const jobs: string[] = [];
  for (const step of steps) {
    if (step.step !== 'setup') continue;
    const result = await runJob(ctx, { workspaceId: id, argv: step.argv, env: plan.env });
    if (result.provenance.job_id) jobs.push(result.provenance.job_id);
    if (result.status !== 'success') {
      return buildResult({
        outcome_summary: `prepare of workspace ${id} stopped at setup[${step.index}]: job ${result.provenance.job_id ?? '?'} ended ${result.status}; no receipt was written`,
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
    done.push(step);
  }

  writeReceipt(ctx.home, {
    schema: RECEIPT_SCHEMA,
    ...now,
    env_names: Object.keys(plan.env).sort(),
    setup_jobs: jobs,
    prepared_at: new Date(ctx.clock.now()).toISOString(),
  });
  const ws = ctx.store().getWorkspace(id);
  const provenance = provenanceFor(ctx, 'prepare', { workspace: ws, startedAt, finishedAt: ctx.clock.now() });
  provenance.inputs = inputs;
  return buildResult({
    outcome_summary: `workspace ${id} is prepared from ${file}: ${done.length} step(s) done, receipt recorded (manifest ${plan.loaded.digest})`,
    status: 'success',
    key_findings: done.map((s): KeyFinding => ({ kind: 'step', text: stepText(s), ...s })),
    artifacts: artifactEntries(ctx.store(), id),
    warnings,
    provenance,
  });
}
