/**
 * A batch's winners (#16) are the jobs whose recorded ends came first, not
 * the first listed or the first launched: a quorum of 2 over three jobs
 * started at once takes the two that finished first and cancels the third.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { memberLines, runBatch } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('batch winners', () => {
  it('are the first jobs to finish, in finish order', () => {
    expect(cli(home, ['create', '--workspace-id', 'pool', '--concurrency', '3']).code).toBe(0);
    const jobs = [
      { workspace: 'pool', command: 'sleep 5', name: 'slowest' },
      { workspace: 'pool', command: 'sleep 0.2', name: 'fastest' },
      { workspace: 'pool', command: 'sleep 1', name: 'middle' },
    ];
    const run = runBatch(home, ['--strategy', 'quorum', '--quorum', '2', '--concurrency', '3'], jobs);
    expect(run.code, run.stderr).toBe(0);
    const lines = Object.fromEntries(memberLines(run.pkg!).map((l) => [l.text.split(/[: ]/)[0]!, l]));
    expect(lines.fastest!.text).toContain('[winner]');
    expect(lines.middle!.text).toContain('[winner]');
    expect(lines.slowest!.status).toBe('cancelled');
    expect(Date.parse(lines.fastest!.finished_at!)).toBeLessThanOrEqual(Date.parse(lines.middle!.finished_at!));
    // The winners' evidence comes in finish order: the fastest job's first.
    const evidence = (JSON.parse(run.stdout) as { evidence: Array<{ title?: string; label?: string }> }).evidence.map((e) => JSON.stringify(e));
    expect(evidence[0]).toContain(lines.fastest!.id!);
  });
});
