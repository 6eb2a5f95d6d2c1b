import type { EngineContext } from '../context.js';
import { nextAction } from '../next-action.js';
import { EngineError } from '../errors.js';
import type { ScenarioResult } from '../probe/probe-types.js';
import { runProbe } from '../probe/run-probe.js';
import { SCENARIOS, selectScenarios } from '../probe/scenarios.js';
import { provenanceFor } from '../result/package-parts.js';
import { attentionItem, type Evidence, type ResultPackage } from '../result/result-package.js';
import { buildResult } from '../result/build-result.js';
import { buildLabel, lastProbeReport, recordProbeReport } from '../reads/probe-reports.js';
import { inputRef } from '../verb-table/command-words.js';
import type { ProviderCapabilities } from '../provider.js';

export interface ProbeInput {
  /** One scenario id; exclusive with `all`. */
  scenario?: string;
  all?: boolean;
  provider?: string;
  /** Describe the scenarios and run nothing. */
  list?: boolean;
  /** Return the newest recorded `probe --all` report (of `provider`, when given) and run nothing. */
  last?: boolean;
}

/**
 * Runs real escape attempts in a real, dedicated workspace and reports each
 * scenario contained, escaped or skipped. Success only when every scenario
 * asked for is contained. Anything else is `infrastructure_failure` (exit
 * 7): a boundary that does not hold is the engine's fault, never the
 * command's; a skipped scenario proves nothing, so it is not success either.
 *
 * A provider that declares no real isolation layer (the fake: `simulated`)
 * is refused up front (exit 3): every scenario would be meaningless there.
 */
