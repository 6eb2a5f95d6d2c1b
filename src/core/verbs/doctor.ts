import type { EngineContext } from '../context.js';
import { nextAction } from '../next-action.js';
import { EngineError } from '../errors.js';
import { inputRef } from '../verb-table/command-words.js';
import { notReadyError } from '../infrastructure-errors.js';
import { reconcile } from '../reconcile.js';
import { applyRepairs } from '../repair/apply-repairs.js';
import { diagnoseEvents } from '../events/doctor-events.js';
import { describeRepair } from '../repair/describe-repair.js';
import { gatherDiagnosis, INSPECTS_AT_ONCE } from '../repair/gather-diagnosis.js';
import { planRepairs, type Repair, type WorkspaceFacts } from '../repair/plan-repairs.js';
import { attentionItem, type AttentionItem, type ResultPackage } from '../result/result-package.js';
import { diagnoseBatches } from '../batch/diagnose-batches.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import { SCHEMA_VERSION } from '../store/migrations.js';
import { measuredByDefault } from '../policy/label-limit.js';
import { LIMIT_NAMES } from '../policy/policy.js';
import { settleEach } from '../settle-each.js';

export interface DoctorInput {
  /** Check only this provider; default: every registered provider. */
  provider?: string;
  /** Plan repairs and list each one (a dry run unless `apply`). */
  repair?: boolean;
  /** With `repair`: carry out the mechanically safe repairs; judgement calls are reported, never made. */
  apply?: boolean;
  /** With `repair` and `apply`: diagnose again afterwards and report what remains. */
  verify?: boolean;
  /** Also a manifest's readiness (#17): each of plan's checks, read-only. */
  file?: string;
  /** The caller's environment, for the manifest's env names (never recorded). */
  env?: Record<string, string>;
}

/**
 * Health report: store, schema, leftovers, provider readiness. Plain
 * `doctor` and `doctor --repair` change nothing; `--repair --apply` makes
 * only the safe repairs planRepairs() chose (see repair/plan-repairs.ts).
 */

