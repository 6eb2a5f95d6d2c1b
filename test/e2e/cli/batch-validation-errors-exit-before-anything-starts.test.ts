/**
 * A batch (#16) is checked whole before anything is recorded or started: no
 * jobs, a quorum missing or above the job count, a job with neither or both
 * of workspace and fork, an unknown workspace (exit 1); a fork on a provider
 * without snapshots is exit 3 (in
 * test/unit/core/batch/a-batch-fork-on-a-provider-without-snapshots-is-refused.test.ts).
 * Each refusal leaves no job behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { runBatch } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

function jobCount(): number {
  const seen = cli(home, ['inspect', 'pool', '--json']);
  return (JSON.parse(seen.stdout) as { key_findings: Array<{ kind?: string }> }).key_findings.filter((f) => typeof f === 'object' && f.kind === 'job').length;
}

describe('batch validation', () => {
  beforeAll(() => {
    expect(cli(home, ['create', '--workspace-id', 'pool']).code).toBe(0);
  });

  it.each([
    ['no jobs', ['--strategy', 'all'], [], /no jobs/],
    ['a quorum strategy without a quorum', ['--strategy', 'quorum'], [{ workspace: 'pool', command: 'true' }], /--strategy quorum needs --quorum/],
    [
      'a quorum above the job count',
      ['--strategy', 'quorum', '--quorum', '3'],
      [
        { workspace: 'pool', command: 'true' },
        { workspace: 'pool', command: 'true' },
      ],
      /quorum takes a whole number from 1 to 2/,
    ],
    [
      'a quorum for another strategy',
      ['--strategy', 'any', '--quorum', '1'],
      [{ workspace: 'pool', command: 'true' }],
      /--quorum is only for --strategy quorum/,
    ],
    ['a job with neither workspace nor fork', ['--strategy', 'all'], [{ command: 'true' }], /names no workspace: it needs exactly one/],
    [
      'an unknown workspace after a good one',
      ['--strategy', 'all'],
      [
        { workspace: 'pool', command: 'true' },
        { workspace: 'nowhere', command: 'true' },
      ],
      /no workspace nowhere/,
    ],
    ['an unknown strategy', ['--strategy', 'first'], [{ workspace: 'pool', command: 'true' }], /strategy/],
  ])('refuses %s with exit 1 and starts no job', (_name, args, jobs, message) => {
    const run = runBatch(home, args as string[], jobs as never);
    expect(run.code, run.stdout).toBe(1);
    expect(run.stderr).toMatch(message as RegExp);
    expect(jobCount()).toBe(0);
  });
});

describe('the same look', () => {
  it('counts the job a valid batch did start, so the zero counts above are not blindness', () => {
    const run = runBatch(home, ['--strategy', 'all'], [{ workspace: 'pool', command: 'true' }]);
    expect(run.code, run.stderr).toBe(0);
    expect(jobCount()).toBe(1);
  });
});
