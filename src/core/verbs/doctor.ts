import type { EngineContext } from '../context.js';
import { reconcile } from '../reconcile.js';
import { makeResultPackage, emptyUsage, type ResultPackage } from '../result/result-package.js';
import { provenanceFor } from '../result/package-parts.js';
import { SCHEMA_VERSION } from '../store/migrations.js';

export interface DoctorInput {
  /** Check only this provider; default: every registered provider. */
  provider?: string;
}

/** Read-only health report: store, schema, leftovers, provider readiness. Changes nothing. */
export async function diagnose(ctx: EngineContext, input: DoctorInput = {}): Promise<ResultPackage> {
  const now = ctx.clock.now();
  const findings: string[] = [];
  const warnings: string[] = [];
  const store = ctx.store();
  findings.push(`state store: ${store.path}`);
  findings.push(`schema version: ${store.schemaVersion()} (this headspace writes ${SCHEMA_VERSION})`);
  const integrity = store.integrityCheck();
  findings.push(`store integrity: ${integrity}`);
  if (integrity !== 'ok') warnings.push(`the state store failed its integrity check: ${integrity}`);
  const attention = await reconcile(ctx);
  for (const ws of store.listWorkspaces()) {
    try {
      const provider = await ctx.provider(ws.provider);
      const view = await provider.inspect(ws.id);
      if (view.state === 'missing') attention.push(`workspace ${ws.id} is recorded as ${ws.state} but the ${ws.provider} provider no longer knows it`);
    } catch (error) {
      attention.push(`workspace ${ws.id}: the ${ws.provider} provider could not be asked (${(error as Error).message})`);
    }
  }
  const names = input.provider ? [input.provider] : ctx.providerNames();
  for (const name of names) {
    const provider = await ctx.provider(name);
    const probe = await provider.probe();
    findings.push(`provider ${name}: ${probe.ready ? 'ready' : 'NOT ready'}${name === ctx.defaultProvider ? ' (default)' : ''}`);
    for (const check of probe.checks) {
      findings.push(`  ${name} ${check.name}: ${check.ok ? 'ok' : 'FAILED'} — ${check.detail}`);
      if (!check.ok && check.remedy) attention.push(`${name} ${check.name}: ${check.remedy}`);
    }
    if (probe.ready) {
      const caps = await provider.capabilities();
      const measured = Object.entries(caps.enforces).filter(([, v]) => !v).map(([k]) => k);
      findings.push(`  ${name} isolation layers: ${caps.layers.join(', ') || '(none)'}; not enforced: ${measured.join(', ') || '(none)'}`);
    }
  }
  return makeResultPackage({
    outcome_summary: attention.length || warnings.length ? `doctor found ${attention.length + warnings.length} thing(s) to look at; it changed nothing` : 'doctor found nothing wrong; it changed nothing',
    status: 'success',
    key_findings: findings,
    evidence: [],
    artifacts: [],
    warnings,
    resource_usage: emptyUsage(),
    provenance: provenanceFor(ctx, 'doctor', { startedAt: now, finishedAt: ctx.clock.now() }),
    attention,
  });
}