export async function diagnose(ctx: EngineContext, input: DoctorInput = {}): Promise<ResultPackage> {
  if ((input.apply || input.verify) && !input.repair) {
    throw new EngineError('BAD_ARGUMENT', `${inputRef(input.apply ? 'apply' : 'verify')} goes with ${inputRef('repair')}`, {
      hint: `preview the repairs first; then ${inputRef('repair')} with ${inputRef('apply')} and ${inputRef('verify')}`,
      action: nextAction('doctor', { repair: true }),
      inputsOf: 'doctor',
    });
  }
  if (input.verify && !input.apply)
    throw new EngineError('BAD_ARGUMENT', `${inputRef('verify')} re-diagnoses after ${inputRef('apply')}; without ${inputRef('apply')} nothing changed`, {
      hint: `${inputRef('repair')} with ${inputRef('apply')} and ${inputRef('verify')}`,
      inputsOf: 'doctor',
      action: nextAction('doctor', { repair: true, apply: true, verify: true }),
    });
  const now = ctx.clock.now();
  const findings: string[] = [];
  const warnings: string[] = [];
  const store = ctx.store();
  findings.push(`state store: ${store.path}`);
  findings.push(`schema version: ${store.schemaVersion()} (this headspace writes ${SCHEMA_VERSION})`);
  const integrity = store.integrityCheck();
  findings.push(`store integrity: ${integrity}`);
  if (integrity !== 'ok') warnings.push(`the state store failed its integrity check: ${integrity}`);
  // Reconciliation's items come first; under --apply they are taken again afterwards, so repaired ones drop out.
  let reconciled = await reconcile(ctx);
  const attention: AttentionItem[] = [];
  // Dead events (#15): reported, never repaired (reviving one is a consumer's decision).
  const events = diagnoseEvents(store);
  findings.push(...events.findings);
  attention.push(...events.attention);
  // Batches whose driver died (#16): reported with the call that finishes them.
  const batches = diagnoseBatches(store);
  findings.push(...batches.findings);
  attention.push(...batches.attention);
  const recorded = store.listWorkspaces();
  const names = input.provider ? [input.provider] : ctx.providerNames();
  /** A backend nothing points at, asked about by no one: reported in one line, its capabilities never asked. */
  const unconfiguredAside = (name: string, probe: { unconfigured?: boolean }) =>
    probe.unconfigured === true && name !== ctx.defaultProvider && input.provider === undefined;
  // Every provider question at once, each bounded by its provider, reported below in order (settle-each.ts says why).
  const [views, probes] = await Promise.all([
    settleEach(recorded, INSPECTS_AT_ONCE, async (ws) => (await ctx.provider(ws.provider)).inspect(ws.id)),
    settleEach(names, names.length, async (name) => {
      const provider = await ctx.provider(name);
      const probe = await provider.probe();
      return { probe, caps: probe.ready && !unconfiguredAside(name, probe) ? await provider.capabilities() : null };
    }),
  ]);
  recorded.forEach((ws, i) => {
    const answer = views[i]!;
    if (answer.status === 'rejected') {
      attention.push(
        attentionItem('unverified-workspace', `workspace ${ws.id}: the ${ws.provider} provider could not be asked (${(answer.reason as Error).message})`, {
          workspace_id: ws.id,
        }),
      );
      return;
    }
    const view = answer.value;
    if (view.state === 'missing' && view.lost !== undefined && ws.state === 'ready') noticeLost(ctx, ws.id, view.lost, input, findings, attention);
    else if (view.state === 'missing')
      attention.push(
        attentionItem('missing-workspace', `workspace ${ws.id} is recorded as ${ws.state} but the ${ws.provider} provider no longer knows it`, {
          workspace_id: ws.id,
        }),
      );
  });
  let defaultNotReady: EngineError | null = null;
  for (const [i, name] of names.entries()) {
    const answer = probes[i]!;
    // An unknown provider name (or a probe that threw) is the call's error, as when the providers were asked in turn.
    if (answer.status === 'rejected') throw answer.reason;
    const { probe, caps } = answer.value;
    // A backend nothing points at, asked about by no one: one line with how to set it up, not a fault to count.
    if (unconfiguredAside(name, probe)) {
      const failed = probe.checks.find((c) => !c.ok);
      findings.push(
        `provider ${name}: not configured here (${failed?.detail ?? 'nothing points at it'}); to use it: ${failed?.remedy ?? "see the provider's section in the README"}`,
      );
      continue;
    }
    findings.push(`provider ${name}: ${probe.ready ? 'ready' : 'NOT ready'}${name === ctx.defaultProvider ? ' (default)' : ''}`);
    // Checks that failed for one reason are one line (memory, pids and cpu share their cgroup detail).
    const lines = new Map<string, string[]>();
    for (const check of probe.checks) {
      const key = `${check.ok ? 'ok' : 'FAILED'} — ${check.detail}`;
      lines.set(check.ok ? `${check.name}\0${key}` : key, [...(lines.get(check.ok ? `${check.name}\0${key}` : key) ?? []), check.name]);
    }
    for (const [key, checks] of lines) findings.push(`  ${name} ${checks.join(', ')}: ${key.slice(key.indexOf('\0') + 1)}`);
    // One line per remedy, naming every check it fixes (memory, pids and cpu share one: #12 item 12).
    const remedies = new Map<string, string[]>();
    for (const check of probe.checks) if (!check.ok && check.remedy) remedies.set(check.remedy, [...(remedies.get(check.remedy) ?? []), check.name]);
    for (const [remedy, checks] of remedies) attention.push(attentionItem('remedy', `${name} ${checks.join(', ')}: ${remedy}`));
    if (!probe.ready && name === ctx.defaultProvider) defaultNotReady = notReadyError(name, probe.checks);
    if (caps !== null) {
      // The engine's own limits (wall clock, output, concurrency) are never a provider's gap.
      const measured = measuredByDefault(caps, LIMIT_NAMES);
      findings.push(`  ${name} isolation layers: ${caps.layers.join(', ') || '(none)'}; not enforced: ${measured.join(', ') || '(none)'}`);
    }
  }

  // The plan's facts take the providers' answers about the recorded workspaces from above, asked a moment ago: asking
  // again cost a second probe bound against an engine that does not answer. --verify's plan below asks afresh.
  const answered = new Map<string, WorkspaceFacts['view']>(
    recorded.map((ws, i) => {
      const answer = views[i]!;
      return [ws.id, answer.status === 'fulfilled' ? answer.value.state : 'unknown'];
    }),
  );
  const planned = await plan(ctx, warnings, answered);
  // A host where the default provider cannot run is not healthy: doctor says so in its exit code (#12 item 12).
  let status: 'success' | 'infrastructure_failure' = defaultNotReady === null ? 'success' : 'infrastructure_failure';
  if (defaultNotReady !== null) {
    warnings.unshift(
      `the default provider ${ctx.defaultProvider} is not ready (the FAILED checks above say why), so create refuses on it (exit 3); to try headspace without isolation meanwhile, choose the fake provider (provider fake, or HEADSPACE_PROVIDER=fake)`,
    );
  }
  let summary: string;
  const safe = planned.filter((r) => r.safe);
  const judgement = planned.filter((r) => !r.safe);
  const skipped = (r: Repair) => attentionItem('judgement', `judgement call, skipped: ${describeRepair(r)} — ${r.reason}`);
  if (!input.repair) {
    // Leftovers reconcile() does not see (provider debris, temporary files, stray logs).
    for (const r of planned)
      if (r.kind !== 'finish-job' && r.kind !== 'settle-intent')
        attention.push(
          attentionItem('leftover', `leftover: ${r.reason.replace(/: remove it$/, '')}${r.kind === 'remove-temporary-file' ? ` (${r.target})` : ''}`),
        );
    if (planned.length)
      attention.push(
        attentionItem('next-step', `${safe.length} safe repair(s) and ${judgement.length} judgement call(s) found: list them`, {
          action: nextAction('doctor', { repair: true }),
        }),
      );
    const total = reconciled.length + attention.length + warnings.length;
    summary = total ? `doctor found ${total} thing(s) to look at; it changed nothing` : 'doctor found nothing wrong; it changed nothing';
    if (defaultNotReady !== null) summary = `the default provider ${ctx.defaultProvider} cannot run here; ${summary}`;
  } else if (!input.apply) {
    for (const r of safe) findings.push(`would ${describeRepair(r)} — ${r.reason}`);
    attention.push(...judgement.map(skipped));
    if (safe.length)
      attention.push(attentionItem('next-step', 'apply the safe repairs', { action: nextAction('doctor', { repair: true, apply: true, verify: true }) }));
    summary = `doctor's repair planned ${safe.length} safe repair(s) and ${judgement.length} judgement call(s); this dry run changed nothing`;
  } else {
    const applied = await applyRepairs(ctx, planned);
    reconciled = await reconcile(ctx);
    for (const a of applied) {
      if (a.skipped !== undefined) attention.push(attentionItem('skipped', a.detail, a.repair.workspaceId ? { workspace_id: a.repair.workspaceId } : {}));
      else (a.ok ? findings : warnings).push(a.ok ? `repaired: ${a.detail}` : a.detail);
    }
    attention.push(...judgement.map(skipped));
    const failed = applied.filter((a) => !a.ok).length;
    const busied = applied.filter((a) => a.skipped !== undefined).length;
    if (failed) status = 'infrastructure_failure';
    summary = `doctor's repair made ${applied.length - failed - busied} repair(s)${failed ? `, ${failed} failed` : ''}${
      busied ? `, left ${busied} that changed since the diagnosis (a workspace became busy, or the thing was no longer a leftover)` : ''
    }, skipped ${judgement.length} judgement call(s)`;
    if (input.verify) {
      const again = await plan(ctx, warnings);
      // A repair that failed to take is one made above and planned again; one planned now that was not made above is
      // new since (another process's create, fork or destroy under way beside doctor): said, not counted a failure.
      // Counted as failures they made doctor --verify exit 7 beside live work (red team: 15 of 46 runs).
      const made = new Set(applied.filter((a) => a.skipped === undefined).map((a) => repairKey(a.repair)));
      const safeAgain = again.filter((r) => r.safe);
      const left = safeAgain.filter((r) => made.has(repairKey(r)));
      const appeared = safeAgain.filter((r) => !made.has(repairKey(r)));
      if (left.length === 0)
        findings.push(`verify: nothing safe is left to repair${again.length ? ` (${again.length} judgement call(s) remain, listed below)` : ''}`);
      else {
        status = 'infrastructure_failure';
        for (const r of left) warnings.push(`verify: still needs repair after it was applied: ${describeRepair(r)} — ${r.reason}`);
      }
      for (const r of appeared) findings.push(`verify: new since the repair (another process may be at work): ${describeRepair(r)} — ${r.reason}`);
      if (appeared.length > 0)
        attention.push(
          attentionItem('next-step', `look again once other work has ended: ${appeared.length} repair(s) appeared since`, {
            action: nextAction('doctor', { repair: true }),
          }),
        );
      summary += left.length ? `; verify found ${left.length} still to repair` : '; verify found nothing left to repair';
      if (appeared.length > 0) summary += ` (and ${appeared.length} new since)`;
    }
  }
  if (input.file !== undefined) {
    // The manifest's readiness is plan's, word for word: doctor adds no check of its own.
    const { gatherPlan } = await import('./plan.js');
    const { plan: manifest } = await gatherPlan(ctx, { file: input.file, ...(input.env === undefined ? {} : { env: input.env }) });
    const failed = manifest.checks.filter((c) => !c.ok);
    findings.push(`manifest ${manifest.loaded.file}: ready: ${manifest.ready}${manifest.ready ? '' : ` (${failed.length} check(s) failed)`}`);
    for (const c of manifest.checks) findings.push(`${c.ok ? 'ok' : 'FAILED'} ${c.name}: ${c.detail}`);
    for (const c of failed) warnings.push(`manifest ${c.name}: ${c.detail}`);
    summary += manifest.ready
      ? `; manifest ${manifest.workspaceId} is ready`
      : `; manifest ${manifest.workspaceId} is NOT ready (${failed.length} check(s) failed)`;
  }
  return buildResult({
    outcome_summary: summary,
    status,
    key_findings: findings,
    warnings,
    provenance: provenanceFor(ctx, 'doctor', { startedAt: now, finishedAt: ctx.clock.now() }),
    attention: [...reconciled, ...attention],
  });
}

