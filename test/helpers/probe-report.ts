/**
 * A `probe --all` report recorded in a home as the probe records it
 * (recordProbeReport, the same write): the dashboard tests need one without
 * running every scenario on a real provider for a minute.
 */
import type { EngineContext } from '../../src/core/context.js';
import { recordProbeReport } from '../../src/core/reads/probe-reports.js';
import { buildResult } from '../../src/core/result/build-result.js';
import type { Provenance } from '../../src/core/result/result-package.js';
import { systemClock } from '../../src/core/clock.js';
import { SqliteStore } from '../../src/core/store/sqlite-store.js';

export function recordReport(
  home: string,
  report: { provider: string; outcome: string; findings: string[]; version?: string; status?: 'success' | 'infrastructure_failure' },
): void {
  const store = SqliteStore.open(home);
  try {
    const ctx = { store: () => store, clock: systemClock, version: report.version ?? '0.0.0-test' } as unknown as EngineContext;
    const provenance = {
      verb: 'probe',
      headspace_version: ctx.version,
      workspace_id: null,
      job_id: null,
      policy_summary: [],
      inputs: [],
    } as unknown as Provenance;
    recordProbeReport(
      ctx,
      report.provider,
      buildResult({ outcome_summary: report.outcome, status: report.status ?? 'success', key_findings: report.findings, provenance }),
    );
  } finally {
    store.close();
  }
}