export async function probeContainment(ctx: EngineContext, input: ProbeInput): Promise<ResultPackage> {
  if (input.last === true) return lastRecordedReport(ctx, input);
  if (input.list === true) {
    // A list beside a run request used to answer with the list alone, exit 0, as if the run had been done.
    if (input.scenario !== undefined || input.all === true)
      throw new EngineError(
        'BAD_ARGUMENT',
        `${inputRef('list')} describes the scenarios and runs nothing: give it without a ${inputRef('scenario')} or ${inputRef('all')}`,
        {
          hint: `list the scenarios alone, or run the probe without ${inputRef('list')}`,
          action: nextAction('probe', { list: true }),
          inputsOf: 'probe',
        },
      );
    return listScenarios(ctx);
  }
  const scenarios = selectScenarios(input);
  const providerName = input.provider ?? ctx.defaultProvider;
  const provider = await ctx.provider(providerName);
  const caps = await provider.capabilities();
  if (isolatesNothing(caps)) {
    throw new EngineError(
      'POLICY_DENIED',
      `the ${providerName} provider isolates nothing (layers: ${caps.layers.join(', ') || 'none'}), so there is no boundary to probe`,
      {
        hint: 'probe a provider that isolates, e.g. native',
        action: nextAction('probe', { all: true, provider: 'native' }),
      },
    );
  }
  const run = await runProbe(ctx, { provider: providerName, caps, scenarios });
  const count = (verdict: ScenarioResult['verdict']) => run.results.filter((r) => r.verdict === verdict).length;
  const [contained, escaped, skipped] = [count('contained'), count('escaped'), count('skipped')];
  const total = run.results.length;
  const summary = [`${contained} of ${total} scenario${total === 1 ? '' : 's'} contained on ${providerName}`];
  if (escaped > 0) summary.push(`${escaped} ESCAPED`);
  if (skipped > 0) summary.push(`${skipped} skipped`);

  const warnings = [...run.warnings];
  if (skipped > 0) warnings.unshift(`${skipped} scenario(s) were skipped; a skipped scenario shows nothing held, so the probe does not report success`);
  const attention = [...run.attention];
  for (const r of run.results.filter((x) => x.verdict === 'escaped')) {
    attention.push(
      attentionItem('escape', `${r.id} escaped on ${providerName}: ${r.evidence}; do not rely on the ${providerName} provider for this until it is fixed`),
    );
  }
  const evidence: Evidence[] = run.results
    .filter((r) => r.verdict !== 'contained' && r.excerpt !== null)
    .map((r) => ({ label: `${r.verdict}: ${r.id}`, kind: 'excerpt', source: r.jobId ?? r.id, truncated: false, excerpt: r.excerpt! }));
  const state = run.workspace?.state ?? 'unknown';
  const result = buildResult({
    outcome_summary: summary.join('; '),
    status: contained === total ? 'success' : 'infrastructure_failure',
    key_findings: [
      ...run.results.map((r) => `${r.verdict}: ${r.id} — ${r.evidence}`),
      `probe workspace: ${run.workspaceId} (${state}); ${Math.round((run.finishedAt - run.startedAt) / 100) / 10} s in all`,
    ],
    evidence,
    warnings,
    resource_usage: { wall_time_seconds: Math.round(run.finishedAt - run.startedAt) / 1000 },
    provenance: provenanceFor(ctx, 'probe', { workspace: run.workspace, caps, startedAt: run.startedAt, finishedAt: run.finishedAt }),
    attention,
  });
  // Every scenario's run is kept for the dashboard's System view (#21); a store that cannot take it costs the record, not the report.
  if (input.all === true) {
    try {
      recordProbeReport(ctx, providerName, result);
    } catch (error) {
      result.warnings.push(`this report was not recorded for the dashboard: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return result;
}

function listScenarios(ctx: EngineContext): ResultPackage {
  const now = ctx.clock.now();
  return buildResult({
    outcome_summary: `${SCENARIOS.length} containment scenarios; probe one by its id, or all of them`,
    status: 'success',
    key_findings: SCENARIOS.map((s) => `${s.id} — ${s.title}: ${s.attempts}`),
    provenance: provenanceFor(ctx, 'probe', { startedAt: now, finishedAt: now }),
  });
}

/**
 * The newest recorded `probe --all` as its own result package, status and
 * exit code included, led by when, on which provider and by which build it
 * was recorded: a reviewer or an agent reads the boundary's last verdict
 * without tens of seconds of escape attempts. A report recorded by another
 * build says so: it judges that build, not this one.
 */
async function lastRecordedReport(ctx: EngineContext, input: ProbeInput): Promise<ResultPackage> {
  if (input.scenario !== undefined || input.all === true || input.list === true) {
    throw new EngineError(
      'BAD_ARGUMENT',
      `${inputRef('last')} returns the recorded report and runs nothing: give it without a ${inputRef('scenario')}, ${inputRef('all')} or ${inputRef('list')}`,
      {
        hint: `ask for the recorded report alone, or run the probe without ${inputRef('last')}`,
        action: nextAction('probe', { last: true }),
        inputsOf: 'probe',
      },
    );
  }
  const stored = await lastProbeReport(ctx, input.provider === undefined ? {} : { provider: input.provider });
  const on = input.provider === undefined ? '' : ` on ${input.provider}`;
  if (stored === null) {
    // The call that would record one is refused on a provider that isolates nothing (the fake): suggest one that isolates instead.
    const providerName = input.provider ?? ctx.defaultProvider;
    if (await providerIsolatesNothing(ctx, providerName))
      throw new EngineError('BAD_ARGUMENT', `no probe of every scenario${on} is recorded in this home`, {
        hint: `the ${providerName} provider isolates nothing, so it is never probed; probe a provider that isolates, e.g. native`,
        action: nextAction('probe', { all: true, provider: 'native' }),
      });
    throw new EngineError('BAD_ARGUMENT', `no probe of every scenario${on} is recorded in this home`, {
      hint: 'run every scenario once; its report is recorded',
      action: nextAction('probe', { all: true, ...(input.provider === undefined ? {} : { provider: input.provider }) }),
    });
  }
  const report = stored.report;
  const current = buildLabel(ctx.version);
  const warnings = [...report.warnings];
  if (stored.build !== current)
    warnings.unshift(
      `recorded by another build (${stored.build}) than this one (${current}): it judges that build; run every scenario again to judge this one`,
    );
  return {
    ...report,
    outcome_summary: `recorded ${stored.recorded_at}: ${report.outcome_summary}`,
    key_findings: [
      {
        kind: 'recorded-probe',
        text: `the last probe of every scenario on ${stored.provider}, recorded ${stored.recorded_at} by ${stored.build}; this call ran nothing`,
        provider: stored.provider,
        recorded_at: stored.recorded_at,
        build: stored.build,
      },
      ...report.key_findings,
    ],
    warnings,
  };
}

/** A provider whose only layer is simulated (the fake) has no boundary to probe: a probe of it is refused. */
function isolatesNothing(caps: ProviderCapabilities): boolean {
  return !caps.layers.some((layer) => layer !== 'simulated');
}

/** Whether a probe of this provider would be refused for isolating nothing; a provider that cannot be opened here is not judged (false). */
async function providerIsolatesNothing(ctx: EngineContext, providerName: string): Promise<boolean> {
  try {
    return isolatesNothing(await (await ctx.provider(providerName)).capabilities());
  } catch {
    return false;
  }
}
