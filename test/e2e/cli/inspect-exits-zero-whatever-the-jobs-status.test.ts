/**
 * `inspect <job>` reports; it did not run anything. When the inspection
 * worked it exits 0 and the job's own status (failure, cancelled, …) is the
 * result's status, so a script can tell "inspect failed" from "the job
 * failed" (#12 item 16). An unknown handle is still a user error (exit 1).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('inspect of a job that failed', () => {
  it('exits 0 and carries the job status failure in its result', () => {
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    expect(cli(home, ['run', '--job-id', 'job-bad', 'w', 'fail', '3']).code).toBe(6);
    const text = cli(home, ['inspect', 'job-bad']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('failed with exit status 3');
    const json = cli(home, ['inspect', 'job-bad', '--json']);
    expect(json.code).toBe(0);
    expect((JSON.parse(json.stdout) as { status: string }).status).toBe('failure');
  });

  it('still exits 1 for a handle that does not exist', () => {
    expect(cli(home, ['inspect', 'job-nope']).code).toBe(1);
  });
});
