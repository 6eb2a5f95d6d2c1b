/**
 * A batch member runs as a detached job, owned by the home's shared
 * supervisor. When that process dies (kill -9) without recording the job's
 * end, the job will never end by itself: the batch's join used to wait for it
 * forever (and its detached driver with it). The member now ends as lost
 * (infrastructure_failure, naming the dead process), the join decides, and
 * the batch finishes. What remained of the job is stopped as `stop` stops
 * such a job, which frees its workspace for the members queued behind it.
 */
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome, sharedSupervisorsOf } from '../../helpers/cli.js';
import { groupIdOf, memberLines, runBatch, type BatchPackage } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe("a batch whose job's process dies", () => {
  it('ends with that job lost and the batch decided, instead of waiting forever', async () => {
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    const started = runBatch(
      home,
      ['--strategy', 'allSettled', '--detach'],
      [
        { workspace: 'w', command: 'sleep 60', name: 'long' },
        { workspace: 'w', command: 'true', name: 'after' },
      ],
    );
    expect(started.code, started.stderr).toBe(0);
    const group = groupIdOf(started.pkg!);
    const status = () => JSON.parse(cli(home, ['batch', 'status', group, '--json']).stdout) as BatchPackage;
    for (let i = 0; i < 200 && memberLines(status())[0]!.status !== 'running'; i++) await new Promise((r) => setTimeout(r, 25));
    expect(memberLines(status())[0]!.status).toBe('running');
    const supervisors = sharedSupervisorsOf(home);
    expect(supervisors).toHaveLength(1);
    process.kill(supervisors[0]!, 'SIGKILL');
    for (let i = 0; i < 500 && existsSync(`/proc/${supervisors[0]}`); i++) await new Promise((r) => setTimeout(r, 20));

    const waited = cli(home, ['batch', 'wait', group, '--timeout', '20', '--json']);
    const done = JSON.parse(waited.stdout) as BatchPackage;
    expect(done.status, done.outcome_summary).not.toBe('timeout');
    const [long, after] = memberLines(done);
    expect(long!.status).toBe('infrastructure_failure');
    expect(long!.text).toContain(`its job's process died without recording the job's end (pid ${supervisors[0]})`);
    // The join went on without it: the next member ran (in a fresh supervisor) and the batch settled.
    expect(after!.status).toBe('success');
    expect(waited.code).toBe(7);
    // What remained of the job was stopped, as `stop` stops a job whose process is gone, which freed its workspace.
    const job = cli(home, ['inspect', long!.id!]).stdout;
    expect(job).toContain('cancelled');
    expect(job).toContain(`its process (pid ${supervisors[0]}) was gone`);
  }, 60_000);
});
