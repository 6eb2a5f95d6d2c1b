/**
 * `headspace status [ID]` (#11): a workspace and its latest job in one short
 * result. Without an id it picks the live workspace used most recently and
 * says how many others are live; with none it says so and suggests create.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

const json = (args: string[]) => {
  // Flags go before the workspace id: after it, run's words are the command.
  const run = cli(home, [args[0]!, '--json', '--provider', 'fake', ...args.slice(1)]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as {
    outcome_summary: string;
    key_findings: Array<string | { kind: string; id?: string; status?: string }>;
    attention: Array<{ action?: { verb: string } }>;
    evidence: Array<{ excerpt: string }>;
  };
};

describe('status', () => {
  it('says there is no live workspace and suggests create', () => {
    const pkg = json(['status']);
    expect(pkg.outcome_summary).toBe('no live workspace');
    expect(pkg.attention.map((a) => a.action?.verb)).toContain('create');
  });

  it('shows the most recently used workspace and its latest job without an id', () => {
    json(['create', '--workspace-id', 'older']);
    json(['create', '--workspace-id', 'newer']);
    json(['run', 'older', 'echo', 'first']);
    expect(cli(home, ['run', '--provider', 'fake', 'older', 'fail', '3']).code).toBe(6);
    const pkg = json(['status']);
    expect(pkg.outcome_summary).toMatch(/^workspace older is ready; latest job job-\S+ ended failure$/);
    expect(pkg.key_findings).toContain('1 other live workspace(s)');
    const latest = pkg.key_findings.find((f) => typeof f === 'object' && f.kind === 'job');
    expect(latest).toMatchObject({ status: 'failure' });
  });

  it('shows a named workspace, and stays short in markdown', () => {
    const pkg = json(['status', 'newer']);
    expect(pkg.outcome_summary).toBe('workspace newer is ready, with no job yet');
    const md = cli(home, ['status', 'older', '--provider', 'fake']);
    expect(md.code).toBe(0);
    expect(Buffer.byteLength(md.stdout)).toBeLessThan(2048);
  });

  it('refuses an unknown workspace with exit 1 and a hint', () => {
    const run = cli(home, ['status', 'nope', '--provider', 'fake']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: .+\nhint: .+/);
  });
});
