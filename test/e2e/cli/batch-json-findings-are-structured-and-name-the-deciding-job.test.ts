/**
 * A batch's --json key findings are all structured: the group's id is a
 * field of its finding (group_id, as snapshot verbs expose checkpoint_id),
 * each job carries job_id, the cleanup is a finding of kind cleanup with its
 * counts, and a race decided by a job that failed calls it the deciding job,
 * never a winner.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { runBatch } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe("a batch's JSON findings", () => {
  it('are objects with the group id, the cleanup and the deciding job as fields', () => {
    expect(cli(home, ['create', '--workspace-id', 'w', '--concurrency', '2']).code).toBe(0);
    const run = runBatch(
      home,
      ['--strategy', 'race', '--concurrency', '2'],
      [
        { workspace: 'w', command: 'fail 2', name: 'quick' },
        { workspace: 'w', command: 'block', name: 'slow' },
      ],
    );
    expect(run.code, run.stderr).toBe(6);
    const findings = run.pkg!.key_findings as Array<Record<string, unknown>>;
    for (const f of findings) expect(typeof f).toBe('object');
    expect(findings[0]).toMatchObject({ kind: 'batch', group_id: expect.stringMatching(/^bg-/) });
    const quick = findings.find((f) => String(f.text).startsWith('quick'))!;
    expect(quick.text).toMatch(/^quick \[deciding job\]: failure/);
    expect(quick.text).not.toContain('[winner]');
    expect(quick).toMatchObject({ role: 'deciding', job_id: expect.stringMatching(/^job-/) });
    expect(findings.find((f) => f.kind === 'cleanup')).toMatchObject({ stopped: [expect.any(String)], never_started: 0, gone_after: 'decider' });
  });
});
