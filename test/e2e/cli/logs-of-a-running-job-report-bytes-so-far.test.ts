/**
 * `logs` of a job that is still running reads what its log holds so far:
 * the lines printed until now, and their byte count, instead of "0 bytes"
 * from a record that is only completed when the job ends (#12 item 16).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('logs of a running job', () => {
  it('shows the output so far and counts its bytes', async () => {
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    const running = cliAsync(home, ['run', '--job-id', 'job-live', 'w', 'echo', 'hello', '&&', 'block']);
    // Wait on the output itself: the command line (`echo hello …`) is in the result from the start.
    const printed = (stdout: string) => {
      try {
        return (JSON.parse(stdout) as { outcome_summary: string }).outcome_summary.includes('6 bytes');
      } catch {
        return false;
      }
    };
    let logs = cli(home, ['logs', 'job-live', '--json']);
    for (let i = 0; i < 100 && !printed(logs.stdout); i++) {
      await sleep(50);
      logs = cli(home, ['logs', 'job-live', '--json']);
    }
    expect(logs.code, logs.stderr).toBe(0);
    const pkg = JSON.parse(logs.stdout) as { outcome_summary: string; evidence: Array<{ excerpt: string; total_bytes: number }> };
    expect(pkg.outcome_summary).toContain('still running');
    expect(pkg.outcome_summary).toContain('6 bytes of output so far');
    expect(pkg.evidence[0]?.excerpt).toContain('hello');
    const grep = cli(home, ['logs', 'job-live', '--grep', 'hel']);
    expect(grep.stdout).toContain('1: hello');
    expect(grep.stdout).toContain('6 bytes so far');
    expect(cli(home, ['stop', 'w', '--apply']).code).toBe(5);
    expect((await running).code).toBe(5);
  });
});
