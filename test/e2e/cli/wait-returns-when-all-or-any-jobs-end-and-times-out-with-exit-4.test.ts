/**
 * wait (#15 item 3): --all (the default) returns when every job has ended,
 * one result naming each job's status with the first job that did not
 * succeed deciding it; --any returns the first job's own result; --timeout
 * returns what is known with exit 4 and leaves the jobs running; an unknown
 * job is refused (exit 1); a --job-id given twice is refused (exit 1) and the
 * first job is untouched.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { jobStatus, jsonOf } from '../../helpers/detached.js';

const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'fake' };
afterAll(async () => {
  cli(home, ['stop', 'wt', '--apply', '--grace-seconds', '0'], env);
  await cleanup();
});

const detach = (jobId: string, argv: string[]) => {
  const run = cli(home, ['run', '--detach', '--job-id', jobId, 'wt', ...argv], env);
  expect(run.code, run.stderr).toBe(0);
};

describe('wait', () => {
  it('returns with --all when every job ended, with --any at the first, and on --timeout with exit 4 leaving the jobs running', () => {
    expect(cli(home, ['create', '--workspace-id', 'wt', '--concurrency', '4'], env).code).toBe(0);
    detach('w-ok', ['echo', 'one']);
    detach('w-fail', ['fail', '2']);
    detach('w-block', ['block']);

    const all = cli(home, ['wait', '--json', '--all', 'w-ok', 'w-fail'], env);
    expect(all.code, all.stderr).toBe(6);
    const allResult = jsonOf(all.stdout);
    expect(allResult.status).toBe('failure');
    expect(allResult.outcome_summary).toBe('2 jobs ended: 1 success, 1 failure');

    const any = cli(home, ['wait', '--json', '--any', 'w-block', 'w-ok'], env);
    expect(any.code, any.stderr).toBe(0);
    const anyResult = jsonOf(any.stdout);
    expect(anyResult.provenance.job_id).toBe('w-ok');
    expect(anyResult.attention.some((a) => a.text.includes('w-block still runs'))).toBe(true);

    const started = Date.now();
    const timedOut = cli(home, ['wait', '--json', '--timeout', '0.3', 'w-block', 'w-ok'], env);
    expect(timedOut.code, timedOut.stderr).toBe(4);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(jsonOf(timedOut.stdout).status).toBe('timeout');
    expect(jsonOf(timedOut.stdout).outcome_summary).toContain('1 of 2 job(s) ended; job w-block runs on');
    expect(jobStatus(home, 'w-block', env)).toBe('running');

    expect(cli(home, ['wait', '--any', '--all', 'w-ok'], env).code).toBe(1);
    const unknown = cli(home, ['wait', 'no-such-job'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no job no-such-job');
  });

  it('refuses a --job-id given twice, leaving the first job as it was', () => {
    const again = cli(home, ['run', '--detach', '--job-id', 'w-block', 'wt', 'echo', 'again'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('job id w-block is already used');
    const foreground = cli(home, ['run', '--job-id', 'w-ok', 'wt', 'echo', 'again'], env);
    expect(foreground.code).toBe(1);
    expect(jobStatus(home, 'w-block', env)).toBe('running');
  });
});
