/**
 * A batch job held back by its workspace is never a bare "queued": the
 * result names the job that keeps the workspace busy; a batch timeout that
 * cancels it before it started says what it was waiting for; and a
 * --concurrency above what the workspace allows at once is a warning, since
 * its jobs run fewer at a time than asked.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { memberLines, runBatch } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('a batch job held by a busy workspace', () => {
  it('names the busy job when the timeout cancels it, and warns that the concurrency exceeds the workspace', () => {
    expect(cli(home, ['create', '--workspace-id', 'solo']).code).toBe(0);
    const busy = JSON.parse(cli(home, ['run', '--detach', '--json', 'solo', 'block']).stdout) as { provenance: { job_id: string } };
    const run = runBatch(
      home,
      ['--strategy', 'all', '--concurrency', '3', '--timeout', '1'],
      [
        { workspace: 'solo', command: 'true', name: 'one' },
        { workspace: 'solo', command: 'true', name: 'two' },
      ],
    );
    expect(run.code, run.stderr).toBe(4);
    for (const line of memberLines(run.pkg!)) {
      expect(line.status).toBe('cancelled');
      expect(line.text).toContain(`waiting because workspace solo is busy: job ${busy.provenance.job_id} is running`);
    }
    const warnings = (JSON.parse(run.stdout) as { warnings: string[] }).warnings;
    expect(warnings.some((w) => w.includes('workspace solo allows 1 job(s) at once') && w.includes('not 3'))).toBe(true);
    expect(cli(home, ['stop', 'solo', '--apply']).code).toBe(5);
  }, 60_000);
});
