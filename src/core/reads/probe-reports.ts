/**
 * The stored `probe --all` reports (#21): each run of every scenario records
 * its result package here (the probe_reports table), with when, on which
 * provider and by which build, so the dashboard's System view shows the last
 * one without running the probe again. Only the newest KEEP per provider are
 * kept: the table never grows with every probe.
 */
import type { EngineContext } from '../context.js';
import type { ResultPackage } from '../result/result-package.js';
import type { Row } from '../store/records.js';

const KEEP = 10;

export interface StoredProbeReport {
  provider: string;
  recorded_at: string;
  headspace_version: string;
  /** The build that ran it: headspace's version, Node's, and the platform. */
  build: string;
  status: string;
  report: ResultPackage;
}

export function buildLabel(version: string): string {
  return `headspace ${version}, node ${process.version}, ${process.platform}-${process.arch}`;
}

export function recordProbeReport(ctx: EngineContext, provider: string, report: ResultPackage): void {
  const store = ctx.store();
  store.atomically(() => {
    store
      .statement('INSERT INTO probe_reports (provider, recorded_at, headspace_version, build, status, report) VALUES (?, ?, ?, ?, ?, ?)')
      .run(provider, ctx.clock.now(), ctx.version, buildLabel(ctx.version), report.status, JSON.stringify(report));
    store
      .statement('DELETE FROM probe_reports WHERE provider = ? AND id NOT IN (SELECT id FROM probe_reports WHERE provider = ? ORDER BY id DESC LIMIT ?)')
      .run(provider, provider, KEEP);
  });
}

/** The newest report (of `provider`, or of any), or null when `probe --all` never ran on this home. */
export async function lastProbeReport(ctx: EngineContext, input: { provider?: string } = {}): Promise<StoredProbeReport | null> {
  const store = ctx.store();
  const row = (
    input.provider === undefined
      ? store.statement('SELECT * FROM probe_reports ORDER BY id DESC LIMIT 1').get()
      : store.statement('SELECT * FROM probe_reports WHERE provider = ? ORDER BY id DESC LIMIT 1').get(input.provider)
  ) as Row | undefined;
  if (!row) return null;
  return {
    provider: row.provider as string,
    recorded_at: new Date(row.recorded_at as number).toISOString(),
    headspace_version: row.headspace_version as string,
    build: row.build as string,
    status: row.status as string,
    report: JSON.parse(row.report as string) as ResultPackage,
  };
}
