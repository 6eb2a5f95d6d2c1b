/**
 * `probe --last` returns the newest recorded `probe --all` report — its
 * status and exit code included — led by when, on which provider and by
 * which build it was recorded, and runs nothing: a reviewer or an agent
 * reads the boundary's last verdict without a minute of escape attempts. A
 * report of another build says it judges that build; with none recorded, or
 * beside a scenario, --all or --list, it is refused (exit 1) with the call
 * that records one.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { recordReport } from '../../helpers/probe-report.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

interface Pkg {
  outcome_summary: string;
  status: string;
  key_findings: Array<string | { kind: string; text: string; provider?: string; build?: string }>;
  warnings: string[];
}
const probeLast = (args: string[] = []) => {
  const run = cli(home, ['probe', '--last', '--json', ...args]);
  return { ...run, pkg: run.stdout ? (JSON.parse(run.stdout) as Pkg) : null };
};
const version = JSON.parse(cli(home, ['version', '--json']).stdout) as { version: string };

describe('probe --last', () => {
  it('is refused with the call that records one when no probe of every scenario is recorded', () => {
    const run = cli(home, ['probe', '--last']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no probe of every scenario is recorded in this home');
    expect(run.stderr).toContain('headspace probe --all');
  });

  it('returns the newest report with when, where and by which build, and its own status', () => {
    recordReport(home, {
      provider: 'native',
      outcome: '41 of 41 scenarios contained on native',
      findings: ['contained: write-outside'],
      version: version.version,
    });
    const ok = probeLast();
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.pkg!.outcome_summary).toMatch(/^recorded \d{4}-\d\d-\d\dT.*Z: 41 of 41 scenarios contained on native$/);
    expect(ok.pkg!.key_findings[0]).toMatchObject({ kind: 'recorded-probe', provider: 'native' });
    expect((ok.pkg!.key_findings[0] as { text: string }).text).toContain('this call ran nothing');
    expect(ok.pkg!.key_findings[1]).toBe('contained: write-outside');
    expect(ok.pkg!.warnings).toEqual([]);

    recordReport(home, {
      provider: 'native',
      outcome: '40 of 41 scenarios contained on native; 1 ESCAPED',
      findings: ['escaped: loopback'],
      version: version.version,
      status: 'infrastructure_failure',
    });
    const escaped = probeLast(['--provider', 'native']);
    expect(escaped.code).toBe(7);
    expect(escaped.pkg!.status).toBe('infrastructure_failure');
  });

  it('says a report recorded by another build judges that build, not this one', () => {
    recordReport(home, { provider: 'docker', outcome: '30 of 30 scenarios contained on docker', findings: [], version: '0.0.1-old' });
    const old = probeLast(['--provider', 'docker']);
    expect(old.code).toBe(0);
    expect(old.pkg!.warnings[0]).toMatch(/^recorded by another build \(headspace 0\.0\.1-old, .*\) than this one/);
  });

  it('is refused beside a scenario, --all or --list', () => {
    for (const extra of [['write-outside'], ['--all'], ['--list']]) {
      const run = cli(home, ['probe', '--last', ...extra]);
      expect(run.code, extra.join(' ')).toBe(1);
      expect(run.stderr).toContain('last returns the recorded report and runs nothing');
    }
  });
});