/**
 * A ready workspace its provider says is lost (a swarm node gone, its files with it, #22), noticed without a run
 * meeting it: reported, and with repair and apply recorded `failed` with the provider's reason, as a run that met the
 * lost node records it. Only a ready one: a running job's own run records it when it ends, and the other states are
 * final but for destroy.
 */
function noticeLost(ctx: EngineContext, id: string, reason: string, input: DoctorInput, findings: string[], attention: AttentionItem[]): void {
  const store = ctx.store();
  if (input.repair && input.apply) {
    // Read again: a job may have started since the list was read, and its run records the loss itself.
    if (store.getWorkspace(id)?.state !== 'ready') return;
    store.moveWorkspace(id, 'failed', ctx.clock.now(), { failureReason: reason });
    ctx.events.emit({ type: 'workspace.failed', workspaceId: id, reason });
    findings.push(`repaired: workspace ${id} recorded failed: ${reason}`);
    attention.push(
      attentionItem('missing-workspace', `workspace ${id} is failed (lost: ${reason}); destroy it`, {
        workspace_id: id,
        action: nextAction('destroy', { workspaceId: id }),
      }),
    );
    return;
  }
  if (input.repair) findings.push(`would record workspace ${id} failed: ${reason}`);
  attention.push(
    attentionItem(
      'missing-workspace',
      `workspace ${id} is recorded as ready but is lost: ${reason}; repair with apply records it failed (as a run that met it would), then destroy it`,
      {
        workspace_id: id,
        action: nextAction('doctor', { repair: true, apply: true }),
      },
    ),
  );
}

async function plan(ctx: EngineContext, warnings: string[], answered?: ReadonlyMap<string, WorkspaceFacts['view']>): Promise<Repair[]> {
  const { diagnosis, warnings: found } = await gatherDiagnosis(ctx, answered);
  for (const w of found) if (!warnings.includes(w)) warnings.push(w);
  return planRepairs(diagnosis);
}

/** A repair's identity across two plans: what it acts on and how. */
function repairKey(repair: Repair): string {
  return `${repair.kind}\0${repair.target}`;
}
